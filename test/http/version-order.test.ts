// Version order through the HTTP API (memory store; dynalite in test/infra/store-order.test.ts):
// latest is the version published last; If-Match / If-None-Match / order=numeric; POST of what
// kubectl prints (resourceVersion: ""); rollback (PUT …/latest) and DELETE of a version.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createApp } from '../../functions/app.js';
import type { ItemBackend } from '../../infra/store/backend.js';
import { pointerKey } from '../../infra/store/keys.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { makeToken, tokenPolicy } from '../support/tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
/** The example cluster, shop/web labelled app=<label>. */
function variant(label: string) {
  const items = structuredClone(example.items);
  items.find((o) => o.metadata.name === 'web').metadata.labels = { app: label };
  return { apiVersion: 'v1', kind: 'List', items };
}

function server(backend: ItemBackend = new MemoryBackend()) {
  const app = createApp({ store: createSnapshotStore(backend), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    app.request(`/v1/clusters/prod${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const put = (rv: string, body: unknown = variant(`web-${rv}`), headers: Record<string, string> = {}, query = '') => send('PUT', `/snapshots/${rv}${query}`, body, headers);
  const latest = async () => ((await (await send('GET', '/nodes/node-1/tables')).headers.get('x-netpolc-version')) ?? null);
  const listed = async () => (((await (await send('GET', '/snapshots?limit=100')).json()) as any).versions.map((v: any) => v.version) as string[]);
  return { app, send, put, latest, listed };
}

describe('latest is the version published last', () => {
  it('10, a commit SHA, 11, 9: each becomes latest in turn, and the listing is publish order', async () => {
    const s = server();
    for (const rv of ['10', 'abc123', '11', '9']) {
      const res = await s.put(rv);
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({ version: rv, latest: true });
      expect(await s.latest()).toBe(rv);
    }
    expect(await s.listed()).toEqual(['9', '11', 'abc123', '10']);
    const first = ((await (await s.send('GET', '/snapshots')).json()) as any).versions[0];
    expect(first).toMatchObject({ version: '9', expiresAt: null });
    expect(Date.parse(first.publishedAt)).not.toBeNaN();
  });

  it('writers racing with different versions: latest is one of them, every other one is listed', async () => {
    const s = server();
    const versions = ['5', '3', 'f00d', '12', '7', 'beef'];
    const answers = await Promise.all(versions.map((rv) => s.put(rv)));
    expect(answers.map((r) => r.status)).toEqual(versions.map(() => 201));
    const now = await s.latest();
    expect(versions).toContain(now);
    const listed = await s.listed();
    expect(listed[0]).toBe(now);
    expect([...listed].sort()).toEqual([...versions].sort());
  });

  it('versions from changes still need the latest as base, in publish order', async () => {
    const s = server();
    await s.put('10', example);
    await s.put('abc', example);
    const web = { ...example.items.find((o) => o.metadata.name === 'web'), metadata: { ...example.items.find((o) => o.metadata.name === 'web').metadata, labels: { app: 'x' } } };
    const stale = await s.put('11', { base: '10', changes: { apply: [web] } });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ latest: 'abc' });
    expect((await s.put('11', { base: 'abc', changes: { apply: [web] } })).status).toBe(201);
    expect(await s.latest()).toBe('11');
  });
});

describe('conditions on the latest version', () => {
  it('If-Match: 201 when it names the latest; 412 naming the latest before compiling, nothing stored', async () => {
    const s = server();
    await s.put('1');
    expect((await s.put('2', undefined, { 'if-match': '"1"' })).status).toBe(201);
    const refused = await s.put('3', undefined, { 'if-match': '"1"' });
    expect(refused.status).toBe(412);
    expect(await refused.json()).toMatchObject({ error: 'precondition_failed', latest: '2' });
    expect((await s.send('GET', '/snapshots/3')).status).toBe(404);
    expect((await s.put('3', undefined, { 'if-match': '*' })).status).toBe(201);
    // A retry of a publish that succeeded is not refused: the pointer is already there.
    expect((await s.put('3', undefined, { 'if-match': '"2"' })).status).toBe(200);
    expect((await s.put('4', undefined, { 'if-match': '2' })).status).toBe(400);
  });

  it('If-Match fails at the pointer swap when another version is published after the check: 412, the version stored but not latest', async () => {
    const backend = new MemoryBackend();
    const other = server(backend);
    let armed = false;
    const racing: ItemBackend = Object.create(backend) as ItemBackend;
    racing.putIfUnchanged = async (item, expect) => {
      if (armed && item.sk === pointerKey('prod').sk) {
        armed = false;
        await other.put('8');
      }
      return backend.putIfUnchanged(item, expect);
    };
    const s = server(racing);
    await s.put('7');
    armed = true;
    const res = await s.put('9', undefined, { 'if-match': '"7"' });
    expect(res.status).toBe(412);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ error: 'precondition_failed', latest: '8', version: '9', stored: true });
    expect(body.message).toContain('9 is stored but not latest');
    expect(await s.latest()).toBe('8');
    expect(((await (await s.send('GET', '/snapshots/9')).json()) as any).expiresAt).not.toBeNull();
  });

  it('If-None-Match: * publishes only into a cluster without a version', async () => {
    const s = server();
    expect((await s.put('1', undefined, { 'if-none-match': '*' })).status).toBe(201);
    const res = await s.put('2', undefined, { 'if-none-match': '*' });
    expect(res.status).toBe(412);
    expect(await res.json()).toMatchObject({ error: 'precondition_failed', latest: '1' });
  });

  it('order=numeric: 409 naming the latest unless both are integers and the version is greater', async () => {
    const s = server();
    expect((await s.put('10', undefined, {}, '?order=numeric')).status).toBe(201);
    const back = await s.put('9', undefined, {}, '?order=numeric');
    expect(back.status).toBe(409);
    expect(await back.json()).toMatchObject({ error: 'conflict', latest: '10' });
    expect((await s.put('abc', undefined, {}, '?order=numeric')).status).toBe(409);
    expect((await s.put('10', undefined, {}, '?order=numeric')).status).toBe(200);
    expect((await s.put('11', undefined, {}, '?order=numeric')).status).toBe(201);
    expect((await s.put('12', undefined, {}, '?order=sideways')).status).toBe(422);
    expect(await s.latest()).toBe('11');
  });
});

describe('POST without a resourceVersion', () => {
  const kubectl = stringify({ apiVersion: 'v1', items: variant('web').items, kind: 'List', metadata: { resourceVersion: '' } });

  it('derives the version from the content of what kubectl prints (YAML), the same again is 200 unchanged', async () => {
    const s = server();
    expect(kubectl).toContain('resourceVersion: ""');
    const post = () => s.app.request('/v1/clusters/prod/snapshots', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: kubectl });
    const res = await post();
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({ status: 'created', latest: true, versionDerived: true });
    expect(body.version).toMatch(/^sha256-[0-9a-f]{20}$/);
    expect(body.message).toContain('derived from the snapshot');
    const again = (await (await post()).json()) as any;
    expect(again).toMatchObject({ status: 'unchanged', version: body.version, versionDerived: true });
    // JSON without metadata: the same content, the same version.
    const json = await s.send('POST', '/snapshots', variant('web'));
    expect(((await json.json()) as any).version).toBe(body.version);
  });

  it("takes a YAML List's own resourceVersion when it has one", async () => {
    const s = server();
    const res = await s.app.request('/v1/clusters/prod/snapshots', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: kubectl.replace('resourceVersion: ""', 'resourceVersion: "4711"') });
    expect(((await res.json()) as any).version).toBe('4711');
    const post = async (body: string) => ((await (await s.app.request('/v1/clusters/prod/snapshots', { method: 'POST', headers: { 'content-type': 'application/yaml' }, body })).json()) as any);
    // Lists that disagree name no version; a Pod's own resourceVersion is not the snapshot's; CRLF reads the same.
    const other = stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '1' }, items: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'extra' } }] });
    expect(await post(`${kubectl.replace('resourceVersion: ""', 'resourceVersion: "2"')}---\n${other}`)).toMatchObject({ versionDerived: true });
    expect((await post(`${kubectl.replace('resourceVersion: ""', 'resourceVersion: "1"')}---\n${other}`)).version).toBe('1');
    expect((await post(kubectl.replaceAll('\n', '\r\n').replace('resourceVersion: ""', 'resourceVersion: "9"'))).version).toBe('9');
  });
});

describe('rollback and delete', () => {
  it('PUT …/latest moves latest back to a passed version: its node tables are served, the replaced version expires', async () => {
    const s = server();
    for (const rv of ['1', '2', '3']) await s.put(rv);
    const res = await s.send('PUT', '/latest', { version: '1' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ cluster: 'prod', latest: '1', previous: '3' });
    const tables = await s.send('GET', '/nodes/node-1/tables');
    expect(tables.status).toBe(200);
    expect(tables.headers.get('x-netpolc-version')).toBe('1');
    expect(((await (await s.send('GET', '/snapshots/1')).json()) as any).expiresAt).toBeNull();
    expect(((await (await s.send('GET', '/snapshots/3')).json()) as any).expiresAt).not.toBeNull();
    expect(await s.listed()).toEqual(['1', '3', '2']);
    expect((await s.send('PUT', '/latest', { version: '99' })).status).toBe(404);
    expect((await s.send('PUT', '/latest', { versions: '1' })).status).toBe(422);
  });

  it('DELETE …/snapshots/{rv}: 409 for the latest, 204 for another, which is then gone', async () => {
    const s = server();
    for (const rv of ['1', '2', '3']) await s.put(rv);
    const latest = await s.send('DELETE', '/snapshots/3');
    expect(latest.status).toBe(409);
    expect(((await latest.json()) as any).message).toMatch(/roll back .* or publish another version first/);
    expect((await s.send('DELETE', '/snapshots/2')).status).toBe(204);
    expect((await s.send('GET', '/snapshots/2')).status).toBe(404);
    expect((await s.send('GET', '/nodes/node-1/tables?version=2')).status).toBe(404);
    expect(await s.listed()).toEqual(['3', '1']);
    expect((await s.send('DELETE', '/snapshots/2')).status).toBe(404);
  });

  it('needs write scope, and both routes are in the OpenAPI document', async () => {
    const [writer, reader] = [makeToken('write:cluster=prod'), makeToken('read:cluster=prod')];
    const app = createApp({ store: createSnapshotStore(new MemoryBackend()), access: tokenPolicy(writer, reader), logError: (e) => { throw e; } });
    for (const [method, path, body] of [['PUT', '/v1/clusters/prod/latest', '{"version":"1"}'], ['DELETE', '/v1/clusters/prod/snapshots/1', undefined]] as const) {
      expect((await app.request(path, { method, headers: { ...reader.header, 'content-type': 'application/json' }, ...(body ? { body } : {}) })).status).toBe(403);
      expect((await app.request(path, { method, headers: { ...writer.header, 'content-type': 'application/json' }, ...(body ? { body } : {}) })).status).toBe(404);
    }
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    expect(Object.keys(doc.paths['/v1/clusters/{cluster}/latest'].put.responses)).toEqual(expect.arrayContaining(['200', '403', '404', '409']));
    expect(Object.keys(doc.paths['/v1/clusters/{cluster}/snapshots/{version}'].delete.responses)).toEqual(expect.arrayContaining(['204', '403', '404', '409']));
    expect(doc.paths['/v1/clusters/{cluster}/snapshots'].post.responses).toHaveProperty('412');
  });
});
