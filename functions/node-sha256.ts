// Node's native SHA-256 for table ids (core/compile/table-id.ts): same digest as the portable
// default, ~17× faster. Only Node entry points import this (node adapter, Lambda, CLI, bench);
// the Worker keeps the portable one.
import { createHash } from 'node:crypto';
import type { Sha256Hex } from '../core/compile/table-id.js';

export const nodeSha256Hex: Sha256Hex = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
