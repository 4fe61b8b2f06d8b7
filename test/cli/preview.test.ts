// `netpolc preview` as a pull-request pipeline runs it: base and head as files, directories or
// stdin, or a change file; text, JSON and Markdown; exit 1 when allowed flows are removed
// (unless --allow-removed-flows), 2 for bad usage or input; progress on stderr only.
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CLUSTER, exampleItems, run, tempDir } from '../support/cli.js';

/** shop lets payments reach its database; monitoring may scrape only named `metrics` ports. */
function changed() {
  const items = exampleItems();
  const np = items.find((o) => o.kind === 'NetworkPolicy');
  np.spec.ingress[0].from.push({ namespaceSelector: { matchLabels: { tenant: 'payments' } } });
  const anp = items.find((o) => o.kind === 'AdminNetworkPolicy');
  anp.spec.ingress[0].ports = [{ namedPort: 'metrics' }];
  return { items, apply: [np, anp] };
}
const onlyAdding = () => {
  const { apply } = changed();
  return { apply: [apply[0]] };
};

describe('netpolc preview', () => {
  it('previews a head directory against a base file; removed flows fail the run unless allowed', () => {
    const head = tempDir(Object.fromEntries(changed().items.map((o, i) => [`${i}.yaml`, stringify(o)])));
    const r = run(['preview', '--base', CLUSTER, '--head', head, '--no-tables']);
    expect(r.code).toBe(1);
    expect(r.out.split('\n')[0]).toBe('3 endpoint pairs lose flows (2 changes), 1 pair gain flows (1 change)');
    expect(r.out).toContain('added   namespace payments (1 pod) → shop app=db (1 pod)  TCP 5432  [1 pair]');
    expect(r.out).toContain('        after:  allowed by NetworkPolicy shop/db-from-web rule 0');
    expect(r.out).toContain('removed namespace monitoring (1 pod) → shop app=db (1 pod)  TCP 1-9186, 9188-65535 and all UDP ports and all SCTP ports  [1 pair]');
    expect(r.out).not.toContain('rule tables:');
    expect(r.err).toBe('3 endpoint pairs lose flows that were allowed; pass --allow-removed-flows if that is intended\n');
    expect(run(['preview', '--base', CLUSTER, '--head', head, '--no-tables', '--allow-removed-flows']).code).toBe(0);
  });

  it('takes a change file instead of a head, and passes when flows are only added', () => {
    const dir = tempDir({ 'changes.yaml': stringify(onlyAdding()) });
    const r = run(['preview', '--base', CLUSTER, '--changes', join(dir, 'changes.yaml')]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('0 endpoint pairs lose flows (0 changes), 1 pair gain flows (1 change)');
    expect(r.out).toContain('rule tables: 1 node change, 1 unchanged');
    expect(r.out).toContain('lints of the head: 0 findings');
  });

  it('reads the base from stdin and prints JSON or a Markdown comment', () => {
    const dir = tempDir({ 'changes.json': JSON.stringify({ apply: changed().apply, delete: [] }) });
    const json = run(['preview', '--base', '-', '--changes', join(dir, 'changes.json'), '--output', 'json', '--allow-removed-flows', '--no-tables'], JSON.stringify({ items: exampleItems() }));
    expect(json.code).toBe(0);
    const body = JSON.parse(json.out) as { summary: { removed: { pairs: number }; added: { pairs: number } }; changes: { parts?: unknown }[]; endpoints?: unknown };
    expect([body.summary.removed.pairs, body.summary.added.pairs]).toEqual([3, 1]);
    expect(body.changes[0]!.parts).toBeUndefined();
    expect(body.endpoints).toBeUndefined();
    const parts = JSON.parse(run(['preview', '--base', CLUSTER, '--changes', join(dir, 'changes.json'), '--output', 'json', '--detail', 'parts', '--no-tables', '--no-lint']).out) as { endpoints: unknown[] };
    expect(parts.endpoints.length).toBeGreaterThan(0);
    const md = run(['preview', '--base', CLUSTER, '--changes', join(dir, 'changes.json'), '--output', 'markdown']);
    expect(md.code).toBe(1);
    expect(md.out).toContain('### netpolc preview');
    expect(md.out).toContain('```mermaid\nflowchart LR\n');
    expect(md.out).toContain('#### Rule tables');
  });

  it('points lint findings of the head at their files', () => {
    const typo = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'typo', namespace: 'shop' }, spec: { podSelector: { matchLabels: { app: 'dbb' } }, ingress: [{}] } };
    const dir = tempDir({ 'changes.yaml': stringify({ apply: [typo] }) });
    const r = run(['preview', '--base', CLUSTER, '--changes', join(dir, 'changes.yaml'), '--no-tables']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`lints of the head: 1 finding: 0 errors, 1 warning, 0 info; 1 new, 0 resolved`);
    expect(r.out).toContain(`new warning selects-no-pods NetworkPolicy shop/typo at ${join(dir, 'changes.yaml')}: $.apply[0].spec.podSelector: `);
  });

  it('exits 2 on bad usage and bad input, saying where', () => {
    const usage = (args: string[], message: string) => {
      const r = run(['preview', ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(message);
    };
    usage(['--head', CLUSTER], 'preview needs --base');
    usage(['--base', CLUSTER], 'preview needs --head or --changes');
    usage(['--base', CLUSTER, '--head', CLUSTER, '--changes', CLUSTER], 'preview needs --head or --changes (one of them)');
    usage(['--base', '-', '--head', '-'], 'only one of --base, --head, --changes can read stdin');
    usage(['--base', CLUSTER, '--head', CLUSTER, '--output', 'html'], '--output must be text, json or markdown');
    const bad = tempDir({ 'head.yaml': stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'shop' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 79 }] }] } }) });
    const head = run(['preview', '--base', CLUSTER, '--head', bad]);
    expect(head.code).toBe(2);
    expect(head.err).toContain(`invalid head snapshot:\n  ${join(bad, 'head.yaml')} (document 1): $.spec.ingress[0].ports[0].endPort (NetworkPolicy shop/p)`);
    const del = tempDir({ 'c.yaml': stringify({ delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: 'typo' }] }) });
    const missing = run(['preview', '--base', CLUSTER, '--changes', join(del, 'c.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`${join(del, 'c.yaml')}: $.delete[0]: the base has no NetworkPolicy shop/typo to delete`);
    const shape = tempDir({ 'c.yaml': stringify({ delete: [{ kind: 'Pod' }] }) });
    expect(run(['preview', '--base', CLUSTER, '--changes', join(shape, 'c.yaml')]).err).toContain('$.delete[0].name');
  });

  it('reports progress and stage timings on stderr for large inputs, keeping stdout clean', () => {
    // 6,000 extra namespaces make the input "large" without making the run slow.
    const items = [...exampleItems(), ...Array.from({ length: 6000 }, (_, i) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${i}` } }))];
    const dir = tempDir({ 'base.json': JSON.stringify({ items }), 'changes.yaml': stringify(onlyAdding()) });
    const r = run(['preview', '--base', join(dir, 'base.json'), '--changes', join(dir, 'changes.yaml'), '--output', 'json', '--no-tables']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).summary.added.pairs).toBe(1);
    expect(r.err).toContain('read 6012 objects from 1 source(s)');
    expect(r.err).toMatch(/^delta: \d+ ms$/m);
    expect(r.err).toMatch(/^classes: \d+ pod, \d+ node, \d+ external; \d+ candidate class pairs/m);
  });
});
