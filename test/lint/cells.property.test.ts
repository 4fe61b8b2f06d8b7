// The lints' cell sets (core/lint/cells.ts keeps a rule's cells as port bitsets per subject ×
// peer pair) against the plainest reading of a rule: every subject × every peer endpoint ×
// every port representative, matched with match.ts as the engine matches a rule. And
// np-rule-overridden, which walks each cell through the admin tier only, against the whole
// verdict engine (evaluateSide) on the same cells. Random snapshots of every policy kind.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../core/cluster.js';
import { evaluateSide } from '../../core/evaluate/engine.js';
import type { Endpoint } from '../../core/evaluate/endpoint.js';
import { peerMatches, portMatches } from '../../core/evaluate/match.js';
import { LintBudget } from '../../core/lint/budget.js';
import { buildUniverse, CellUnion, cellsIntersect, isCellSubset, ruleCells, selectedPods, type Universe } from '../../core/lint/cells.js';
import { lint } from '../../core/lint/index.js';
import { listSome, matchesNothing } from '../../core/lint/types.js';
import { describePolicy, rulesFor, type Direction, type Policy, type Rule } from '../../core/policy/model.js';
import { addressOf, type PodInfo } from '../../core/snapshot/cluster.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);

/**
 * Random snapshots, most with one more AdminNetworkPolicy at priority 0 that takes every pod's
 * traffic (on some ports, or all; egress to every address too): without it few NetworkPolicy
 * rules are ever wholly decided in the Admin tier, and np-rule-overridden would seldom fire.
 */
const overriddenArb = fc
  .tuple(snapshotArb, fc.option(fc.record({ action: fc.constantFrom('Allow', 'Deny'), ports: fc.option(fc.tuple(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 1, max: 100 })), { freq: 2, nil: undefined }) }), { freq: 4, nil: undefined }))
  .map(([snapshot, catchAll]) => {
    if (!catchAll) return snapshot;
    const ports = catchAll.ports && { ports: [{ portRange: { protocol: 'TCP', start: catchAll.ports[0], end: catchAll.ports[0] + catchAll.ports[1] } }] };
    const ingress = [{ name: 'all', action: catchAll.action, from: [{ namespaces: {} }], ...ports }];
    const egress = [{ name: 'all', action: catchAll.action, to: [{ namespaces: {} }, { networks: ['0.0.0.0/0', '::/0'] }], ...ports }];
    const spec = { priority: 0, subject: { namespaces: {} }, ingress, egress };
    return { ...snapshot, items: [...snapshot.items, { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'catch-all' }, spec }] };
  });
const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

/** Every cell id `rule` matches, ascending: no candidate lists, no shared bitsets. */
function plainCells(cluster: Cluster, u: Universe, dir: Direction, rule: Rule): number[] {
  const P = u.peers.all.length;
  const Q = u.ports.length;
  const out: number[] = [];
  u.subjects.forEach((subject, si) =>
    u.peers.all.forEach((peer, ei) => {
      // A flow runs in one family both ends have; named ports resolve on the destination pod.
      if (peer.ip !== null && subject.ips.length > 0 && !subject.ips.some((i) => i.family === peer.ip!.family)) return;
      if (!rule.peers.some((p) => peerMatches(cluster, p, peer, subject))) return;
      const dest = dir === 'ingress' ? subject : peer.kind === 'pod' && !peer.pod.hostNetwork ? peer.pod : null;
      u.ports.forEach((q, qi) => {
        if (rule.ports === null || rule.ports.some((m) => portMatches(m, q.port, q.protocol, dest))) out.push((si * P + ei) * Q + qi);
      });
    }),
  );
  return out;
}

