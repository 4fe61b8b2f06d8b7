// lint(): ordering, snapshot paths, a clean cluster, and on every upstream replay that each
// finding's path points at something that exists in the object as written.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { LintBudget, LINT_LIMITS } from '../../core/lint/budget.js';
import { buildUniverse, ruleCells, selectedPods } from '../../core/lint/cells.js';
import { LINTS, lint, objectKey } from '../../core/lint/index.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';
import { FIXTURES, loadSuite, replay } from '../support/upstream.js';

const base = (): K8sObject[] => [
  namespace('x'),
  namespace('y'),
  node('n1', '172.18.0.2'),
  pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' }, ports: [{ name: 'web', containerPort: 8080 }] }),
  pod('y/c', { ip: '10.0.2.12', node: 'n1', labels: { app: 'c' } }),
];
const fromY = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } };

/** Follows `spec.ingress[0].from[1].ipBlock` through a plain object; undefined if any step is missing. */
function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const [, key, index] of path.matchAll(/\.?([^.[\]]+)|\[(\d+)\]/g)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key ?? Number(index)];
  }
  return cur;
}

describe('lint()', () => {
  it('finds nothing in a tidy cluster', () => {
    expect(lint(clusterOf([...base(), networkPolicy('x/web', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [fromY], ports: [{ port: 'web' }] }] })]))).toEqual([]);
  });

  it('orders errors first, then by object and path, and adds snapshotPath from objectPaths', () => {
    const objects = [
      ...base(),
      networkPolicy('x/typo', { podSelector: { matchLabels: { app: 'zz' } } }),
      networkPolicy('x/both', { podSelector: {}, ingress: [{ from: [fromY] }, { from: [fromY], ports: [{ port: 80 }] }] }),
    ];
    const cluster = clusterOf(objects);
    const findings = lint(cluster, { objectPaths: new Map([[objectKey({ kind: 'NetworkPolicy', namespace: 'x', name: 'typo' }), '$.items[5]']]) });
    expect(findings.map((f) => [f.severity, f.code, f.object.name, f.path])).toEqual([
      ['warning', 'selects-no-pods', 'typo', 'spec.podSelector'],
      ['info', 'np-rule-redundant', 'both', 'spec.ingress[1]'],
    ]);
    expect(findings[0]!.snapshotPath).toBe('$.items[5].spec.podSelector');
    expect(findings[1]!.snapshotPath).toBeUndefined();
    for (const f of findings) {
      expect(f.message).not.toContain('\n');
      expect(f.hint).not.toContain('\n');
      expect(LINTS.find((l) => l.code === f.code)?.severities).toContain(f.severity);
    }
  });

  it('gives up (answers nothing) on a question over the cell limit instead of running unbounded', () => {
    const cluster = clusterOf(base());
    // 1 subject × 1,001 peers × 1,000 ports: more matching cells than one question may hold.
    const pods = Array.from({ length: 1001 }, (_, i) => i);
    const ports = Array.from({ length: 1000 }, (_, i) => ({ port: i + 1, protocol: 'TCP' as const }));
    const huge = { subjects: [cluster.pods[0]!], subjectCounts: [1], peers: { all: pods.map(() => ({ kind: 'pod' as const, pod: cluster.pods[1]!, ip: null })), byNamespace: new Map(), pods, nodes: [], byAddress: [], every: pods }, ports };
    expect(1001 * 1000).toBeGreaterThan(LINT_LIMITS.cellsPerQuestion);
    const rule = { index: 0, action: 'allow' as const, peers: [{ type: 'any' as const }], ports: null };
    expect(ruleCells(cluster, huge, 'ingress', rule, new LintBudget())).toBeNull();
    expect(ruleCells(cluster, huge, 'ingress', rule, new LintBudget({ ...LINT_LIMITS, cellsPerQuestion: 1001 * 1000 }))?.size).toBe(1001 * 1000);
  });

  it('tests a rule with an ipBlock only against the endpoints in its addresses, and charges those pairs', () => {
    // The address index finds the endpoints a CIDR peer holds; the others would fail the test
    // anyway, so they are neither visited nor charged (a step per pair tested, README "Limits").
    const cluster = clusterOf([...base(), networkPolicy('x/from-block', { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.2.0/24' } }] }] })]);
    const policy = cluster.policies.all[0]!;
    const rule = policy.ingress![0]!;
    const u = buildUniverse(cluster, selectedPods(cluster, policy), [rule]);
    const endpoints = u.peers.all.length;
    // y/c (10.0.2.12), and an address of its class that no pod owns, of more endpoints.
    const inBlock = u.peers.all.flatMap((e, i) => (e.ip && e.ip.family === 4 && e.ip.value >> 8n === 0x0a0002n ? [i] : []));
    expect(inBlock.map((i) => u.peers.all[i]!)).toContainEqual(expect.objectContaining({ kind: 'pod', pod: expect.objectContaining({ key: 'y/c' }) }));
    expect(endpoints).toBeGreaterThan(inBlock.length);
    const limits = (steps: number) => new LintBudget({ ...LINT_LIMITS, stepsPerRun: steps });
    const pairs = inBlock.length * u.subjects.length;
    expect(ruleCells(cluster, u, 'ingress', rule, limits(pairs - 1))).toBeNull();
    const cells = ruleCells(cluster, u, 'ingress', rule, limits(pairs));
    expect([...cells!.pairs.keys()].map((pair) => pair % endpoints)).toEqual(inBlock);
  });

  it('on every upstream replay, each finding names an object of the snapshot and a path that exists in it', () => {
    let checked = 0;
    for (const folder of readdirSync(FIXTURES).filter((f) => !f.includes('.'))) {
      const suite = loadSuite(folder);
      for (const c of suite.cases) {
        for (const step of replay(suite, c, 'IPv4')) {
          const parsed = parseSnapshot({ items: step.objects });
          if (!parsed.ok) throw new Error(`${c.name}: ${JSON.stringify(parsed.issues[0])}`);
          const byKey = new Map(step.objects.map((o) => [objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }), o]));
          for (const f of lint(buildCluster(parsed.snapshot))) {
            const obj = byKey.get(objectKey(f.object));
            expect(obj, `${c.name}: ${f.code} names a missing object`).toBeDefined();
            expect(at(obj, f.path), `${c.name}: ${f.code} ${objectKey(f.object)} ${f.path}`).toBeDefined();
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
