// `netpolc lint` and `netpolc ask` as a pipeline runs them: files, directories, stdin, output
// formats and exit codes (lint gates on --fail-on; bad questions and bad input are exit 2).
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLUSTER, exampleItems, run, tempDir } from '../support/cli.js';
import { crowdedNamespace } from '../support/hostile.js';

const np = (name: string, spec: object) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'shop' }, spec });
const typo = np('typo', { podSelector: { matchLabels: { app: 'dbb' } }, ingress: [{}] });
const anp = (name: string, action: string) => ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name }, spec: { priority: 5, subject: { namespaces: { matchLabels: { tenant: 'shop' } } }, ingress: [{ name: action.toLowerCase(), action, from: [{ namespaces: { matchLabels: { tenant: 'payments' } } }] }] } });
/** Two same-priority ANPs that disagree on one connection: an error (which wins is up to the implementation). */
const conflict = [anp('alpha', 'Allow'), anp('beta', 'Deny')];

describe('netpolc lint', () => {
  it('lists findings with file, document and path, and passes on warnings by default', () => {
    const dir = tempDir({ 'cluster.json': JSON.stringify({ items: exampleItems() }), 'typo.yaml': stringify(typo) });
    const r = run(['lint', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`warning selects-no-pods NetworkPolicy shop/typo at ${join(dir, 'typo.yaml')} (document 1): $.spec.podSelector: `);
    expect(r.out).toContain('  fix: ');
    expect(r.out.trim().split('\n').at(-1)).toBe('1 finding: 0 errors, 1 warning, 0 info');
    expect(r.err).toBe('');
  });

  it('says which questions the lint budgets left unchecked, in text and in JSON', () => {
    const dir = tempDir({ 'crowded.json': JSON.stringify({ items: crowdedNamespace() }) });
    const text = run(['lint', dir]);
    expect(text.code).toBe(0);
    expect(text.out.trim().split('\n').slice(-2)).toEqual(['1 finding: 0 errors, 0 warnings, 1 info', 'not checked within the lint budgets: 1 rule (np-rule-redundant)']);
    const json = JSON.parse(run(['lint', '--output', 'json', dir]).out);
    expect(json.unchecked).toEqual([{ code: 'np-rule-redundant', questions: 1 }]);
  });

  it('fails on errors, or on warnings with --fail-on warning', () => {
    const yaml = [...exampleItems(), typo, ...conflict].map((o) => stringify(o)).join('---\n');
    const errors = run(['lint', '-'], yaml);
    expect(errors.code).toBe(1);
    expect(errors.out).toContain('error same-priority-overlap AdminNetworkPolicy beta at <stdin> (document 15): $.spec.priority: ');
    expect(errors.err).toContain('1 finding at or above error (--fail-on error)');
    const warnings = run(['lint', '--fail-on', 'warning', '-'], [...exampleItems(), typo].map((o) => stringify(o)).join('---\n'));
    expect(warnings.code).toBe(1);
    expect(warnings.err).toContain('1 finding at or above warning');
    expect(run(['lint', '--fail-on', 'warning', CLUSTER]).code).toBe(0);
  });

  it('prints JSON and Markdown', () => {
    const file = join(tempDir({ 'all.json': JSON.stringify([...exampleItems(), typo]) }), 'all.json');
    const json = run(['lint', '--output', 'json', file]);
    const body = JSON.parse(json.out) as { findings: { code: string; at: string; hint: string }[] };
    expect(body.findings.map((f) => [f.code, f.at])).toEqual([['selects-no-pods', `${file}: $.spec.podSelector`]]);
    const md = run(['lint', '--output', 'markdown', file]);
    expect(md.out).toMatch(/^- \*\*warning\*\* `selects-no-pods` NetworkPolicy shop\/typo at `.*`: /);
  });

  it('exits 2 on bad input and bad usage', () => {
    const bad = run(['lint', '-'], stringify(np('p', { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 79 }] }] })));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('<stdin> (document 1): $.spec.ingress[0].ports[0].endPort (NetworkPolicy shop/p)');
    const usage = run(['lint', '--fail-on', 'fatal', CLUSTER]);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('--fail-on must be error, warning or info');
    expect(run(['lint', '/no/such/dir']).code).toBe(2);
  });
});

describe('netpolc ask', () => {
  it('answers a question about a file with the decision chain, and about stdin', () => {
    const r = run(['ask', 'can payments/api reach shop/db on postgres?', CLUSTER]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('No: payments/api cannot reach shop/db on TCP 5432 (postgres) — denied at ingress: isolated for ingress by db-from-web; no rule allows this flow.');
    expect(r.out).toContain('  ingress of shop/db: ');
    const stdin = run(['ask', 'who can reach shop/db on 5432?'], JSON.stringify({ items: exampleItems() }));
    expect(stdin.code).toBe(0);
    expect(stdin.out).toBe('2 of 3 other pods can reach shop/db on TCP 5432: monitoring/prometheus, shop/web.\n');
  });

  it('prints the answer as JSON', () => {
    const r = run(['ask', '--output', 'json', 'can shop/web reach shop/db?', CLUSTER]);
    const body = JSON.parse(r.out) as { kind: string; ranges: Record<string, [number, number][]> };
    expect(body.kind).toBe('can-ports');
    expect(body.ranges.TCP).toEqual([[5432, 5432]]);
  });

  it('exits 2 with the accepted forms for a question it cannot read, and for unknown pods', () => {
    const unread = run(['ask', 'please tell me everything', CLUSTER]);
    expect(unread.code).toBe(2);
    expect(unread.err).toContain('cannot read the question');
    expect(unread.err).toContain('  who can reach payments/api on tcp 443?');
    const unknown = run(['ask', 'can shop/nope reach shop/db on 80?', CLUSTER]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('no pod "shop/nope"');
    const none = run(['ask']);
    expect(none.code).toBe(2);
    expect(none.err).toContain('ask needs a question');
  });
});
