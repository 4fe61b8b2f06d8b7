// The Cloudflare Worker entry (functions/adapters/worker.ts, via wrangler.toml) under the real
// workerd runtime, started with wrangler's unstable_startWorker: wrangler bundles the Worker
// exactly as `wrangler dev`/`deploy` would and serves it from workerd on a local port. The store
// is DynamoDB through the real AWS SDK inside workerd, pointed at a dynalite in this process.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDynamo, type LocalDynamo } from '../../infra/dynamodb-local.js';
import { TTL_ATTRIBUTE } from '../../infra/store/backend.js';
import { DynamoDbBackend } from '../../infra/store/dynamodb.js';
import { headerKey, pointerKey } from '../../infra/store/keys.js';
import { expectExampleVerdicts } from '../support/example-verdicts.js';
import { makeToken } from '../support/tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exampleText = readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8');
const clusterText = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');

/** Why workerd cannot run on this machine, or null when it can. Only this ever skips. */
function workerdUnavailable(): string | null {
  try {
    const bin = createRequire(import.meta.url)('workerd') as { default?: string } | string;
    const path = typeof bin === 'string' ? bin : bin.default;
    if (!path) return 'the workerd package does not name a binary';
    execFileSync(path, ['--version'], { timeout: 10_000, stdio: 'pipe' });
    return null;
  } catch (e) {
    return `workerd does not run here: ${(e as Error).message.split('\n')[0]}`;
  }
}

const unavailable = workerdUnavailable();
if (unavailable) console.warn(`SKIPPED test/adapters/worker.test.ts: ${unavailable}`);

type StartedWorker = Awaited<ReturnType<typeof import('wrangler').unstable_startWorker>>;

