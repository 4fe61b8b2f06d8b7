// The identity of a snapshot's content: SHA-256 of its validated objects in a canonical order,
// so re-sending the same cluster (other key order, other whitespace, YAML or JSON) is the same.
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';

/** The same value with object keys sorted, so JSON.stringify of equal content is equal text. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** `sha256Hex`: the portable SHA-256 by default; Node entries pass node:crypto's (same digest). */
export function snapshotHash(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  const keyed = objects.map((o) => ({ key: `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`, o }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return sha256Hex(JSON.stringify(canonical(keyed.map((k) => k.o))));
}
