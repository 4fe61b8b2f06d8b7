// A node agent's arithmetic: the old slice plus the delta is the new slice, for every node of
// random snapshot pairs (a pull request's worth of changes: relabels, moves, new and deleted
// pods, namespaces and policies).
import fc from 'fast-check';
import { assertProperty } from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { applyNodeDelta, nodeDelta, sliceOf, type NodeSlice } from '../../core/diff/set-node.js';
import { compileSets } from '../../core/sets/compile.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { changeArb, changeOf, snapshotArb } from '../support/random-snapshot.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);
const EMPTY: NodeSlice = { addresses: [], pods: {}, sets: {}, tables: {} };

type Item = { kind: string; metadata: { name: string; namespace?: string } };
const keyOf = (o: Item | { kind: string; namespace?: string; name: string }) => ('metadata' in o ? `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}` : `${o.kind}/${o.namespace ?? ''}/${o.name}`);

function compiled(items: readonly unknown[]) {
  const parsed = parseSnapshot({ items });
  if (!parsed.ok) return null;
  return compileSets(buildCluster(parsed.snapshot)).ir;
}

describe('set-form node deltas', () => {
  it(`old slice + delta = new slice, on ${RUNS} random changes`, () => {
    let nodes = 0;
    let changedSets = 0;
    assertProperty(
      fc.property(snapshotArb, changeArb, (base, change) => {
        const c = changeOf(base, change);
        const removed = new Set([...c.delete.map(keyOf), ...(c.apply as Item[]).map(keyOf)]);
        const headItems = [...(base.items as Item[]).filter((o) => !removed.has(keyOf(o))), ...(c.apply as Item[])];
        const [before, after] = [compiled(base.items), compiled(headItems)];
        if (!before || !after) return;
        for (const node of new Set([...Object.keys(before.nodes), ...Object.keys(after.nodes)])) {
          const to = sliceOf(after, node);
          if (!to) continue;
          const from = sliceOf(before, node) ?? EMPTY;
          const delta = nodeDelta(from, to);
          changedSets += Object.keys(delta.setsChanged).length;
          expect(applyNodeDelta(from, delta)).toEqual(to);
          nodes++;
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(nodes).toBeGreaterThan(RUNS);
    expect(changedSets).toBeGreaterThan(0);
  });
});
