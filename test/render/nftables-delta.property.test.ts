// An nftables delta applied on the previous version's ruleset is the new version's ruleset:
// full(v1) + delta = full(v2), set by set, element by element, chains and maps alike, for every
// node of random changes: set members, and sets, tables and pod bindings that come and go. The
// simulator refuses what the kernel refuses (deleting a missing element, a chain or set still in use).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeDelta, sliceOf } from '../../core/diff/set-node.js';
import { nftables } from '../../core/render/nftables.js';
import { membersOnly, nftDelta } from '../../core/render/nftables-delta.js';
import { parseNftScript } from '../../core/render/nftables-sim.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { changeArb, snapshotArb } from '../support/random-snapshot.js';
import { versionPair } from '../support/version-pair.js';

const RUNS = propertyRuns(1000);



/** A ruleset as comparable data: sets' members sorted, concatenated sets sorted, chains and maps as parsed. */
function canonical(tables: ReturnType<typeof parseNftScript>): unknown {
  return [...tables].map(([name, t]) => ({
    name,
    sets: [...t.sets].map(([n, r]) => [n, r.map((x) => `${x.family}:${x.lo}-${x.hi}`).sort()]).sort(),
    concat: [...t.concatSets].map(([n, e]) => [n, [...e].sort()]).sort(),
    maps: [...t.maps].map(([n, m]) => [n, [...m].map(([k, v]) => `${k}=${JSON.stringify(v)}`).sort()]).sort(),
    chains: [...t.chains].map(([n, c]) => [n, c.hook, c.rules.map((r) => r.text)]).sort(),
  }));
}

describe('nftables deltas', () => {
  it(`full(v1) + delta = full(v2) on ${RUNS} random changes`, () => {
    let deltas = 0;
    let structural = 0;
    let elements = 0;
    assertProperty(
      fc.property(snapshotArb, changeArb, (base, change) => {
        const pair = versionPair(base, change);
        if (!pair) return;
        const { before, after } = pair;
        const [v1, v2] = [nftables.render(before), nftables.render(after)];
        for (const node of Object.keys(after.nodes)) {
          const [from, to] = [sliceOf(before, node), sliceOf(after, node)];
          if (!from || !to || !v1[node]) continue;
          const delta = nodeDelta(from, to);
          const script = nftDelta(node, '1', '2', from, delta);
          deltas++;
          if (!membersOnly(delta)) structural++;
          elements += (script.match(/element/g) ?? []).length;
          const applied = parseNftScript(script, parseNftScript(v1[node]!));
          expect(canonical(applied)).toEqual(canonical(parseNftScript(v2[node]!)));
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(deltas).toBeGreaterThan(RUNS / 4);
    // Both kinds: set members only, and sets, chains and bindings that come and go.
    expect(structural).toBeGreaterThan(RUNS / 10);
    expect(deltas - structural).toBeGreaterThan(RUNS / 10);
    expect(elements).toBeGreaterThan(0);
  });
});