describe.skipIf(unavailable !== null)('Cloudflare Worker under workerd', () => {
  let worker: StartedWorker | undefined;
  let dynamo: LocalDynamo | undefined;
  const writer = makeToken('write:cluster=prod');
  const agent = makeToken('read:cluster=prod,node=node-2');

  beforeAll(async () => {
    process.env.WRANGLER_SEND_METRICS = 'false';
    dynamo = await startLocalDynamo({ tableName: 'netpolc-worker' });
    const { unstable_startWorker } = await import('wrangler');
    const text = (value: string) => ({ type: 'plain_text' as const, value });
    worker = await unstable_startWorker({
      config: join(ROOT, 'wrangler.toml'),
      bindings: {
        // A small body limit proves MAX_BODY_BYTES travels from the bindings into createApp.
        MAX_BODY_BYTES: text('20000'),
        // What `wrangler secret put` would hold in production; explicit credentials, as on AWS.
        NETPOLC_TOKENS: text(`${writer.entry} ${agent.entry}`),
        NETPOLC_TABLE: text(dynamo.tableName),
        DYNAMODB_ENDPOINT: text(dynamo.endpoint),
        AWS_REGION: text('eu-west-1'),
        AWS_ACCESS_KEY_ID: text('AKIDWORKERTEST'),
        AWS_SECRET_ACCESS_KEY: text('worker-test-secret'),
      },
      sendMetrics: false,
      dev: { remote: false, server: { hostname: '127.0.0.1', port: 0 }, inspector: false, watch: false, persist: false, logLevel: 'warn' },
    });
    await worker.ready;
  }, 30_000);

  afterAll(async () => {
    await worker?.dispose();
    await dynamo?.close();
  }, 15_000);

  const call = (path: string, init?: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array }) =>
    worker!.fetch(`http://netpolc.test${path}`, init);

  it('stores snapshots in DynamoDB and serves a node agent its tables, diffs and 304s, with tokens', async () => {
    const put = (rv: string, body: string, token = writer) => call(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { ...token.header, 'content-type': 'application/json' }, body });
    expect((await put('1', clusterText)).status).toBe(201);
    expect((await put('1', clusterText, agent)).status).toBe(403);
    expect((await call('/v1/clusters/prod/snapshots/1', { method: 'PUT', body: clusterText })).status).toBe(401);
    const v2 = JSON.parse(clusterText);
    v2.items.find((o: any) => o.kind === 'Pod' && o.metadata.name === 'web').metadata.labels = { app: 'web2' };
    expect((await put('2', JSON.stringify(v2))).status).toBe(201);

    const tables = (query: string, headers: Record<string, string> = {}) => call(`/v1/clusters/prod/nodes/node-2/tables${query}`, { headers: { ...agent.header, ...headers } });
    const full = await tables('?version=1');
    expect(full.status).toBe(200);
    expect(await full.json()).toMatchObject({ cluster: 'prod', node: 'node-2', version: '1', full: true });
    const diff = (await (await tables('?since=1')).json()) as any;
    expect(diff).toMatchObject({ from: '1', to: '2', full: false, format: 'ir' });
    // shop/web relabelled: on shop/db's node a member leaves a set, nothing else changes.
    expect(Object.keys(diff.delta.setsChanged).length).toBeGreaterThan(0);
    expect(diff.delta.tablesAdded).toEqual({});
    const flat = (await (await tables('?format=ir-flat&since=1')).json()) as any;
    expect(flat).toMatchObject({ from: '1', to: '2', full: false });
    expect(Object.keys(flat.tablesAdded).length + flat.tablesRemoved.length).toBeGreaterThan(0);
    const nft = await tables('?format=nftables');
    expect(await nft.text()).toContain('table inet netpolc');
    expect((await tables('?format=nftables', { 'if-none-match': nft.headers.get('etag')! })).status).toBe(304);
    expect((await call('/v1/clusters/prod/nodes/node-1/tables', { headers: agent.header })).status).toBe(403);

    // The items really are in the table this process serves.
    const { ScanCommand } = await import('@aws-sdk/client-dynamodb');
    const scan = await dynamo!.client.send(new ScanCommand({ TableName: dynamo!.tableName, Select: 'COUNT' }));
    expect(scan.Count).toBeGreaterThan(5);
    // Version 2's move was settled after its answer, through waitUntil: version 1 expires.
    const backend = new DynamoDbBackend({ client: dynamo!.client, tableName: dynamo!.tableName });
    for (const deadline = Date.now() + 10_000; (await backend.getItem(pointerKey('prod')))?.settled !== true && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(await backend.getItem(pointerKey('prod'))).toMatchObject({ version: '2', settled: true, retire: '[]' });
    expect((await backend.getItem(headerKey('prod', '1')))?.[TTL_ATTRIBUTE]).toEqual(expect.any(Number));

    // The stored version answers questions too (the writer's token reads its cluster).
    const ask = await call(`/v1/clusters/prod/ask?q=${encodeURIComponent('can shop/web reach shop/db on 5432?')}&version=1`, { headers: { ...writer.header, accept: 'text/plain' } });
    expect(await ask.text()).toMatch(/^Yes: shop\/web can reach shop\/db on TCP 5432 — /);
  });

  it('answers POST /v1/verdicts with the documented verdicts', async () => {
    const res = await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exampleText });
    expect(res.status).toBe(200);
    expectExampleVerdicts((await res.json()) as { verdicts: any[]; warnings: string[] });
  });

  it('reads a gzipped body (Content-Encoding: gzip) under workerd, and answers uncompressed (the edge compresses)', async () => {
    const res = await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'accept-encoding': 'gzip' }, body: gzipSync(exampleText) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBeNull();
    expectExampleVerdicts((await res.json()) as { verdicts: any[]; warnings: string[] });
  });

  it('compiles the set form byte for byte as the CLI and the Node server do (examples/compiled-ir.json)', async () => {
    const cluster = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8');
    const res = await call('/v1/compile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"snapshot":${cluster}}` });
    expect(res.status).toBe(200);
    const { version, sets, tables, nodes } = (await res.json()) as Record<string, unknown>;
    const expected = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'compiled-ir.json'), 'utf8');
    expect(JSON.stringify({ version, sets, tables, nodes })).toBe(JSON.stringify(JSON.parse(expected)));
  });

  it('serves /openapi.json', async () => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v1/verdicts', '/v1/matrix', '/v1/compile']) expect(doc.paths[path]?.post).toBeDefined();
  });

  it('takes MAX_BODY_BYTES from the bindings: 413 above it, however far above, and the next request is served', async () => {
    // Far above the limit the answer comes long before the upload ends; it must still be the 413.
    for (const extra of [20_000, 300_000, 2_000_000]) {
      const res = await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exampleText + ' '.repeat(extra) });
      expect(res.status, `${extra} bytes over`).toBe(413);
      expect(await res.json()).toMatchObject({ error: 'too_large', message: expect.stringContaining('20000 bytes') });
    }
    expect((await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exampleText })).status).toBe(200);
  });
});
