// Content address of a table: equal rules, equal id, on every runtime: `t` + the first 16 hex
// digits of the SHA-256 of the canonical rules. SHA-256 comes from @noble/hashes (pure, runs
// anywhere); a runtime with a native SHA-256 passes it in (CompileOptions.sha256Hex) — the
// Node adapter does: on this machine node:crypto hashes ~17× faster than noble, and hashing is
// a large share of compiling an M-sized cluster. Same function, same ids.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { IrRule } from './ir.js';

/** SHA-256 of the UTF-8 encoding of text, as lower-case hex. */
export type Sha256Hex = (text: string) => string;

export const portableSha256Hex: Sha256Hex = (text) => bytesToHex(sha256(utf8ToBytes(text)));

/** The rules as JSON tuples (V8's JSON.stringify beats hand-built strings here, measured). */
export function canonicalRules(rules: readonly IrRule[]): string {
  return JSON.stringify(rules.map((r) => [r.action, r.protocol, r.srcNetwork, r.srcPortRange, r.dstNetwork, r.dstPortRange]));
}

/** canonicalRules([...a, ...b]) from canonicalRules(a) and canonicalRules(b), without re-encoding. */
export function concatCanonical(a: string, b: string): string {
  if (a === '[]') return b;
  if (b === '[]') return a;
  return `${a.slice(0, -1)},${b.slice(1)}`;
}

export function idOfCanonical(canonical: string, sha256Hex: Sha256Hex = portableSha256Hex): string {
  return `t${sha256Hex(canonical).slice(0, 16)}`;
}

export function tableId(rules: readonly IrRule[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  return idOfCanonical(canonicalRules(rules), sha256Hex);
}
