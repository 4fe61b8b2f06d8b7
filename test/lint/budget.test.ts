// The lint budgets (core/lint/budget.ts): a question over its pair or cell limit, or asked once
// the run's steps are spent, gets no finding either way and is counted unchecked, by lint and
// by the finding it would have been; structural answers need no cells and still come.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINT_LIMITS, lintRun, type LintLimits } from '../../core/lint/index.js';
import { preview } from '../../core/preview/index.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, smallCluster, snapshotOf, type K8sObject } from '../support/cluster-builders.js';
import { crowdedNamespace } from '../support/hostile.js';

const ns = (name: string) => ({ namespaces: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
const fromY = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } };
const run = (objects: K8sObject[], limits: Partial<LintLimits> = {}) => lintRun(clusterOf([...smallCluster(), ...objects]), { limits: { ...LINT_LIMITS, ...limits } });
const codes = (r: ReturnType<typeof run>) => r.findings.map((f) => `${f.code} ${f.object.name} ${f.path}`);

/** Rule 2 is shadowed by rules 0 and 1 together, which no structural check (one covering rule) sees: only cells answer it. */
const shadowedInSnapshot = adminNetworkPolicy('guard', 1, {
  subject: ns('x'),
  egress: [
    { action: 'Deny', to: [ns('y')], ports: [{ portRange: { start: 1, end: 1000 } }] },
    { action: 'Pass', to: [ns('y')], ports: [{ portRange: { start: 1001, end: 65535 } }] },
    { action: 'Allow', to: [ns('y')], ports: [{ portNumber: { port: 8080 } }, { portNumber: { port: 80 } }] },
  ],
});
/** Every connection of the NetworkPolicy rule is denied first by the Admin tier. */
const overridden = [adminNetworkPolicy('deny-y', 10, { subject: ns('x'), ingress: [{ action: 'Deny', from: [ns('y')] }] }), networkPolicy('x/allow-y', { podSelector: {}, ingress: [{ from: [fromY] }] })];
/** Two same-priority policies that overlap. */
const samePriority = [adminNetworkPolicy('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [ns('y')] }] }), adminNetworkPolicy('beta', 5, { subject: ns('x'), ingress: [{ action: 'Deny', from: [{ namespaces: {} }] }] })];

describe('lint budgets', () => {
  it('answer every question of a small snapshot under the default limits', () => {
    const r = run([shadowedInSnapshot, ...overridden, ...samePriority]);
    expect(codes(r).sort()).toEqual(['np-rule-overridden allow-y spec.ingress[0]', 'rule-shadowed guard spec.egress[2]', 'same-priority-overlap beta spec.priority']);
    expect(r.unchecked).toEqual([]);
    expect(r.uncheckedKeys.size).toBe(0);
  });

  it('count a question over its pair limit, or its cell limit, as unchecked instead of answering it', () => {
    for (const limits of [{ pairsPerQuestion: 0 }, { cellsPerQuestion: 0 }]) {
      const r = run([shadowedInSnapshot, ...overridden, ...samePriority], limits);
      expect(r.findings).toEqual([]);
      expect(r.unchecked).toEqual([
        { code: 'np-rule-overridden', questions: 1 },
        // Rules 1 and 2: whether rule 0 covers rule 1 needs cells too.
        { code: 'rule-shadowed', questions: 2 },
        { code: 'same-priority-overlap', questions: 1 },
      ]);
      expect([...r.uncheckedKeys].sort()).toEqual([
        'np-rule-overridden|NetworkPolicy/x/allow-y|spec.ingress[0]',
        'rule-shadowed|AdminNetworkPolicy//guard|spec.egress[1]',
        'rule-shadowed|AdminNetworkPolicy//guard|spec.egress[2]',
        'same-priority-overlap|AdminNetworkPolicy//beta|spec.priority',
      ]);
    }
  });

  it('stop answering once the run has spent its steps, and still give what needs no cells', () => {
    const r = run([shadowedInSnapshot, ...overridden, ...samePriority, networkPolicy('x/typo', { podSelector: { matchLabels: { app: 'nope' } }, ingress: [{}] })], { stepsPerRun: 0 });
    expect(codes(r)).toEqual(['selects-no-pods typo spec.podSelector']);
    // allow-y and typo share namespace x's ingress: whether either covers the other needs cells.
    expect(r.unchecked.map((u) => u.code)).toEqual(['np-rule-overridden', 'np-rule-redundant', 'rule-shadowed', 'same-priority-overlap']);
  });

  it('are spent in a fixed order: the same limit gives the same answer, and more steps answer more', () => {
    const objects = [shadowedInSnapshot, ...overridden, ...samePriority];
    let uncheckedBefore = Infinity;
    for (const stepsPerRun of [0, 10, 100, 1_000, 10_000, 100_000]) {
      const a = run(objects, { stepsPerRun });
      expect(run(objects, { stepsPerRun })).toEqual(a);
      const unchecked = a.unchecked.reduce((n, u) => n + u.questions, 0);
      expect(unchecked).toBeLessThanOrEqual(uncheckedBefore);
      // Whatever was answered is what the full run says.
      for (const f of a.findings) expect(run(objects).findings).toContainEqual(f);
      uncheckedBefore = unchecked;
    }
    expect(uncheckedBefore).toBe(0);
  });

  it('leave a namespace of 1,500 pods and namespace-wide rules unchecked at once, and its structural redundancy found', () => {
    const r = lintRun(clusterOf(crowdedNamespace()));
    expect(r.findings.map((f) => `${f.code} ${f.object.name}`)).toEqual(['np-rule-redundant second']);
    expect(r.unchecked).toEqual([{ code: 'np-rule-redundant', questions: 1 }]);
  });

  it('resolve no finding in a preview whose question the head left unchecked', () => {
    const fromNs = (labels: Record<string, string>) => ({ namespaceSelector: { matchLabels: labels } });
    const base = [
      namespace('x'),
      namespace('y', { labels: { env: 'prod' } }),
      node('n1', '172.18.0.2'),
      pod('x/a', { ip: '10.0.1.10', node: 'n1' }),
      pod('y/c', { ip: '10.0.2.12', node: 'n1' }),
      // Namespace y is the only prod one here: narrow is redundant in this snapshot only.
      networkPolicy('x/wide', { podSelector: {}, ingress: [{ from: [fromNs({ env: 'prod' })] }] }),
      networkPolicy('x/narrow', { podSelector: {}, ingress: [{ from: [fromNs({ 'kubernetes.io/metadata.name': 'y' })], ports: [{ port: 80 }] }] }),
    ];
    // Five more pods in x, each its own subject class: more pairs per question.
    const head = [...base, ...[1, 2, 3, 4, 5].map((i) => pod(`x/b${i}`, { ip: `10.0.1.${20 + i}`, node: 'n1', labels: { i: String(i) } }))];
    const pairs = (objects: K8sObject[], pairsPerQuestion: number) => lintRun(clusterOf(objects), { limits: { ...LINT_LIMITS, pairsPerQuestion } });
    // A pair limit the base's questions fit and the head's do not.
    const limit = [...Array(100).keys()].find((n) => pairs(base, n).unchecked.length === 0)!;
    expect(pairs(base, limit).findings.map((f) => `${f.code} ${f.object.name}`)).toEqual(['np-rule-redundant narrow']);
    expect(pairs(head, LINT_LIMITS.pairsPerQuestion).findings.map((f) => `${f.code} ${f.object.name}`)).toEqual(['np-rule-redundant narrow']);
    const p = preview({ base: snapshotOf(base), head: snapshotOf(head) }, { tables: false, lintLimits: { ...LINT_LIMITS, pairsPerQuestion: limit } });
    expect(p.lint!.findings).toEqual([]);
    expect(p.lint!.resolved).toEqual([]);
    expect(p.lint!.unchecked).toEqual([{ code: 'np-rule-redundant', questions: 2 }]);
  });

  it('are the ones the README states', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const n = (x: number) => x.toLocaleString('en-US');
    expect(readme).toContain(`per lint question (one rule's connections, or one pair of same-priority policies) ${n(LINT_LIMITS.pairsPerQuestion)} subject × peer pairs and ${n(LINT_LIMITS.cellsPerQuestion)} cells, and ${n(LINT_LIMITS.stepsPerRun)} steps per lint run`);
  });
});
