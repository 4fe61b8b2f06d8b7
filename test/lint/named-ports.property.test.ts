// named-port-unresolved looks for an egress rule's destination pods only where its peers can
// match (core/lint/named-ports.ts candidatePods); here it is held to the plain reading, every
// pod of the snapshot tried against the rule's peers from every subject's namespace, on random
// snapshots of every policy kind (pods name ports; rules name them, sometimes names no pod has).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../core/cluster.js';
import { peerMatches } from '../../core/evaluate/match.js';
import { selectedPods } from '../../core/lint/cells.js';
import { lint } from '../../core/lint/index.js';
import { rulesFor } from '../../core/policy/model.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);

/** "policy path peers" for every egress named port no destination pod defines, with the pods the rule reaches. */
function plainUnresolvedEgress(cluster: Cluster): string[] {
  const out: string[] = [];
  for (const policy of cluster.policies.all) {
    const viewpoints = [...new Map(selectedPods(cluster, policy).map((s) => [s.nsIdx, s])).values()];
    if (viewpoints.length === 0) continue;
    for (const rule of rulesFor(policy, 'egress') ?? []) {
      const reached = cluster.pods.filter((pod: PodInfo) => !pod.hostNetwork && viewpoints.some((s) => (pod.ips.length > 0 ? pod.ips : [null]).some((ip) => rule.peers.some((peer) => peerMatches(cluster, peer, { kind: 'pod', pod, ip }, s)))));
      (rule.ports ?? []).forEach((m, k) => {
        if (m.type !== 'named') return;
        const defines = (p: PodInfo) => p.namedPorts.some((np) => np.name === m.name && (m.protocol === null || np.protocol === m.protocol));
        if (!cluster.pods.some((p) => !p.hostNetwork && defines(p))) return; // the other message: no pod defines it at all
        if (reached.length > 0 && !reached.some(defines)) out.push(`${policy.ref.kind}/${policy.ref.name} egress[${rule.index}] port ${k}: ${reached.map((p) => p.key).join(',')}`);
      });
    }
  }
  return out.sort();
}

describe('named-port-unresolved (core/lint/named-ports.ts)', () => {
  it(`finds the egress rules whose destination pods lack the name, and names those pods, as trying every pod does, on ${RUNS} random snapshots`, () => {
    let fired = 0;
    assertProperty(
      fc.property(snapshotArb, (snapshot) => {
        const cluster = generatedCluster(snapshot);
        const got = lint(cluster)
          .filter((f) => f.code === 'named-port-unresolved' && f.path.startsWith('spec.egress') && f.message.includes("none of the rule's"))
          .map((f) => {
            const [, rule, k] = /^spec\.egress\[(\d+)\]\.\w+\[(\d+)\]$/.exec(f.path)!;
            const count = Number(/none of the rule's (\d+) destination/.exec(f.message)![1]);
            return { key: `${f.object.kind}/${f.object.name} egress[${rule}] port ${k}`, count, message: f.message };
          });
        const expected = plainUnresolvedEgress(cluster);
        expect(got.map((g) => g.key).sort()).toEqual(expected.map((e) => e.slice(0, e.indexOf(':'))));
        for (const g of got) {
          const pods = expected.find((e) => e.startsWith(`${g.key}:`))!.slice(g.key.length + 2).split(',');
          expect(g.count).toBe(pods.length);
          // The message lists the first pods in snapshot order.
          expect(g.message).toContain(`(${pods.slice(0, 3).join(', ')}`);
        }
        fired += got.length;
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(fired).toBeGreaterThan(0);
  });
});
