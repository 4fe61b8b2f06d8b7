// Bad input to the stored-cluster routes is a 4xx naming each problem's JSON path: small bodies
// have small limits checked before parsing, a version without endpoints is not stored, query
// flags are exactly true or false, and path parameters must decode. The DynamoDB store on an
// in-process dynalite.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { API_LIMITS } from '../../schemas/api/verdicts.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const policy = example.items.find((o) => o.kind === 'NetworkPolicy');
const JSON_TYPE = { 'content-type': 'application/json' };
const YAML_TYPE = { 'content-type': 'application/yaml' };

const dynamo = useLocalDynamo();

let n = 0;
function setup() {
  const app = createApp({ store: createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const at = `/v1/clusters/hostile-${++n}`;
  const raw = (method: string, path: string, body?: string, headers: Record<string, string> = JSON_TYPE) => app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const send = (method: string, path: string, body?: unknown) => raw(method, path, body === undefined ? undefined : JSON.stringify(body));
  return { app, at, raw, send };
}

/** The status, and the issues' paths of a 422. */
async function problems(res: Response): Promise<{ status: number; paths: string[]; message: string }> {
  const body = (await res.json()) as { message: string; issues?: { path: string }[] };
  return { status: res.status, paths: (body.issues ?? []).map((i) => i.path), message: body.message };
}

describe('bodies of the small routes: their own limit, before parsing', () => {
  const over = API_LIMITS.smallBodyBytes + 1;
  const routes = [
    ['PUT', (at: string) => `${at}/latest`, 'PUT /v1/clusters/{cluster}/latest'],
    ['POST', () => '/v1/store/collect', 'POST /v1/store/collect'],
  ] as const;
  it.each(routes)('%s %s: a body over the limit is a 413 naming it, with or without Content-Length, JSON or YAML', async (method, path, name) => {
    const { at, raw } = setup();
    const json = `{"version":"1","pad":"${'x'.repeat(over)}"}`;
    // Malformed past the limit: a 413, never a 400, so it was never parsed.
    const yaml = `version: "1"\npad: [${'{a: 1}, '.repeat(over / 8)}`;
    for (const [body, headers] of [[json, JSON_TYPE], [json, { ...JSON_TYPE, 'content-length': String(json.length) }], [yaml, YAML_TYPE]] as const) {
      const res = await raw(method, path(at), body, headers);
      expect(res.status).toBe(413);
      const { message } = await problems(res);
      expect(message).toContain(name);
      expect(message).toContain(String(API_LIMITS.smallBodyBytes));
    }
  });

  it('the limits are in the contract and the README', async () => {
    const { app } = setup();
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    expect(doc.info.description).toContain(`${API_LIMITS.smallBodyBytes} bytes`);
    expect(doc.paths['/v1/clusters/{cluster}/latest'].put.responses['413'].description).toContain(String(API_LIMITS.smallBodyBytes));
    expect(doc.paths['/v1/store/collect'].post.responses['413'].description).toContain(String(API_LIMITS.smallBodyBytes));
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toMatch(/4 KiB\s+\(4,096 bytes\)\s+for the routes whose\s+bodies carry a few fields/);
  });
});

describe('a version without pods, workloads or nodes is not stored', () => {
  it.each([
    ['an empty List', { kind: 'List', items: [] }],
    ['an empty array', []],
    ['only a NetworkPolicy', { apiVersion: 'v1', kind: 'List', items: [policy] }],
  ])('PUT and POST of %s: 422 at $ saying what it holds; nothing stored', async (_, body) => {
    const { at, send } = setup();
    for (const [method, path] of [['PUT', `${at}/snapshots/1`], ['POST', `${at}/snapshots`]] as const) {
      const p = await problems(await send(method, path, body));
      expect(p.status).toBe(422);
      expect(p.paths).toEqual(['$']);
    }
    expect((await send('GET', `${at}/snapshots/1`)).status).toBe(404);
    expect((await send('GET', `${at}/snapshots`)).status).toBe(200);
    expect(((await (await send('GET', `${at}/snapshots`)).json()) as { versions: unknown[] }).versions).toEqual([]);
  });

  it('wrapped in {snapshot}: 422 at $.snapshot', async () => {
    const { at, send } = setup();
    const p = await problems(await send('PUT', `${at}/snapshots/1`, { snapshot: { items: [policy] } }));
    expect([p.status, p.paths]).toEqual([422, ['$.snapshot']]);
  });

  it('changes that delete every pod and node: 422 at $.changes; the base stays latest', async () => {
    const { at, send } = setup();
    expect((await send('PUT', `${at}/snapshots/1`, example)).status).toBe(201);
    const gone = example.items.filter((o) => o.kind === 'Pod' || o.kind === 'Node').map((o) => ({ kind: o.kind, name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) }));
    const p = await problems(await send('PUT', `${at}/snapshots/2`, { base: '1', changes: { apply: [], delete: gone } }));
    expect([p.status, p.paths]).toEqual([422, ['$.changes']]);
    expect((await send('GET', `${at}/snapshots/2`)).status).toBe(404);
  });
});

describe('paths of problems and strict parameters', () => {
  it('POST /v1/store/collect: graceSeconds at $.graceSeconds; a body that is not an object is a 422', async () => {
    const { raw } = setup();
    expect(await problems(await raw('POST', '/v1/store/collect', '{"graceSeconds":10}'))).toMatchObject({ status: 422, paths: ['$.graceSeconds'] });
    expect(await problems(await raw('POST', '/v1/store/collect', '{"graceSeconds":3600.5}'))).toMatchObject({ status: 422, paths: ['$.graceSeconds'] });
    for (const body of ['"x"', '[]', 'null', '1']) expect(await problems(await raw('POST', '/v1/store/collect', body))).toMatchObject({ status: 422, paths: ['$'] });
  });

  it('PUT …/latest: a body that is not {version} is a 422 at its path', async () => {
    const { at, send } = setup();
    for (const body of ['x', [], null]) expect((await problems(await send('PUT', `${at}/latest`, body))).status).toBe(422);
    expect(await problems(await send('PUT', `${at}/latest`, { version: 1 }))).toMatchObject({ status: 422, paths: ['$.version'] });
  });

  it('PUT of {snapshot: …}: issues under $.snapshot; a YAML body of objects: under $.items', async () => {
    const { at, send, raw } = setup();
    const bad = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'b' }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 0 }] }] } };
    const wrapped = await problems(await send('PUT', `${at}/snapshots/1`, { snapshot: { items: [...example.items, bad] } }));
    expect(wrapped.status).toBe(422);
    expect(wrapped.paths.every((p) => p.startsWith(`$.snapshot.items[${example.items.length}]`))).toBe(true);
    const yaml = await problems(await raw('PUT', `${at}/snapshots/1`, 'apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: b}\nspec: {containers: [{name: c, ports: [{containerPort: 0}]}]}\n', YAML_TYPE));
    expect(yaml.status).toBe(422);
    expect(yaml.paths.every((p) => p.startsWith('$.items[0]'))).toBe(true);
  });

  it('?version= and ?since= that no version can be: 422 at $.query.version / $.query.since, on tables and ask alike', async () => {
    const { at, send } = setup();
    expect((await send('PUT', `${at}/snapshots/1`, example)).status).toBe(201);
    const tables = `${at}/nodes/node-1/tables`;
    const ask = `${at}/ask?q=${encodeURIComponent('who can reach shop/db?')}&`;
    expect(await problems(await send('GET', `${tables}?since=a%20b`))).toMatchObject({ status: 422, paths: ['$.query.since'] });
    for (const base of [`${tables}?`, ask]) {
      expect(await problems(await send('GET', `${base}version=a%20b`))).toMatchObject({ status: 422, paths: ['$.query.version'] });
      expect(await problems(await send('GET', `${base}version=`))).toMatchObject({ status: 422, paths: ['$.query.version'] });
    }
    // A node poll with If-None-Match takes the same checks.
    const res = await send('GET', `${tables}?version=`);
    expect(res.status).toBe(422);
    const polled = await (await send('GET', tables)).headers.get('etag');
    const app = setup().app;
    expect((await app.request(`${tables}?since=a%20b`, { headers: { 'if-none-match': polled! } })).status).toBe(422);
    expect(await problems(await send('POST', `${at}/verdicts?version=a%20b`, { flows: [{ from: 'shop/web', to: 'shop/db', port: 5432 }] }))).toMatchObject({ status: 422, paths: ['$.query.version'] });
  });

  it('boolean query parameters are exactly true or false', async () => {
    const { at, send } = setup();
    for (const v of ['bogus', '1', 'TRUE', '']) {
      expect(await problems(await send('POST', `/v1/compile?lenient=${v}`, { snapshot: example }))).toMatchObject({ status: 422, paths: ['$.query.lenient'] });
      expect(await problems(await send('POST', `/v1/previews?tables=${v}`, { base: example, head: example }))).toMatchObject({ status: 422, paths: ['$.query.tables'] });
      expect(await problems(await send('POST', `${at}/verdicts?lenient=${v}`, { flows: [{ from: 'shop/web', to: 'shop/db', port: 5432 }] }))).toMatchObject({ status: 422, paths: ['$.query.lenient'] });
    }
    for (const v of ['true', 'false']) expect((await send('POST', `/v1/compile?lenient=${v}`, { snapshot: example })).status).toBe(200);
  });

  it('a path parameter with malformed percent-encoding is a 400, and nothing is stored under it', async () => {
    const { at, send } = setup();
    for (const bad of ['%FF', '%E2%82', '%G1', 'a%']) {
      const res = await send('PUT', `${at}/snapshots/${bad}`, example);
      expect(res.status, bad).toBe(400);
      expect((await res.json()) as object).toMatchObject({ error: 'bad_request' });
    }
    expect(((await (await send('GET', `${at}/snapshots`)).json()) as { versions: unknown[] }).versions).toEqual([]);
    expect((await send('PUT', `${at}/snapshots/%25FF`, example)).status).toBe(201);
    expect((await send('GET', `${at}/snapshots/%FF`)).status).toBe(400);
    expect((await send('GET', `/v1/clusters/%C0/nodes/node-1/tables`)).status).toBe(400);
  });
});
