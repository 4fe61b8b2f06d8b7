// Subject classes hold everything a side verdict reads of a subject: on random snapshots with
// host-network pods on either node and pods without addresses, every member of a subject
// class (core/classes/subjects.ts, keyed by features.ts podKey; lint answers once per class)
// gets the representative's egress and ingress decision towards every endpoint — pods,
// host-network pods (their node), node and outside addresses. Lints compare sides, never
// whole flows, so node locality (decided per node–pod pair before any side, engine.ts) is
// rightly not part of these keys; this holds them to that.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cluster } from '../../core/cluster.js';
import { evaluateSide } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { decisionKey } from '../../core/evaluate/side-runs.js';
import { subjectClasses } from '../../core/classes/subjects.js';
import { PROTOCOLS, type Protocol } from '../../core/policy/model.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { EXTERNAL, lookalikeSnapshotArb, NODES, generatedCluster } from '../support/random-snapshot.js';

const RUNS = Math.max(50, Math.floor(propertyRuns(1000) / 2));

/** The subject's egress towards `peer` and ingress from it, as decision keys; "-" where no flow exists. */
function sides(cluster: Cluster, subject: PodInfo, peer: EndpointSpec, port: number, protocol: Protocol): string {
  const one = (from: EndpointSpec, to: EndpointSpec, dir: 'egress' | 'ingress') => {
    try {
      const flow = resolveFlow(cluster, { from, to, port, protocol });
      return decisionKey(evaluateSide(cluster, dir, subject, dir === 'egress' ? flow.to : flow.from, flow));
    } catch (e) {
      if (e instanceof FlowError) return '-';
      throw e;
    }
  };
  return `${one({ pod: subject.key }, peer, 'egress')} / ${one(peer, { pod: subject.key }, 'ingress')}`;
}

describe('subject classes (core/classes/subjects.ts)', () => {
  it(`give every member the representative's side decisions, on ${RUNS} random snapshots`, () => {
    assertProperty(
      fc.property(lookalikeSnapshotArb, (snapshot) => {
        const cluster = generatedCluster(snapshot);
        const peers: EndpointSpec[] = [...cluster.pods.map((p) => ({ pod: p.key })), ...NODES.flatMap((n) => [{ ip: n.v4 }, { ip: n.v6 }]), ...EXTERNAL.map((ip) => ({ ip }))];
        for (const [rep, ...rest] of subjectClasses(cluster.pods)) {
          for (const member of rest) {
            for (const peer of peers) {
              if ('pod' in peer && (peer.pod === rep!.key || peer.pod === member.key)) continue; // loopback
              // Every port the generator's rules and named ports use, and one they never do.
              for (const port of [1, 53, 80, 81, 443, 5432, 8080]) {
                for (const protocol of PROTOCOLS) {
                  expect(sides(cluster, member, peer, port, protocol), `${member.key} in the class of ${rep!.key}, peer ${JSON.stringify(peer)}, ${port}/${protocol}`).toBe(sides(cluster, rep!, peer, port, protocol));
                }
              }
            }
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
