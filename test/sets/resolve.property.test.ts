// A set's definition says who is in it: resolving the definition alone (resolve.ts) gives the
// members the compile found from the policy peer, for every set of random snapshots.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import { SetRegistry } from '../../core/sets/registry.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(500);

describe('set definitions', () => {
  it(`resolve to the members the compile found (${RUNS} random snapshots)`, () => {
    let sets = 0;
    assertProperty(
      fc.property(snapshotArb, (list) => {
        const parsed = parseSnapshot(list);
        if (!parsed.ok) return;
        const cluster = buildCluster(parsed.snapshot);
        const { ir } = compileSets(cluster);
        const fresh = new SetRegistry(cluster);
        for (const [id, set] of [...ir.sets.entries()]) {
          expect(fresh.fromDefinition(id, set.definition)).toEqual(set);
          sets++;
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(sets).toBeGreaterThan(RUNS);
  });
});
