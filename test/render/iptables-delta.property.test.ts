// An iptables delta applied on the previous version's sets and chains gives the new version's:
// ipset payload, then the --noflush restore payloads, then the cleanup, on full(v1) equals
// full(v2), set by set and chain by chain, for every node of random changes. The simulator
// refuses what the tools refuse (deleting a rule that is not there, deleting a chain still in
// use or not empty, a member twice without -exist).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeDelta, sliceOf } from '../../core/diff/set-node.js';
import { iptables } from '../../core/render/iptables.js';
import { iptablesDelta } from '../../core/render/iptables-delta.js';
import { applyRestore, parseIpset, type IpSet, type IptTable } from '../../core/render/iptables-sim.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { changeArb, snapshotArb } from '../support/random-snapshot.js';
import { versionPair } from '../support/version-pair.js';

const RUNS = propertyRuns(1000);



/** Sets and chains as comparable data: members sorted, rules in order. */
function canonical(sets: Map<string, IpSet>, v4: IptTable, v6: IptTable): unknown {
  return {
    sets: [...sets].map(([n, s]) => [n, s.type === 'hash:net' ? s.ranges.map((r) => `${r.family}:${r.lo}-${r.hi}`).sort() : [...s.elements].sort()]).sort(),
    v4: [...v4].map(([n, c]) => [n, c.rules.map((r) => r.spec).sort()]).sort(),
    v6: [...v6].map(([n, c]) => [n, c.rules.map((r) => r.spec).sort()]).sort(),
  };
}

describe('iptables deltas', () => {
  it(`full(v1) + delta = full(v2) on ${RUNS} random changes`, () => {
    let deltas = 0;
    let structural = 0;
    assertProperty(
      fc.property(snapshotArb, changeArb, (base, change) => {
        const pair = versionPair(base, change);
        if (!pair) return;
        const { before, after } = pair;
        const [v1, v2] = [iptables.render(before), iptables.render(after)];
        for (const node of Object.keys(after.nodes)) {
          const [from, to] = [sliceOf(before, node), sliceOf(after, node)];
          if (!from || !to || !v1[node]) continue;
          const delta = nodeDelta(from, to);
          const artifact = iptablesDelta(node, '1', '2', from, delta);
          if (!artifact) {
            expect(delta.addresses).toBeDefined();
            continue;
          }
          deltas++;
          if (/^-X /m.test(artifact.ipv4) || /^:NPC-/m.test(artifact.ipv4)) structural++;
          const sets = parseIpset(v1[node]!.ipset);
          parseIpset(artifact.ipset, sets);
          const t4 = applyRestore(artifact.ipv4, 4, applyRestore(v1[node]!.ipv4, 4));
          const t6 = applyRestore(artifact.ipv6, 6, applyRestore(v1[node]!.ipv6, 6));
          parseIpset(artifact.cleanup, sets);
          expect(canonical(sets, t4, t6)).toEqual(canonical(parseIpset(v2[node]!.ipset), applyRestore(v2[node]!.ipv4, 4), applyRestore(v2[node]!.ipv6, 6)));
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(deltas).toBeGreaterThan(RUNS / 4);
    expect(structural).toBeGreaterThan(RUNS / 10);
  });
});
