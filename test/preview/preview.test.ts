// Previews on small hand-written clusters: what a reviewer reads (aggregates, explanations,
// counts), what must not be reported (pods of one snapshot, node-local traffic), the change
// form of the head, lints marked new, the rule-table delta and the Markdown comment.
import { describe, expect, it } from 'vitest';
import { applyChanges, groupText, preview, type Aggregate, type Preview, type PreviewOptions } from '../../core/preview/index.js';
import { previewMarkdown } from '../../core/preview/markdown.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { adminNetworkPolicy, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

/** A List at `at` (`$.base.items[…]`), or with `bare` an array (`$.changes.apply[…]`). */
function parsed(items: readonly unknown[], at = '$', bare = false): ParsedSnapshot {
  const p = parseSnapshot(bare ? items : { items }, at);
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.snapshot;
}
const run = (base: readonly unknown[], head: readonly unknown[], options: PreviewOptions = { tables: false, lint: false }): Preview => preview({ base: parsed(base, '$.base'), head: parsed(head, '$.head') }, options);
const line = (a: Aggregate) => `${a.change} ${groupText(a.from)} → ${groupText(a.to)} ${a.ports} [${a.pairs}]`;

/** Namespaces x (web ×2, db) and y (client ×2), one pod per address, two nodes. */
const shop = (): K8sObject[] => [
  namespace('x'),
  namespace('y'),
  node('n1', '172.18.0.2'),
  node('n2', '172.18.0.3'),
  pod('x/web-1', { ip: '10.0.1.1', node: 'n1', labels: { app: 'web', 'pod-template-hash': 'aa' } }),
  pod('x/web-2', { ip: '10.0.1.2', node: 'n2', labels: { app: 'web', 'pod-template-hash': 'aa' } }),
  pod('x/db-0', { ip: '10.0.1.3', node: 'n1', labels: { app: 'db' }, ports: [{ name: 'postgres', containerPort: 5432 }] }),
  pod('y/client-1', { ip: '10.0.2.1', node: 'n2', labels: { app: 'client' } }),
  pod('y/client-2', { ip: '10.0.2.2', node: 'n2', labels: { app: 'client' } }),
];
const dbIngress = networkPolicy('x/db-ingress', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ port: 'postgres' }] }] });

