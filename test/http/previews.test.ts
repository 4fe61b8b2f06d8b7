// POST /v1/previews and POST /v1/lint over HTTP, in-process: both request forms, content
// negotiation, the optional stages, and bad input as 4xx with JSON paths into the request.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { crowdedNamespace } from '../support/hostile.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cluster = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const app = createApp({ logError: (e) => { throw e; } });

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The shop team lets payments reach its database on postgres. */
const dbFromWeb = () => structuredClone(cluster.items.find((o) => o.kind === 'NetworkPolicy'));
function admitPayments() {
  const np = dbFromWeb();
  np.spec.ingress[0].from.push({ namespaceSelector: { matchLabels: { tenant: 'payments' } } });
  return np;
}
const head = () => ({ ...cluster, items: cluster.items.map((o) => (o.kind === 'NetworkPolicy' ? admitPayments() : o)) });
const issuesOf = async (res: Response) => ((await res.json()) as { issues: { path: string; message: string }[] }).issues;

describe('POST /v1/previews', () => {
  it('answers {base, head} with the changed flows, their explanations, counts, tables and lints', async () => {
    const res = await post('/v1/previews', { base: cluster, head: head() });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.changes).toHaveLength(1);
    expect(body.changes[0]).toMatchObject({
      change: 'added',
      from: { kind: 'pods', namespaces: ['payments'], whole: true, pods: 1 },
      to: { kind: 'pods', namespaces: ['shop'], workload: 'app=db', pods: 1 },
      ports: 'TCP 5432',
      pairs: 1,
      families: ['IPv4', 'IPv6'],
      after: { allowed: true, text: 'allowed by NetworkPolicy shop/db-from-web rule 0' },
    });
    expect(body.changes[0].parts).toBeUndefined();
    expect(body.summary.added).toEqual({ aggregates: 1, pairs: 1 });
    expect(Object.keys(body.tables.nodes)).toEqual(['node-2']);
    expect(body.lint).toEqual({ findings: [], resolved: [], unchecked: [] });
    expect(res.headers.get('server-timing')).toMatch(/^build;dur=[\d.]+, classes;dur=.*, tables;dur=[\d.]+$/);
  });

  it('gives the same preview for {base, changes}', async () => {
    const viaHead = (await (await post('/v1/previews?tables=false', { base: cluster, head: head() })).json()) as any;
    const viaChanges = (await (await post('/v1/previews?tables=false', { base: cluster, changes: { apply: [admitPayments()] } })).json()) as any;
    expect(viaChanges.changes).toEqual(viaHead.changes);
    const deleted = (await (await post('/v1/previews?tables=false&lint=false', { base: cluster, changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: 'db-from-web' }] } })).json()) as any;
    // Without it shop/db is no longer isolated; web loses postgres to the Baseline deny.
    expect(deleted.changes.map((a: any) => `${a.change} ${a.from.kind}:${a.from.workload ?? a.from.nodes ?? a.from.cidrs} ${a.ports}`)).toEqual(['removed pods:app=web TCP 5432', 'added external:0.0.0.0/0,::/0 all ports', 'added nodes:node-1 all ports']);
    expect(deleted.changes[0].after.text).toBe('denied at ingress by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic" after AdminNetworkPolicy tenant-guardrails passed it down');
    expect(deleted.lint).toBeNull();
    expect(deleted.tables).toBeNull();
  });

  it('a change that deletes every pod leaves a cluster without pods, not a repository: no flow is reported, the pods are counted as removed', async () => {
    const pods = cluster.items.filter((o) => o.kind === 'Pod').map((o) => ({ kind: 'Pod', namespace: o.metadata.namespace, name: o.metadata.name }));
    const body = (await (await post('/v1/previews?tables=false&lint=false', { base: cluster, changes: { apply: [admitPayments()], delete: pods } })).json()) as any;
    expect(body.changes).toEqual([]);
    expect(body.summary.pods.removed).toHaveLength(pods.length);
  });

  it('returns a pull-request comment for Accept: text/markdown', async () => {
    const res = await post('/v1/previews', { base: cluster, head: head(), tables: false }, { accept: 'text/markdown' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const md = await res.text();
    expect(md).toContain('### netpolc preview');
    expect(md).toContain('| added | namespace payments (1 pod) | shop app=db (1 pod) | TCP 5432 | 1 |');
    expect(md).toMatch(/```mermaid\nflowchart LR\n {2}n0\["namespace payments \(1 pod\)"\]\n {2}n1\["shop app=db \(1 pod\)"\]\n {2}n0 -->\|"\+ TCP 5432"\| n1\n/);
    expect(md).not.toContain('#### Rule tables');
  });

  it('lists parts and endpoints with detail=parts, so aggregates expand to pairs', async () => {
    const body = (await (await post('/v1/previews?detail=parts&tables=false', { base: cluster, head: head() })).json()) as any;
    const [part] = body.changes[0].parts;
    const byId = new Map(body.endpoints.map((e: any) => [e.id, e]));
    expect(byId.get(part.from)).toMatchObject({ kind: 'pods', pods: ['payments/api'] });
    expect(byId.get(part.to)).toMatchObject({ kind: 'pods', pods: ['shop/db'] });
  });

  it('accepts a YAML request document', async () => {
    const res = await post('/v1/previews?tables=false', stringify({ base: cluster, changes: { apply: [admitPayments()] } }), { 'content-type': 'application/yaml' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).summary.added.pairs).toBe(1);
  });

  it('points each problem at its place in the request: base, head, changes', async () => {
    const broken = () => {
      const np = dbFromWeb();
      np.spec.ingress[0].ports[0] = { port: 80, endPort: 79 };
      return np;
    };
    const at = cluster.items.findIndex((o) => o.kind === 'NetworkPolicy');
    const badHead = await post('/v1/previews', { base: cluster, head: { items: cluster.items.map((o, i) => (i === at ? broken() : o)) } });
    expect(badHead.status).toBe(422);
    expect((await issuesOf(badHead)).map((i) => i.path)).toEqual([`$.head.items[${at}].spec.ingress[0].ports[0].endPort`]);
    const badBase = await post('/v1/previews', { base: [{ kind: 'Pod' }], head: cluster });
    expect((await issuesOf(badBase)).map((i) => i.path)).toEqual(['$.base[0].apiVersion']);
    const badApply = await post('/v1/previews', { base: cluster, changes: { apply: [{}, broken()] } });
    expect((await issuesOf(badApply)).map((i) => i.path)).toEqual(['$.changes.apply[0].apiVersion', '$.changes.apply[1].spec.ingress[0].ports[0].endPort']);
    const badDelete = await post('/v1/previews', { base: cluster, changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: 'typo' }, { kind: 'Pod' }] } });
    expect((await issuesOf(badDelete)).map((i) => i.path)).toEqual(['$.changes.delete[1].name']);
    const missing = await post('/v1/previews', { base: cluster, changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: 'typo' }] } });
    expect(await issuesOf(missing)).toEqual([{ path: '$.changes.delete[0]', message: 'the base has no NetworkPolicy shop/typo to delete' }]);
  });

  it('wants exactly one of head and changes, and valid options', async () => {
    expect((await issuesOf(await post('/v1/previews', { base: cluster }))).map((i) => i.path)).toEqual(['$.head']);
    expect((await issuesOf(await post('/v1/previews', { base: cluster, head: cluster, changes: {} }))).map((i) => i.path)).toEqual(['$.changes']);
    expect((await issuesOf(await post('/v1/previews', { head: cluster }))).map((i) => i.path)).toEqual(['$.base']);
    expect((await issuesOf(await post('/v1/previews?tables=maybe&detail=all', { base: cluster, head: cluster }))).map((i) => i.path)).toEqual(['$.query.tables', '$.query.detail']);
    expect((await post('/v1/previews', '{"base":')).status).toBe(400);
    expect((await post('/v1/previews', 'x', { 'content-type': 'text/csv' })).status).toBe(415);
  });

  it('refuses bodies over the limit with 413', async () => {
    const small = createApp({ maxBodyBytes: 1000 });
    const res = await small.request('/v1/previews', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ base: cluster, head: cluster }) });
    expect(res.status).toBe(413);
  });
});

describe('POST /v1/lint', () => {
  it('returns findings with severity, object, JSON path into the request and a fix hint', async () => {
    const typo = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'typo', namespace: 'shop' }, spec: { podSelector: { matchLabels: { app: 'dbb' } }, ingress: [{}] } };
    const res = await post('/v1/lint', { snapshot: { items: [...cluster.items, typo] } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.findings).toEqual([
      {
        code: 'selects-no-pods',
        severity: 'warning',
        message: expect.stringContaining('applies to nothing'),
        hint: expect.any(String),
        object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'shop', name: 'typo' },
        path: `$.snapshot.items[${cluster.items.length}].spec.podSelector`,
        pathInObject: 'spec.podSelector',
      },
    ]);
    expect(body.counts).toEqual({ error: 0, warning: 1, info: 0 });
  });

  it('counts the questions left over the lint budgets in `unchecked`', async () => {
    const clean = (await (await post('/v1/lint', { snapshot: cluster })).json()) as any;
    expect(clean.unchecked).toEqual([]);
    const res = await post('/v1/lint', { snapshot: { items: crowdedNamespace() } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.findings.map((f: any) => `${f.code} ${f.object.name}`)).toEqual(['np-rule-redundant second']);
    expect(body.unchecked).toEqual([{ code: 'np-rule-redundant', questions: 1 }]);
  });

  it('reports a bad snapshot as 422 with paths, and reads YAML', async () => {
    const bad = await post('/v1/lint', { snapshot: [{ apiVersion: 'v1', kind: 'Pod', metadata: {} }] });
    expect(bad.status).toBe(422);
    expect((await issuesOf(bad))[0]!.path).toMatch(/^\$\.snapshot\[0\]\.metadata/);
    expect((await issuesOf(await post('/v1/lint', {}))).map((i) => i.path)).toEqual(['$.snapshot']);
    const yaml = ['{}', ...cluster.items.map((o) => stringify(o))].join('\n---\n');
    const ok = await post('/v1/lint', yaml, { 'content-type': 'application/yaml' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).findings).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('declares both routes with every status', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    for (const path of ['/v1/previews', '/v1/lint']) expect(Object.keys(doc.paths[path].post.responses).sort()).toEqual(['200', '400', '413', '415', '422', '503']);
    expect(Object.keys(doc.paths['/v1/previews'].post.responses['200'].content)).toEqual(['application/json', 'text/markdown']);
  });
});
