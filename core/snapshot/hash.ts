// The identity of a snapshot's content, so re-sending the same cluster (other key order, other
// object order, other whitespace, YAML or JSON) is the same: SHA-256 over each object's key and
// the digest of its canonical JSON, in key order. Digests are kept per object: a version from
// changes shares its unchanged objects with the version before, and hashes only the new ones.
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';
import { byText, sortOnce } from '../sorted.js';

/** The same value with object keys sorted, so JSON.stringify of equal content is equal text. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** `kind/namespace/name`: one object per key in a snapshot. */
// Keys of the same parsed objects are asked for by every version that carries them.
const keys = new WeakMap<SnapshotObject, string>();
export function snapshotObjectKey(o: SnapshotObject): string {
  let k = keys.get(o);
  if (k === undefined) keys.set(o, (k = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`));
  return k;
}


// Parsed objects are never mutated (every stage copies), so a digest stays true for the object.
const digests = new WeakMap<Sha256Hex, WeakMap<SnapshotObject, string>>();

/** SHA-256 (hex) of an object's canonical JSON, computed once per object and hash function. */
export function objectDigest(o: SnapshotObject, sha256Hex: Sha256Hex = portableSha256Hex): string {
  let cache = digests.get(sha256Hex);
  if (!cache) digests.set(sha256Hex, (cache = new WeakMap()));
  let d = cache.get(o);
  if (d === undefined) cache.set(o, (d = sha256Hex(JSON.stringify(canonical(o)))));
  return d;
}

// Each object's line, made once: a version from changes carries most objects of the one before.
const lineCache = new WeakMap<Sha256Hex, WeakMap<SnapshotObject, string>>();

/** `sha256Hex`: the portable SHA-256 by default; Node entries pass node:crypto's (same digest). */
export function snapshotHash(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  let cache = lineCache.get(sha256Hex);
  if (!cache) lineCache.set(sha256Hex, (cache = new WeakMap()));
  const lines: string[] = [];
  for (const o of objects) {
    let line = cache.get(o);
    if (line === undefined) cache.set(o, (line = `${snapshotObjectKey(o)} ${objectDigest(o, sha256Hex)}`));
    lines.push(line);
  }
  sortOnce(lines, byText);
  return sha256Hex(lines.join('\n'));
}
