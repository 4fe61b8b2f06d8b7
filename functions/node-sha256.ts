// Node's native SHA-256 for table ids (core/compile/table-id.ts): same digest as the portable
// default, ~17× faster. Only Node entry points import this (node adapter, Lambda, CLI, bench);
// the Worker keeps the portable one.
import * as crypto from 'node:crypto';
import type { Sha256Hex } from '../core/compile/index.js';

// One-shot hashing (Node 20.12 and later) costs a third of a Hash object for the short texts
// ids and manifest parts hash (~10⁵ per publish at L); earlier Node 20 releases use the object.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

export const nodeSha256Hex: Sha256Hex = (text) => {
  if (typeof text === 'string' && oneShot) return oneShot('sha256', text, 'hex');
  const h = crypto.createHash('sha256');
  if (typeof text === 'string') h.update(text, 'utf8');
  else for (const piece of text) h.update(piece, 'utf8');
  return h.digest('hex');
};
