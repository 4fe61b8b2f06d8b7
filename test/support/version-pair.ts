// Two versions of a cluster for the delta properties: a random snapshot, and the same after a
// random change (objects deleted, objects from another random snapshot applied), both compiled
// to the set form; null when either does not parse.
import { buildCluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import type { SetIr } from '../../core/sets/ir.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { changeOf } from './random-snapshot.js';

type Item = { kind: string; metadata: { name: string; namespace?: string } };
const keyOf = (o: Item | { kind: string; namespace?: string; name: string }) => ('metadata' in o ? `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}` : `${o.kind}/${o.namespace ?? ''}/${o.name}`);

export function compiled(items: readonly unknown[]): SetIr | null {
  const parsed = parseSnapshot({ items });
  return parsed.ok ? compileSets(buildCluster(parsed.snapshot)).ir : null;
}

export function versionPair(base: { items: readonly unknown[] }, change: Parameters<typeof changeOf>[1]): { before: SetIr; after: SetIr } | null {
  const c = changeOf(base, change);
  const removed = new Set([...c.delete.map(keyOf), ...(c.apply as Item[]).map(keyOf)]);
  const [before, after] = [compiled(base.items), compiled([...(base.items as Item[]).filter((o) => !removed.has(keyOf(o))), ...(c.apply as Item[])])];
  return before && after ? { before, after } : null;
}
