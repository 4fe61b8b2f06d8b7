// Content address of a table: equal rules, equal id, on every runtime: `t` + the first 16 hex
// digits of the SHA-256 of the canonical rules. SHA-256 comes from @noble/hashes (pure, runs
// anywhere); a runtime with a native SHA-256 passes it in (CompileOptions.sha256Hex) — the
// Node adapter does: on this machine node:crypto hashes ~17× faster than noble, and hashing is
// a large share of compiling an M-sized cluster. Same function, same ids.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { IrRule } from './ir.js';

/**
 * SHA-256 of the UTF-8 encoding of text, as lower-case hex. Text may come in pieces (hashed as
 * their concatenation), so a long canonical form need not be built as one string: strings of
 * megabytes go to V8's large-object space and each one brings a full collection nearer.
 */
export type Sha256Hex = (text: string | readonly string[]) => string;

export const portableSha256Hex: Sha256Hex = (text) => {
  if (typeof text === 'string') return bytesToHex(sha256(utf8ToBytes(text)));
  const h = sha256.create();
  for (const piece of text) h.update(utf8ToBytes(piece));
  return bytesToHex(h.digest());
};

/** The rules as JSON tuples (V8's JSON.stringify beats hand-built strings here, measured). */
export function canonicalRules(rules: readonly IrRule[]): string {
  return JSON.stringify(rules.map((r) => [r.action, r.protocol, r.srcNetwork, r.srcPortRange, r.dstNetwork, r.dstPortRange]));
}

/** canonicalRules([...a, ...b]) from canonicalRules(a) and canonicalRules(b), as pieces, without re-encoding. */
export function concatCanonical(a: string, b: string): string[] {
  if (a === '[]') return [b];
  if (b === '[]') return [a];
  return [a.slice(0, -1), ',', b.slice(1)];
}

/** Chunks of about this many characters: large enough to hash in few calls, small enough for V8's young generation. */
const CHUNK = 32 * 1024;

/** A canonical JSON array written item by item into chunks (pieces for Sha256Hex). */
export class CanonicalChunks {
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private size = 0;

  /** Appends comma-separated items: a canonical form without its brackets ("" adds nothing). */
  add(items: string): void {
    if (items === '') return;
    this.pending.push(items);
    this.size += items.length;
    if (this.size >= CHUNK) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join(',');
    this.chunks.push(this.chunks.length === 0 ? `[${text}` : `,${text}`);
    this.pending = [];
    this.size = 0;
  }

  /** The pieces; joined they are the canonical form. */
  finish(): string[] {
    this.flush();
    if (this.chunks.length === 0) return ['[]'];
    this.chunks.push(']');
    return this.chunks;
  }
}

export function idOfCanonical(canonical: string | readonly string[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  return `t${sha256Hex(canonical).slice(0, 16)}`;
}

export function tableId(rules: readonly IrRule[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  return idOfCanonical(canonicalRules(rules), sha256Hex);
}
