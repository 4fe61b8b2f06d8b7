// Operations: /healthz, /readyz (the store is read), /metrics in Prometheus' text format, and
// the access log — one JSON line per request, with the token's scope and never the token.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import type { AccessLine } from '../../functions/ops/access-log.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';
import { makeToken, tokenPolicy } from '../support/tokens.js';

const clusterJson = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8');

describe('health and readiness', () => {
  it('/healthz answers while the process serves; /readyz reads the store', async () => {
    const app = createApp({ store: createMemoryStore() });
    expect(await (await app.request('/healthz')).json()).toEqual({ status: 'ok' });
    const ready = await app.request('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', store: 'reachable' });
  });

  it('/readyz (Node server) answers 503 until a compute thread has started, then says how many have', async () => {
    let started = 0;
    const offload = { run: async () => { throw new Error('not called'); }, storeRoutes: true, digest: () => ({ update: () => undefined, hex: () => '' }), threads: () => ({ started, of: 2 }) };
    const app = createApp({ store: createMemoryStore(), offload });
    const before = await app.request('/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({ error: 'unavailable', message: 'no compute thread has started yet (0 of 2): requests that compute would wait for one', status: 'unavailable', store: 'reachable', compute: '0 of 2 threads started' });
    started = 1;
    const after = await app.request('/readyz');
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ status: 'ok', store: 'reachable', compute: '1 of 2 threads started' });
  });

  it('/readyz answers 503 with the cause when the store cannot be read, and /metrics counts it', async () => {
    const broken = { ...createMemoryStore(), latest: async () => { throw new Error('ECONNREFUSED 127.0.0.1:8000'); } } as SnapshotStore;
    const app = createApp({ store: broken, storeDescription: 'DynamoDB table netpolc at http://127.0.0.1:8000' });
    const res = await app.request('/readyz');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { store: string }).store).toBe('unreachable: the snapshot store failed: ECONNREFUSED 127.0.0.1:8000 (DynamoDB table netpolc at http://127.0.0.1:8000)');
    expect(await (await app.request('/metrics')).text()).toMatch(/^netpolc_store_errors_total\{kind="StoreUnavailableError"\} 1$/m);
  });
});

describe('/metrics', () => {
  it('counts requests by route pattern and status, and times compiles by form', async () => {
    const app = createApp();
    await app.request('/v1/compile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"snapshot":${clusterJson}}` });
    await app.request('/v1/compile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"snapshot":{"items":[{"kind":"Pod"}]}}' });
    const res = await app.request('/metrics');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^netpolc_http_requests_total\{method="POST",route="\/v1\/compile",status="200"\} 1$/m);
    expect(text).toMatch(/^netpolc_http_requests_total\{method="POST",route="\/v1\/compile",status="422"\} 1$/m);
    expect(text).toMatch(/^netpolc_compile_duration_seconds_count\{form="ir"\} 1$/m);
    expect(text).toMatch(/^netpolc_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/v1\/compile"\} 2$/m);
  });
});

describe('access log', () => {
  it('writes one line per request: route pattern, status, cluster, node and scope, never the token', async () => {
    const reader = makeToken('read:cluster=prod,node=node-1');
    const writer = makeToken('write:cluster=prod');
    const lines: AccessLine[] = [];
    const app = createApp({ store: createMemoryStore(), access: tokenPolicy(reader, writer), logAccess: (l) => lines.push(l) });
    await app.request('/v1/clusters/prod/snapshots/1', { method: 'PUT', headers: { ...writer.header, 'content-type': 'application/json' }, body: clusterJson });
    await app.request('/v1/clusters/prod/nodes/node-1/tables', { headers: reader.header });
    await app.request('/v1/clusters/prod/nodes/node-2/tables', { headers: reader.header });
    expect(lines.map((l) => [l.method, l.route, l.status, l.cluster, l.node ?? null, l.scope])).toEqual([
      ['PUT', '/v1/clusters/:cluster/snapshots/:version', 201, 'prod', null, 'write:cluster=prod'],
      ['GET', '/v1/clusters/:cluster/nodes/:node/tables', 200, 'prod', 'node-1', 'read:cluster=prod,node=node-1'],
      // Authenticated, then refused for the node: the scope is still logged.
      ['GET', '/v1/clusters/:cluster/nodes/:node/tables', 403, 'prod', 'node-2', 'read:cluster=prod,node=node-1'],
    ]);
    const text = JSON.stringify(lines);
    for (const t of [reader.token, writer.token]) expect(text).not.toContain(t);
    expect(lines.every((l) => typeof l.ms === 'number' && typeof l.time === 'string')).toBe(true);
  });
});
