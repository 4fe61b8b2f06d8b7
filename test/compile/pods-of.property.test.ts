// podsOf (compile/classes.ts), which the set members and the flat compiler's classes both read,
// equals its definition on random snapshots: the pods, not host-network and with an address,
// whose namespace the peer's namespace part matches for the subject (evaluate/match.ts) and whose
// labels its pod selector matches. Asked for every pods peer of every policy, from every subject,
// in a random order and twice: namespaceSelector peers share one list per selector, so a list
// built for one peer, or changed by a caller, would show here as another peer's answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../core/cluster.js';
import { podsOf } from '../../core/compile/classes.js';
import { namespaceMatches } from '../../core/evaluate/match.js';
import { rulesFor, type Peer } from '../../core/policy/model.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);

type PodsPeer = Extract<Peer, { type: 'pods' }>;

function definition(cluster: Cluster, peer: PodsPeer, subject: PodInfo): number[] {
  return cluster.pods
    .filter((p) => !p.hostNetwork && p.ips.length > 0)
    .filter((p) => namespaceMatches(cluster, peer.namespaces, cluster.namespaces[p.nsIdx]!, subject))
    .filter((p) => peer.pods === null || cluster.selectors.selector(peer.pods).matches(p.labels))
    .map((p) => p.idx)
    .sort((a, b) => a - b);
}

function podsPeers(cluster: Cluster): PodsPeer[] {
  const out: PodsPeer[] = [];
  for (const policy of cluster.policies.all) for (const dir of ['ingress', 'egress'] as const) for (const rule of rulesFor(policy, dir) ?? []) for (const peer of rule.peers) if (peer.type === 'pods') out.push(peer);
  return out;
}

describe('podsOf equals its definition', () => {
  it(`on ${RUNS} random snapshots, every pods peer from every subject, in a random order, twice`, () => {
    let selectorPeers = 0;
    assertProperty(
      fc.property(snapshotArb, fc.integer(), (snapshot, salt) => {
        const cluster = generatedCluster(snapshot);
        const subjects = cluster.pods.filter((p) => !p.hostNetwork);
        const asks = podsPeers(cluster).flatMap((peer) => subjects.map((subject) => ({ peer, subject })));
        // A deterministic shuffle per run: which peer asks first must not matter.
        asks.sort((a, b) => ((a.subject.idx * 7919 + salt) % 97) - ((b.subject.idx * 7919 + salt) % 97));
        for (const round of [1, 2]) {
          for (const { peer, subject } of asks) {
            if (round === 1 && peer.namespaces.type === 'selector') selectorPeers++;
            const got = Array.from(podsOf(cluster, peer, subject)).sort((a, b) => a - b);
            expect(got, `round ${round}: ${JSON.stringify(peer)} from ${subject.key}`).toEqual(definition(cluster, peer, subject));
          }
        }
      }),
      { file: import.meta.url, env: ['PROPERTY_RUNS', 'PROPERTY_DEPTH'], numRuns: RUNS },
    );
    // The shared lists are exercised, not only the per-namespace walk.
    expect(selectorPeers).toBeGreaterThan(RUNS);
  });
});
