// A node agent's arithmetic: the old slice plus the delta is the new slice, for every node of
// random snapshot pairs (a pull request's worth of changes: relabels, moves, new and deleted
// pods, namespaces and policies).
import fc from 'fast-check';
import { assertProperty, propertyRuns } from '../support/property.js';
import { describe, expect, it } from 'vitest';
import { applyNodeDelta, nodeDelta, sliceOf, type NodeSlice } from '../../core/diff/set-node.js';
import { changeArb, snapshotArb } from '../support/random-snapshot.js';
import { versionPair } from '../support/version-pair.js';

const RUNS = propertyRuns(1000);
const EMPTY: NodeSlice = { addresses: [], pods: {}, sets: {}, tables: {} };



describe('set-form node deltas', () => {
  it(`old slice + delta = new slice, on ${RUNS} random changes`, () => {
    let nodes = 0;
    let changedSets = 0;
    assertProperty(
      fc.property(snapshotArb, changeArb, (base, change) => {
        const pair = versionPair(base, change);
        if (!pair) return;
        const { before, after } = pair;
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
