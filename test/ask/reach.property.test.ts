// The work bound must not change answers: reach() evaluates one pod per class and one port
// per segment; on random snapshots every pod it reports must get the verdict the engine gives
// that pod directly, at every port near a boundary the generator uses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reach } from '../../core/ask/answer.js';
import type { Query } from '../../core/ask/parse.js';
import { buildCluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { PROTOCOLS, type Protocol } from '../../core/policy/model.js';
import { parseIp } from '../../core/net/ip.js';
import { ipKey, type PodInfo } from '../../core/snapshot/cluster.js';
import { EXTERNAL, NODES, snapshotArb, generatedCluster } from '../support/random-snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = Math.max(50, Math.floor(propertyRuns(1000) / 4));
// Every port the generator writes, its neighbours, and the ends of its ranges (p+500, p+1000).
const PROBES = [1, 65535, ...[53, 80, 81, 443, 5432, 8080].flatMap((p) => [p - 1, p, p + 1, p + 2, p + 500, p + 501, p + 1000, p + 1001])];

function direct(cluster: ReturnType<typeof buildCluster>, from: EndpointSpec, to: EndpointSpec, port: number, protocol: Protocol): boolean {
  try {
    return evaluate(cluster, resolveFlow(cluster, { from, to, port, protocol })).allowed;
  } catch (e) {
    if (e instanceof FlowError) return false;
    throw e;
  }
}

/** The named port a question means on a destination: asked protocol, else TCP first. */
function named(pod: PodInfo | undefined, name: string, protocol: Protocol | null) {
  return (pod?.namedPorts ?? []).filter((np) => np.name === name && (protocol === null || np.protocol === protocol)).sort((a, b) => PROTOCOLS.indexOf(a.protocol) - PROTOCOLS.indexOf(b.protocol))[0];
}

describe('who/what classes and port segments equal per-pod verdicts', () => {
  it(`on ${RUNS} random snapshots`, () => {
    const port = fc.option(fc.constantFrom<number | string>(53, 80, 444, 5432, 'web', 'dns', 'db'), { nil: null });
    const protocol = fc.option(fc.constantFrom(...PROTOCOLS), { nil: null });
    assertProperty(
      fc.property(snapshotArb, fc.nat(), fc.boolean(), port, protocol, fc.option(fc.nat(), { nil: null }), (snapshot, pick, who, p, proto, nsPick) => {
        const cluster = generatedCluster(snapshot);
        const fixedChoices: EndpointSpec[] = [...cluster.pods.map((x) => ({ pod: x.key })), ...EXTERNAL.map((ip) => ({ ip })), { ip: NODES[0]!.v4 }];
        const fixed = fixedChoices[pick % fixedChoices.length]!;
        // "who in ns can reach …", "what can … reach in ns": only that namespace's pods.
        const namespaces = [...cluster.nsByName.keys()];
        const podsIn = nsPick === null || namespaces.length === 0 ? undefined : namespaces[nsPick % namespaces.length]!;
        const among = podsIn === undefined ? {} : { podsIn };
        const q: Query = who ? { kind: 'who', to: fixed, port: p, protocol: proto, ...among } : { kind: 'what', from: fixed, port: p, protocol: proto, ...among };
        let classes;
        try {
          classes = reach(cluster, q);
        } catch (e) {
          // "who can reach X on dns" when X has no such port: an error answer, checked elsewhere.
          if (e instanceof FlowError && e.field === 'port') return;
          throw e;
        }
        const owner = 'ip' in fixed ? cluster.ipOwners.get(ipKey(parseIp(fixed.ip)!)) : undefined;
        const fixedPod = 'pod' in fixed ? cluster.podByKey.get(fixed.pod) : owner?.kind === 'pod' ? owner.pod : undefined;
        // Every other pod (of the namespace asked) in exactly one class.
        expect(classes.flatMap((c) => c.members.map((m) => m.key)).sort()).toEqual(cluster.pods.filter((x) => x !== fixedPod && (podsIn === undefined || x.namespace === podsIn)).map((x) => x.key).sort());
        for (const c of classes) {
          for (const m of c.members) {
            const [from, to] = who ? [{ pod: m.key }, fixed] : [fixed, { pod: m.key }];
            const where = `${JSON.stringify(q)} member ${m.key} of [${c.members.map((x) => x.key).join(', ')}]`;
            if (p === null) {
              for (const pr of proto ? [proto] : PROTOCOLS) {
                for (const port of PROBES) {
                  const inRanges = (c.ranges?.[pr] ?? []).some(([lo, hi]) => lo <= port && port <= hi);
                  expect(inRanges, `${where} ${pr} ${port}`).toBe(direct(cluster, from, to, port, pr));
                }
              }
            } else if (typeof p === 'number') {
              expect((c.ranges?.[proto ?? 'TCP'] ?? []).length > 0, where).toBe(direct(cluster, from, to, p, proto ?? 'TCP'));
            } else {
              const np = named(who ? fixedPod : m, p, proto);
              expect(c.skipped === 'no-such-named-port', where).toBe(np === undefined);
              if (np) expect((c.ranges?.[np.protocol] ?? []).length > 0, where).toBe(direct(cluster, from, to, np.port, np.protocol));
            }
          }
        }
      }),
      { file: import.meta.url, numRuns: RUNS },
    );
  });
});
