// A pull request against a live cluster: it adds a Deployment with its NetworkPolicy,
// relabels another and deletes a third, whose pods the live snapshot holds
// (test/fixtures/gitops/pr/). The API and the CLI answer alike.
import { createApp } from '../../functions/app.js';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { applyChanges, groupText, preview } from '../../core/preview/index.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { buildCluster } from '../../core/cluster.js';
import { matrix } from '../../core/evaluate/matrix.js';
import { GITOPS } from '../workloads/support.js';
import { loadSnapshot, readSources } from '../../functions/cli/input.js';
import { ROOT, run } from '../support/cli.js';

const LIVE = join(ROOT, 'examples', 'pull-request', 'live.yaml');
const MANIFESTS = join(ROOT, 'examples', 'pull-request', 'manifests');
const load = (path: string) => loadSnapshot(readSources([path], { stdin: () => '', err: () => {} })).snapshot;

function expectPullRequest(p: { summary: any; changes: readonly any[]; workloads: any }) {
  expect(p.workloads.retemplated).toEqual(['shop/deployment/web']);
  expect(p.workloads.deleted).toEqual(['shop/deployment/legacy']);
  expect(p.summary.pods.removed).toEqual(['shop/legacy-7d8c6b5f9-m3n4b']);
  expect(p.summary.pods.changed).toBe(2);
  // web's pods are now app=storefront: db-from-web no longer admits them.
  expect(p.changes.map((c) => [c.change, c.ports, c.pairs, c.before.text, c.after.text])).toEqual([
    ['removed', 'TCP 5432', 2, 'allowed by NetworkPolicy shop/db-from-web rule 0', 'denied at ingress: isolated for ingress by db-from-web; no rule allows this flow'],
  ]);
  expect(p.workloads.added).toEqual([
    {
      endpoint: 'shop/deployment/checkout',
      reachedBy: '2 of 4 other pods can reach shop/deployment/checkout: pods app=storefront in shop (2) (TCP 8080).',
      reaches: 'shop/deployment/checkout can reach 3 of 4 other pods: payments/api-8f9d7c6b5-k2j3h, pods app=storefront in shop (2) (all ports).',
    },
  ]);
}

describe('preview of a repository against a live cluster', () => {
  it('pods follow their workloads: relabelled, deleted; the new workload is an endpoint without address', () => {
    expectPullRequest(preview({ base: load(LIVE), head: load(MANIFESTS) }, { tables: false }));
  });

  it('POST /v1/previews answers the same', async () => {
    const app = createApp({ logError: () => {} });
    const items = (path: string) => readSources([path], { stdin: () => '', err: () => {} }).flatMap((s) => parseAllDocuments(s.text).map((d) => d.toJS())).flatMap((d: any) => (d?.kind === 'List' ? d.items : d ? [d] : []));
    const res = await app.request('/v1/previews?tables=false', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ base: { items: items(LIVE) }, head: { items: items(MANIFESTS) } }) });
    expect(res.status).toBe(200);
    expectPullRequest((await res.json()) as any);
  });

  it('netpolc preview --base live.yaml --head manifests/: markdown with the workloads, exit 1 for the removed flows', () => {
    const r = run(['preview', '--base', LIVE, '--head', MANIFESTS, '--no-tables', '--output', 'markdown']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('- **new** `shop/deployment/checkout` (no pods yet): 2 of 4 other pods can reach shop/deployment/checkout');
    expect(r.out).toContain('- new pod template, pods follow it: `shop/deployment/web`');
    expect(r.out).toContain('- deleted with their pods: `shop/deployment/legacy`');
    expect(r.err).toContain('2 endpoint pairs lose flows that were allowed');
  });

  it('a change file that deletes a Deployment takes its pods; one that relabels a template moves its pods', () => {
    const base = load(LIVE);
    const web = parseAllDocuments(readFileSync(join(MANIFESTS, 'shop', 'web.yaml'), 'utf8'))[0]!.toJS();
    const r = run(['preview', '--base', LIVE, '--changes', '-', '--no-tables', '--output', 'json'], JSON.stringify({ apply: [web], delete: [{ kind: 'Deployment', namespace: 'shop', name: 'legacy' }] }));
    const p = JSON.parse(r.out);
    expect(p.workloads).toEqual({ retemplated: ['shop/deployment/web'], deleted: ['shop/deployment/legacy'], added: [] });
    expect(p.summary.pods.removed).toEqual(['shop/legacy-7d8c6b5f9-m3n4b']);
    expect(base.objects.length).toBeGreaterThan(0);
  });

  it('deleting a Deployment the base holds only the pods of (kubectl get pods) takes those pods, by the pod-template-hash convention', () => {
    const base = load(LIVE);
    const podsOnly = { ...base, objects: base.objects.filter((o) => o.kind !== 'Deployment') };
    const none = parseSnapshot([]);
    if (!none.ok) throw new Error('empty changes');
    const head = applyChanges(podsOnly, { apply: none.snapshot, delete: [{ kind: 'Deployment', namespace: 'shop', name: 'web' }] });
    expect(head.ok).toBe(true);
    if (!head.ok) return;
    expect(head.snapshot.objects.filter((o) => o.kind === 'Pod').map((o) => o.metadata.name)).toEqual(['db-5c9d7f6b8-r4t7z', 'legacy-7d8c6b5f9-m3n4b', 'api-8f9d7c6b5-k2j3h']);
    expect(preview({ base: podsOnly, head: head.snapshot }, { tables: false, lint: false }).workloads.deleted).toEqual(['shop/deployment/web']);
  });

  it('two repositories (no pods at all): workload endpoints are compared, as their matrices differ', () => {
    const base = load(join(GITOPS, 'repo'));
    const head = structuredClone(base);
    for (const o of head.objects as any[]) {
      if (o.kind === 'Deployment' && o.metadata.name === 'web') o.spec.template.metadata.labels = { app: 'storefront' };
      if (o.kind === 'AdminNetworkPolicy') o.spec.ingress = o.spec.ingress.filter((r: any) => r.name !== 'allow-monitoring');
    }
    const p = preview({ base, head }, { tables: false, lint: false });
    // Brute force: every pair of workloads on the ports the policies name, before and after.
    const [cb, ch] = [buildCluster(base), buildCluster(head)];
    const ports = [5432, 8080, 9100, 1].map((port) => ({ port, protocol: 'TCP' as const }));
    const [mb, mh] = [matrix(cb, cb.pods, ports, null), matrix(ch, ch.pods, ports, null)];
    const flips = new Set<string>();
    mb.forEach((r, k) => r.allowed.forEach((row, i) => row.forEach((a, j) => { if (a !== mh[k]!.allowed[i]![j]) flips.add(`${a ? 'removed' : 'added'} ${cb.pods[i]!.key} → ${cb.pods[j]!.key}`); })));
    expect([...flips].sort()).toEqual([
      'removed monitoring/daemonset/node-exporter → payments/deployment/api',
      'removed monitoring/daemonset/node-exporter → shop/deployment/web',
      'removed monitoring/daemonset/node-exporter → shop/statefulset/db',
      'removed shop/deployment/web → shop/statefulset/db',
    ]);
    expect(p.summary.removed.pairs).toBe(4);
    expect(p.summary.added.pairs).toBe(0);
    expect(p.changes.map((c) => `${groupText(c.from)} → ${groupText(c.to)} ${c.ports}`).sort()).toEqual([
      'namespace monitoring (1 pod) → namespaces payments, shop (all 3 pods) all ports',
      'shop app=storefront (1 pod) → shop app=db (1 pod) TCP 5432',
    ].sort());
  });
});
