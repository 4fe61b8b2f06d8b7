// Names for several pods agree with single-pod verdicts: on random snapshots with a random
// Service added (its selector, a numeric or named targetPort), "can A reach ns/key=value",
// "can ns/key=value reach B" and "can A reach ns/svc/s" answer, for every member, what the engine
// says for that pod (on the targetPort that pod receives), and the group's all/none/some follows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ask, type GroupAnswer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { type Cluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow } from '../../core/evaluate/resolve.js';
import { PROTOCOLS, type Protocol } from '../../core/policy/model.js';
import { assertProperty } from '../support/property.js';
import { snapshotArb, generatedCluster } from '../support/random-snapshot.js';

const RUNS = Number(process.env.GROUP_RUNS ?? 150);

/**
 * The engine on one pod pair; null where the pair has no verdict (no such named port, no shared
 * family). `viaService`: the destination is a Service's backend (a pod reaching itself that way is
 * not loopback: test/ask/hairpin.test.ts).
 */
function single(cluster: Cluster, from: string, to: string, port: number | string, protocol: Protocol, viaService = false): boolean | null {
  try {
    const spec = (t: string) => (/^[\d.:a-f]+$/.test(t) && t.includes('.') ? { ip: t } : { pod: t });
    const dst = viaService ? { pod: to, viaService: true as const } : spec(to);
    return evaluate(cluster, resolveFlow(cluster, { from: spec(from), to: dst, port, protocol })).allowed;
  } catch (e) {
    if (e instanceof FlowError) return null;
    throw e;
  }
}

function expectGroup(cluster: Cluster, question: string, expected: Map<string, boolean>, label: (from: string, to: string) => string) {
  const a = ask(cluster, question);
  if (isParseFailure(a)) throw new Error(`${question}: ${a.error}`);
  if (expected.size === 0) {
    expect(['no-verdict', 'error'], `${question}: ${a.text}`).toContain(a.kind);
    return;
  }
  expect(a.kind, `${question}: ${a.text}`).toBe('can-group');
  const g = a as GroupAnswer;
  expect(new Map(g.members.map((m) => [label(m.from, m.to), m.allowed])), question).toEqual(expected);
  const yes = [...expected.values()].filter(Boolean).length;
  expect(g.allowed).toBe(yes === expected.size ? 'all' : yes === 0 ? 'none' : 'some');
}

const serviceArb = fc.record({
  ns: fc.constantFrom('a', 'b', 'c'),
  key: fc.constantFrom('app', 'team'),
  value: fc.constantFrom('x', 'y'),
  port: fc.constantFrom(80, 443),
  targetPort: fc.oneof(fc.constantFrom(53, 80, 5432, 8080), fc.constantFrom('web', 'dns', 'db'), fc.constant(undefined)),
  protocol: fc.constantFrom(...PROTOCOLS),
});

describe('grouped answers agree with single-pod verdicts', () => {
  it(`on ${RUNS} random snapshots with a Service`, () => {
    assertProperty(
      fc.property(snapshotArb, serviceArb, fc.nat(), fc.constantFrom(53, 80, 5432, 8080), fc.constantFrom(...PROTOCOLS), (snapshot, s, pick, port, protocol) => {
        const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: s.ns }, spec: { selector: { [s.key]: s.value }, clusterIP: '10.96.0.10', ports: [{ port: s.port, protocol: s.protocol, ...(s.targetPort !== undefined ? { targetPort: s.targetPort } : {}) }] } };
        const cluster = generatedCluster({ ...snapshot, items: [...snapshot.items, svc] });
        const other = cluster.pods[pick % cluster.pods.length]!.key;
        const selected = (cluster.podsByNamespace.get(s.ns) ?? []).filter((p) => p.labels[s.key] === s.value);
        const on = `${port}/${protocol.toLowerCase()}`;

        // A selector as the destination, then as the source.
        const to = new Map(selected.flatMap((p) => {
          const v = single(cluster, other, p.key, port, protocol);
          return v === null ? [] : [[p.key, v] as const];
        }));
        expectGroup(cluster, `can ${other} reach ${s.ns}/${s.key}=${s.value} on ${on}`, to, (_f, t) => t);
        const from = new Map(selected.flatMap((p) => {
          const v = single(cluster, p.key, other, port, protocol);
          return v === null ? [] : [[p.key, v] as const];
        }));
        expectGroup(cluster, `can ${s.ns}/${s.key}=${s.value} reach ${other} on ${on}`, from, (f) => f);

        // The Service on its port: each ready selected pod on the targetPort it receives.
        const backends = new Map(selected.filter((p) => p.ips.length > 0).flatMap((p) => {
          const tp = s.targetPort ?? s.port;
          const target = typeof tp === 'number' ? tp : p.namedPorts.find((np) => np.name === tp && np.protocol === s.protocol)?.port;
          const v = target === undefined ? null : single(cluster, other, p.key, target, s.protocol, true);
          return v === null ? [] : [[p.key, v] as const];
        }));
        expectGroup(cluster, `can ${other} reach ${s.ns}/svc/s on ${s.port}/${s.protocol.toLowerCase()}`, backends, (_f, t) => t);
        // Its ClusterIP is the same Service.
        expectGroup(cluster, `can ${other} reach 10.96.0.10 on ${s.port}/${s.protocol.toLowerCase()}`, backends, (_f, t) => t);
      }),
      { numRuns: RUNS, file: import.meta.url, env: ['GROUP_RUNS'] },
    );
  });
});