describe('preview', () => {
  it('reports a new NetworkPolicy as removed flows by workload and namespace, explained before and after', () => {
    const p = run(shop(), [...shop(), dbIngress]);
    const removed = p.changes.filter((a) => a.change === 'removed');
    expect(p.changes.every((a) => a.change === 'removed')).toBe(true);
    const fromY = removed.find((a) => a.from.kind === 'pods' && a.from.namespaces[0] === 'y')!;
    expect(line(fromY)).toBe('removed namespace y (all 2 pods) → x app=db (1 pod) all ports [2]');
    expect(fromY.before.text).toBe('allowed by default: no policy decides');
    expect(fromY.after.text).toBe('denied at ingress: isolated for ingress by db-ingress; no rule allows this flow');
    expect(fromY.after.ingress).toMatchObject({ allowed: false, tier: 'networkpolicy', policy: null });
    // web keeps postgres: everything else is removed, per protocol.
    const fromWeb = removed.find((a) => a.from.kind === 'pods' && a.from.workload === 'app=web')!;
    expect(fromWeb.ports).toBe('TCP 1-5431, 5433-65535 and all UDP ports and all SCTP ports');
    expect(fromWeb.pairs).toBe(2);
    // The other node and outside addresses lose db too; the node db runs on does not (node-local).
    expect(removed.filter((a) => a.from.kind === 'nodes').map((a) => a.from)).toEqual([{ kind: 'nodes', nodes: ['n2'] }]);
    expect(removed.some((a) => a.from.kind === 'external' && a.ports === 'all ports')).toBe(true);
    expect(p.summary.removed.pairs).toBe(removed.reduce((n, a) => n + a.pairs, 0));
    expect(p.summary.added).toEqual({ aggregates: 0, pairs: 0 });
  });

  it('keeps node locality per pair: two nodes in one class, twin pods on both (host-network pods are their node)', () => {
    // "traffic to and from the node where a Pod is running is always allowed": each node keeps
    // the pod on it and loses its twin on the other node, one pair each.
    const twins = (): K8sObject[] => [
      namespace('x'),
      node('n1', '172.18.0.2'),
      node('n2', '172.18.0.3'),
      pod('x/a1', { ip: '10.0.0.1', node: 'n1', labels: { app: 'a' } }),
      pod('x/a2', { ip: '10.0.0.2', node: 'n2', labels: { app: 'a' } }),
      pod('x/agent', { ip: '172.18.0.2', node: 'n1', hostNetwork: true }),
    ];
    const p = run(twins(), [...twins(), networkPolicy('x/deny', { podSelector: {}, policyTypes: ['Ingress'] })]);
    const fromNodes = p.changes.filter((a) => a.from.kind === 'nodes');
    expect(fromNodes.map(line)).toEqual(['removed nodes n1, n2 → namespace x (all 2 pods) all ports [2]']);
  });

  it('names the rule that now decides, and counts a pair changed in both families once', () => {
    const dual = (): K8sObject[] => [
      namespace('dev-1', { labels: { env: 'dev' } }),
      namespace('dev-2', { labels: { env: 'dev' } }),
      namespace('prod', { labels: { env: 'prod' } }),
      node('n1', '172.18.0.2', 'fc00::2'),
      pod('dev-1/a', { ip: ['10.0.1.1', 'fd00::1:1'], node: 'n1', labels: { app: 'a' } }),
      pod('dev-2/b', { ip: ['10.0.2.1', 'fd00::2:1'], node: 'n1', labels: { app: 'b' } }),
      pod('prod/api', { ip: ['10.0.3.1', 'fd00::3:1'], node: 'n1', labels: { app: 'api' } }),
    ];
    const deny = adminNetworkPolicy('prod-isolation', 20, { subject: { namespaces: { matchLabels: { env: 'prod' } } }, ingress: [{ name: 'deny-from-dev', action: 'Deny', from: [{ namespaces: { matchLabels: { env: 'dev' } } }] }] });
    const p = run(dual(), [...dual(), deny]);
    expect(p.changes.map(line)).toEqual(['removed namespaces dev-1, dev-2 (all 2 pods) → namespace prod (1 pod) all ports [2]']);
    const [a] = p.changes;
    expect(a!.families).toEqual(['IPv4', 'IPv6']);
    expect(a!.after.text).toBe('denied at ingress by AdminNetworkPolicy prod-isolation rule 0 "deny-from-dev"');
    expect(a!.after.ingress).toEqual({ allowed: false, tier: 'admin', policy: { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', name: 'prod-isolation' }, rule: { index: 0, name: 'deny-from-dev' } });
    expect(p.summary.removed).toEqual({ aggregates: 1, pairs: 2 });
    // Expands back: two classes of sources, one destination, both families.
    expect(a!.parts).toHaveLength(4);
  });

  it('counts pods of one snapshot only, without reporting their flows as changes', () => {
    const head = [...shop().filter((o) => o.metadata.name !== 'client-2'), pod('y/client-3', { ip: '10.0.2.3', node: 'n2', labels: { app: 'client' } })];
    const p = run([...shop(), dbIngress], [...head, dbIngress]);
    expect(p.changes).toEqual([]);
    expect(p.summary.pods).toEqual({ added: ['y/client-3'], removed: ['y/client-2'], changed: 0 });
  });

  it('reports a relabelled pod as a change of its own flows', () => {
    const head = shop().map((o) => (o.metadata.name === 'web-2' ? { ...o, metadata: { ...o.metadata, labels: { app: 'batch' } } } : o));
    const p = run([...shop(), dbIngress], [...head, dbIngress]);
    expect(p.summary.pods.changed).toBe(1);
    expect(p.changes.map(line)).toEqual(['removed x app=batch (1 pod) → x app=db (1 pod) TCP 5432 [1]']);
    expect(p.changes[0]!.before.text).toBe('allowed by NetworkPolicy x/db-ingress rule 0');
  });

  it('never reports traffic from a node to its own pods (always allowed)', () => {
    const isolate = networkPolicy('x/deny-all', { podSelector: {}, policyTypes: ['Ingress'] });
    const p = run(shop(), [...shop(), isolate]);
    const fromNodes = p.changes.filter((a) => a.from.kind === 'nodes');
    // n1 runs web-1 and db-0, n2 runs web-2: each node loses only the other node's pods.
    expect(fromNodes.reduce((n, a) => n + a.pairs, 0)).toBe(3);
    const n1 = p.endpoints.find((e) => e.kind === 'nodes');
    expect(n1).toBeDefined();
  });

  it('builds the head from a change: deletes, then applies, keeping where each object came from', () => {
    const base = parsed([...shop(), dbIngress], '$.base');
    const changed = networkPolicy('x/db-ingress', { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ namespaceSelector: {} }] }] });
    const head = applyChanges(base, {
      apply: parsed([changed], '$.changes.apply', true),
      delete: [{ kind: 'Pod', namespace: 'y', name: 'client-2' }, { kind: 'Deployment', namespace: 'y', name: 'client' }],
    });
    expect(head.ok).toBe(true);
    if (!head.ok) return;
    expect(head.snapshot.objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name)).not.toContain('client-2');
    expect(head.snapshot.paths.get('NetworkPolicy/x/db-ingress')).toBe('$.changes.apply[0]');
    expect(head.snapshot.paths.get('Pod/x/db-0')).toBe('$.base.items[6]');
    const missing = applyChanges(base, { apply: parsed([], '$.changes.apply'), delete: [{ kind: 'Pod', namespace: 'y', name: 'client-1' }, { kind: 'NetworkPolicy', namespace: 'x', name: 'nope' }, { kind: 'Pod', name: 'web-1' }] });
    expect(missing).toEqual({
      ok: false,
      issues: [
        { path: '$.changes.delete[1]', message: 'the base has no NetworkPolicy x/nope to delete' },
        { path: '$.changes.delete[2]', message: 'the base has no Pod default/web-1 to delete' },
      ],
    });
    // A kind netpolc reads, in another case, is a typo rather than a kind it may ignore.
    const miscased = applyChanges(base, { apply: parsed([], '$.changes.apply'), delete: [{ kind: 'networkpolicy', namespace: 'x', name: 'db-ingress' }, { kind: 'ConfigMap', namespace: 'x', name: 'any' }, { kind: 'POD', namespace: 'y', name: 'client-1' }] });
    expect(miscased).toEqual({
      ok: false,
      issues: [
        { path: '$.changes.delete[0].kind', message: 'unknown kind "networkpolicy" (kinds are case-sensitive); did you mean NetworkPolicy?' },
        { path: '$.changes.delete[2].kind', message: 'unknown kind "POD" (kinds are case-sensitive); did you mean Pod?' },
      ],
    });
  });

  it('marks lints of the head new or already in the base, with paths into the request', () => {
    const typo = networkPolicy('x/typo', { podSelector: { matchLabels: { app: 'dbb' } }, ingress: [{}] });
    const old = networkPolicy('y/old-typo', { podSelector: { matchLabels: { app: 'nobody' } }, ingress: [{}] });
    const p = run([...shop(), old], [...shop(), old, typo], { tables: false });
    expect(p.lint!.findings.map((f) => [f.code, f.object.name, f.new, f.snapshotPath])).toEqual([
      ['selects-no-pods', 'typo', true, '$.head.items[10].spec.podSelector'],
      ['selects-no-pods', 'old-typo', false, '$.head.items[9].spec.podSelector'],
    ]);
    const fixed = run([...shop(), old], shop(), { tables: false });
    expect(fixed.lint!.findings).toEqual([]);
    expect(fixed.lint!.resolved.map((f) => f.object.name)).toEqual(['old-typo']);
  });

  it('gives the per-node rule-table delta as its own, optional stage', () => {
    const stages: string[] = [];
    const p = run(shop(), [...shop(), dbIngress], { lint: false, stage: (name, fn) => (stages.push(name), fn()) });
    expect(stages).toEqual(['build', 'classes', 'candidates', 'delta', 'aggregate', 'tables']);
    // db-0 runs on n1: only n1's tables change.
    expect(Object.keys(p.tables!.nodes)).toEqual(['n1']);
    const n1 = p.tables!.nodes.n1!;
    expect(n1.tablesAdded.length).toBeGreaterThan(0);
    expect(n1.podsRebound).toBe(1);
    expect(p.tables!.unchangedNodes).toBe(1);
    expect(run(shop(), [...shop(), dbIngress]).tables).toBeNull();
  });

  it('renders a pull-request comment: counts, a table, a Mermaid graph of the changed edges, lints', () => {
    const typo = networkPolicy('x/typo', { podSelector: { matchLabels: { app: 'dbb' } }, ingress: [{}] });
    const p = run(shop(), [...shop(), dbIngress, typo], { tables: true });
    const md = previewMarkdown(p, { maxRows: 2, maxEdges: 2 });
    expect(md).toMatch(/^### netpolc preview\n\n\*\*\d+\*\* endpoint pairs lose flows \(\d+ changes\), \*\*0\*\* gain flows \(0 changes\)\./);
    expect(md).toContain(`| **removed** | ${groupText(p.changes[0]!.from)} | ${groupText(p.changes[0]!.to)} |`);
    expect(md).toContain(`… and ${p.changes.length - 2} more changes`);
    const graph = /```mermaid\n([\s\S]*?)```/.exec(md)![1]!;
    expect(graph.split('\n').filter((l) => l.includes('-.->'))).toHaveLength(2);
    expect(graph).toContain('linkStyle 1 stroke:#cf222e');
    expect(md).toContain('#### Rule tables');
    expect(md).toContain('1 new finding, 0 already in the base, 0 resolved.');
    expect(md).toContain('`selects-no-pods` NetworkPolicy x/typo `$.head.items[10].spec.podSelector`');
  });
});
