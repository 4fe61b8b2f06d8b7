// PUT …/snapshots/{rv} with {base, changes}: a version from what a watcher saw change (pods and
// policies: compiled incrementally; anything else: compiled whole), equal to the same objects sent whole; on a warm server (base held in memory) and on a cold one (base
// read from the store); 409 naming the latest version for a base that is not stored; 422 with
// paths into `changes` for bad changes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const byName = (items: any[], name: string) => structuredClone(items.find((o) => o.metadata.name === name));

function server(store: SnapshotStore) {
  const app = createApp({ store, access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const put = (cluster: string, rv: string, body: unknown, method = 'PUT') =>
    app.request(`/v1/clusters/${cluster}/snapshots/${method === 'PUT' ? rv : ''}`.replace(/\/$/, ''), { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const slices = async (cluster: string, version: string) => {
    const out: Record<string, unknown> = {};
    for (const node of ['node-1', 'node-2']) out[node] = ((await (await app.request(`/v1/clusters/${cluster}/nodes/${node}/tables?version=${version}`)).json()) as any).ir;
    return out;
  };
  return { app, put, slices };
}

/** The objects after the changes, sent whole to another cluster: what the version must equal. */
async function expectSameAsWhole(s: ReturnType<typeof server>, cluster: string, version: string, items: any[]) {
  expect((await s.put(`${cluster}-whole`, version, { items })).status).toBe(201);
  expect(await s.slices(cluster, version)).toEqual(await s.slices(`${cluster}-whole`, version));
}

const webRelabelled = { ...byName(example.items, 'web'), metadata: { ...byName(example.items, 'web').metadata, labels: { app: 'storefront' } } };
const denyApi = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'api-deny', namespace: 'payments' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };

describe('versions from changes', () => {
  it('a relabelled pod on a warm server: compiled incrementally, equal to the same objects sent whole', async () => {
    const s = server(createMemoryStore());
    expect((await s.put('prod', '1', example)).status).toBe(201);
    const res = await s.put('prod', '2', { base: '1', changes: { apply: [webRelabelled] } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ version: '2', status: 'created', latest: true, base: '1', changed: 1, incremental: true, warm: true });
    await expectSameAsWhole(s, 'prod', '2', example.items.map((o) => (o.metadata.name === 'web' ? webRelabelled : o)));
    // The same change again is the same version: 200 unchanged, not a conflict.
    expect(((await (await s.put('prod', '2', { base: '1', changes: { apply: [webRelabelled] } })).json()) as any).status).toBe('unchanged');
  });

  it("a pod's status update sent with a relabel counts as no change: the relabel alone is, and a status update alone changes nothing", async () => {
    const s = server(createMemoryStore());
    await s.put('prod', '1', example);
    // What a watcher sends when readiness flips: the pod as it was but for its conditions, which netpolc does not read.
    const ready = (status: string) => ({ ...byName(example.items, 'db'), status: { ...byName(example.items, 'db').status, conditions: [{ type: 'Ready', status }] } });
    const res = await s.put('prod', '2', { base: '1', changes: { apply: [webRelabelled, ready('True')] } });
    expect((await res.json()) as any).toMatchObject({ incremental: true, warm: true, changed: 1 });
    await expectSameAsWhole(s, 'prod', '2', example.items.map((o) => (o.metadata.name === 'web' ? webRelabelled : o)));
    const alone = await s.put('prod', '3', { base: '2', changes: { apply: [ready('False')] } });
    expect((await alone.json()) as any).toMatchObject({ status: 'created', incremental: true, warm: true, changed: 0 });
    expect(await s.slices('prod', '3')).toEqual(await s.slices('prod', '2'));
  });

  it('a policy added and a pod deleted: compiled incrementally, still equal', async () => {
    const s = server(createMemoryStore());
    await s.put('prod', '1', example);
    const res = await s.put('prod', '2', { base: '1', changes: { apply: [denyApi], delete: [{ kind: 'Pod', namespace: 'monitoring', name: 'prometheus' }] } });
    expect(res.status).toBe(201);
    expect((await res.json()) as any).toMatchObject({ incremental: true, warm: true, changed: 2 });
    await expectSameAsWhole(s, 'prod', '2', [...example.items.filter((o) => o.metadata.name !== 'prometheus'), denyApi]);
    // The policy deleted again: back to version 1's tables.
    const back = await s.put('prod', '3', { base: '2', changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'payments', name: 'api-deny' }] } });
    expect((await back.json()) as any).toMatchObject({ incremental: true, changed: 1 });
    await expectSameAsWhole(s, 'prod', '3', example.items.filter((o) => o.metadata.name !== 'prometheus'));
  });

  it('a namespace relabelled, alone and with a policy: compiled incrementally, still equal', async () => {
    const s = server(createMemoryStore());
    await s.put('prod', '1', example);
    const ns = example.items.find((o) => o.kind === 'Namespace');
    const relabelled = { ...ns, metadata: { ...ns.metadata, labels: { ...ns.metadata.labels, audited: 'true' } } };
    const res = await s.put('prod', '2', { base: '1', changes: { apply: [denyApi, relabelled] } });
    expect(res.status).toBe(201);
    expect((await res.json()) as any).toMatchObject({ incremental: true, warm: true, changed: 2 });
    await expectSameAsWhole(s, 'prod', '2', [...example.items.map((o) => (o === ns ? relabelled : o)), denyApi]);
    const back = await s.put('prod', '3', { base: '2', changes: { apply: [ns] } });
    expect((await back.json()) as any).toMatchObject({ incremental: true, changed: 1 });
    await expectSameAsWhole(s, 'prod', '3', [...example.items, denyApi]);
  });

  it('a node relabelled and readdressed, a node added, then a Service added: compiled incrementally, still equal', async () => {
    const s = server(createMemoryStore());
    await s.put('prod', '1', example);
    const node = example.items.find((o) => o.kind === 'Node');
    const changed = { ...node, metadata: { ...node.metadata, labels: { ...node.metadata.labels, zone: 'b' } }, status: { addresses: [{ type: 'InternalIP', address: '192.168.50.7' }] } };
    const added = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-3', labels: { 'kubernetes.io/hostname': 'node-3' } }, status: { addresses: [{ type: 'InternalIP', address: '192.168.50.8' }] } };
    const res = await s.put('prod', '2', { base: '1', changes: { apply: [changed, added] } });
    expect(res.status).toBe(201);
    expect((await res.json()) as any).toMatchObject({ incremental: true, warm: true, changed: 2 });
    const v2 = [...example.items.map((o) => (o === node ? changed : o)), added];
    await expectSameAsWhole(s, 'prod', '2', v2);
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    const res3 = await s.put('prod', '3', { base: '2', changes: { apply: [service] } });
    expect((await res3.json()) as any).toMatchObject({ incremental: true, changed: 1 });
    await expectSameAsWhole(s, 'prod', '3', [...v2, service]);
  });

  it('a cold server reads the base from the store', async () => {
    const store = createMemoryStore();
    await server(store).put('prod', '1', example);
    const cold = server(store);
    const res = await cold.put('prod', '2', { base: '1', changes: { apply: [webRelabelled] } });
    expect(res.status).toBe(201);
    expect((await res.json()) as any).toMatchObject({ warm: false, incremental: false });
    await expectSameAsWhole(cold, 'prod', '2', example.items.map((o) => (o.metadata.name === 'web' ? webRelabelled : o)));
  });

  it('a base that is not stored, or not the latest, is a 409 naming the latest version, and nothing is written', async () => {
    const s = server(createMemoryStore());
    const none = await s.put('prod', '2', { base: '1', changes: { apply: [webRelabelled] } });
    expect(none.status).toBe(409);
    expect((await none.json()) as any).toMatchObject({ error: 'conflict', latest: null });
    await s.put('prod', '5', example);
    const stale = await s.put('prod', '6', { base: '4', changes: { apply: [webRelabelled] } });
    expect(stale.status).toBe(409);
    const body = (await stale.json()) as any;
    expect(body.latest).toBe('5');
    expect(body.message).toContain('the latest is 5');
    expect((await s.app.request('/v1/clusters/prod/snapshots/6')).status).toBe(404);
    // A stored base that is not the latest: the changes between would be lost.
    await s.put('prod', '6', { base: '5', changes: { apply: [webRelabelled] } });
    const old = await s.put('prod', '7', { base: '5', changes: { delete: [{ kind: 'Pod', namespace: 'shop', name: 'db' }] } });
    expect(old.status).toBe(409);
    const body2 = (await old.json()) as any;
    expect(body2.latest).toBe('6');
    expect(body2.message).toContain('is not the latest version');
    expect((await s.app.request('/v1/clusters/prod/snapshots/7')).status).toBe(404);
  });

  it('bad changes are a 422 with paths into the request, and nothing is written', async () => {
    const s = server(createMemoryStore());
    await s.put('prod', '1', example);
    const cases: [unknown, string][] = [
      [{ base: '1', changes: { apply: [{ ...webRelabelled, spec: { ...webRelabelled.spec, containers: 'x' } }] } }, '$.changes.apply[0].spec.containers'],
      [{ base: '1', changes: { delete: [{ kind: 'Pod', namespace: 'shop', name: 'nope' }] } }, '$.changes.delete[0]'],
      [{ base: '1', changes: { delete: [{ kind: 'Pod' }] } }, '$.changes.delete[0].name'],
      [{ base: '1', changes: {}, extra: true }, '$'],
      [{ base: '', changes: {} }, '$.base'],
    ];
    for (const [body, path] of cases) {
      const res = await s.put('prod', '2', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const issues = ((await res.json()) as any).issues as { path: string }[];
      expect(issues.map((i) => i.path).some((p) => p.startsWith(path)), `${JSON.stringify(issues)} at ${path}`).toBe(true);
    }
    expect((await s.app.request('/v1/clusters/prod/snapshots/2')).status).toBe(404);
    // A version from changes needs its resourceVersion in the path.
    const post = await s.put('prod', '', { base: '1', changes: { apply: [webRelabelled] } }, 'POST');
    expect(post.status).toBe(422);
  });
});