/** np-rule-overridden's message tail and severity the way it was first written: evaluateSide per cell. */
function overriddenByEngine(cluster: Cluster, policy: Policy, dir: Direction, rule: Rule): { severity: string; by: string } | null {
  const admin = cluster.policies.admin.flatMap((p) => rulesFor(p, dir) ?? []);
  if (admin.length === 0) return null;
  const u = buildUniverse(cluster, selectedPods(cluster, policy), [rule, ...admin]);
  const P = u.peers.all.length;
  const Q = u.ports.length;
  const deciders = new Map<string, string>();
  let denies = false;
  const cells = plainCells(cluster, u, dir, rule);
  if (cells.length === 0) return null;
  for (const id of cells) {
    const q = id % Q;
    const e = ((id - q) / Q) % P;
    const subject: PodInfo = u.subjects[((id - q) / Q - e) / P]!;
    const peer = u.peers.all[e]!;
    const family = peer.ip?.family ?? subject.ips[0]?.family ?? null;
    const self: Endpoint = { kind: 'pod', pod: subject, ip: family === null ? null : addressOf(subject.ips, family) };
    const [from, to] = dir === 'ingress' ? [peer, self] : [self, peer];
    const v = evaluateSide(cluster, dir, subject, peer, { from, to, port: u.ports[q]!.port, protocol: u.ports[q]!.protocol, family });
    if (v.tier !== 'admin' || !v.policy || !v.rule) return null;
    denies ||= !v.allowed;
    deciders.set(`${describePolicy(v.policy)}#${v.rule.index}`, `${describePolicy(v.policy)} ${dir} rule ${v.rule.index}${v.rule.name ? ` "${v.rule.name}"` : ''} (${v.allowed ? 'allows' : 'denies'})`);
  }
  return { severity: denies ? 'warning' : 'info', by: listSome([...deciders.values()]) };
}

describe('lint cells (core/lint/cells.ts)', () => {
  it(`hold exactly the cells a plain enumeration finds, and answer subset, union and overlap alike, on ${RUNS} random snapshots`, () => {
    let rules = 0;
    assertProperty(
      fc.property(snapshotArb, (snapshot) => {
        const cluster = generatedCluster(snapshot);
        for (const policy of cluster.policies.all) {
          for (const dir of DIRECTIONS) {
            const list = rulesFor(policy, dir) ?? [];
            if (list.length === 0) continue;
            const u = buildUniverse(cluster, selectedPods(cluster, policy), list);
            const sets = list.map((r) => ruleCells(cluster, u, dir, r, new LintBudget())!);
            const plain = list.map((r) => plainCells(cluster, u, dir, r));
            const union = new CellUnion();
            const seen = new Set<number>();
            sets.forEach((cells, i) => {
              rules++;
              expect([...cells]).toEqual(plain[i]);
              expect(cells.size).toBe(plain[i]!.length);
              for (const id of plain[i]!) expect(cells.has(id)).toBe(true);
              expect(union.covers(cells)).toBe(plain[i]!.every((id) => seen.has(id)));
              union.add(cells);
              for (const id of plain[i]!) seen.add(id);
              sets.forEach((other, j) => {
                const theirs = new Set(plain[j]);
                expect(isCellSubset(cells, other)).toBe(plain[i]!.every((id) => theirs.has(id)));
                expect(cellsIntersect(cells, other)).toBe(plain[i]!.some((id) => theirs.has(id)));
              });
            });
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(rules).toBeGreaterThan(RUNS / 2);
  });

  it(`np-rule-overridden, walking only the admin tier, says what the whole verdict engine says, on ${RUNS} random snapshots`, () => {
    let fired = 0;
    assertProperty(
      fc.property(overriddenArb, (snapshot) => {
        const cluster = generatedCluster(snapshot);
        const found = lint(cluster).filter((f) => f.code === 'np-rule-overridden');
        const expected: string[] = [];
        for (const policies of cluster.policies.byNamespace.values()) {
          for (const policy of policies) {
            for (const dir of DIRECTIONS) {
              for (const rule of rulesFor(policy, dir) ?? []) {
                if (matchesNothing(rule)) continue;
                const o = selectedPods(cluster, policy).length > 0 ? overriddenByEngine(cluster, policy, dir, rule) : null;
                if (o) expected.push(`${policy.ref.namespace}/${policy.ref.name} spec.${dir}[${rule.index}] ${o.severity} ${o.by}`);
              }
            }
          }
        }
        const got = found.map((f) => `${f.object.namespace}/${f.object.name} ${f.path} ${f.severity} ${f.message.slice(f.message.indexOf('Admin tier by ') + 'Admin tier by '.length)}`);
        fired += got.length;
        expect(got.sort()).toEqual(expected.sort());
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    // 25–50 findings in 250 runs were seen; one per twenty runs is a floor no seed should miss.
    expect(fired).toBeGreaterThan(RUNS / 20);
  });
});
