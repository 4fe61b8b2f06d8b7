// The identity of a snapshot's content: SHA-256 of its validated objects in a canonical order,
// so re-sending the same cluster (other key order, other whitespace, YAML or JSON) is the same.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';

/** The same value with object keys sorted, so JSON.stringify of equal content is equal text. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

export function snapshotHash(objects: readonly SnapshotObject[]): string {
  const key = (o: SnapshotObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  const sorted = [...objects].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return bytesToHex(sha256(utf8ToBytes(JSON.stringify(canonical(sorted)))));
}
