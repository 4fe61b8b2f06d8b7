// The Lambda entry (functions/adapters/lambda.ts) with API Gateway v2 (HTTP API) payload
// format 2.0 events, as API Gateway hands them to the function.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalDynamo, type LocalDynamo } from '../../infra/dynamodb-local.js';
import { expectExampleVerdicts } from '../support/example-verdicts.js';
import { httpApiEvent } from '../support/lambda-events.js';
import { makeToken } from '../support/tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exampleText = readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8');
const example = JSON.parse(exampleText);
const clusterText = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');

async function loadHandler() {
  vi.resetModules();
  return (await import('../../functions/adapters/lambda.js')).handler;
}

function json(res: { body: string; isBase64Encoded: boolean }): any {
  expect(res.isBase64Encoded).toBe(false);
  return JSON.parse(res.body);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Lambda handler (API Gateway v2 events)', () => {
  it('answers POST /v1/verdicts with a JSON body: the documented verdicts', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json' }));
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toMatch(/^application\/json/);
    expectExampleVerdicts(json(res));
  });

  it('compiles the set form byte for byte as the CLI and the Node server do (examples/compiled-ir.json)', async () => {
    const handler = await loadHandler();
    const cluster = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8');
    const res = await handler(httpApiEvent('POST', '/v1/compile', { body: `{"snapshot":${cluster}}`, contentType: 'application/json' }));
    expect(res.statusCode).toBe(200);
    const { version, sets, tables, nodes } = json(res);
    const expected = readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'compiled-ir.json'), 'utf8');
    expect(JSON.stringify({ version, sets, tables, nodes })).toBe(JSON.stringify(JSON.parse(expected)));
  });

  it('decodes a base64-encoded body (isBase64Encoded: true)', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json', base64: true }));
    expect(res.statusCode).toBe(200);
    expect(json(res).verdicts.map((v: any) => v.allowed)).toEqual([true, false, true, false, true]);
  });

  it('gzips the answer when the client asks (an HTTP API compresses nothing, and answers stop at 6 MB): base64 on the way out, the same JSON inflated', async () => {
    const handler = await loadHandler();
    const body = `{"snapshot":${clusterText}}`;
    const plain = await handler(httpApiEvent('POST', '/v1/compile', { body, contentType: 'application/json' }));
    const zipped = await handler(httpApiEvent('POST', '/v1/compile', { body, contentType: 'application/json', headers: { 'accept-encoding': 'gzip, deflate' } }));
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers?.['content-encoding']).toBe('gzip');
    expect(zipped.isBase64Encoded).toBe(true);
    const bytes = Buffer.from(zipped.body, 'base64');
    expect(bytes.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(bytes).toString('utf8')).toBe(plain.body);
  });

  it('reads a gzipped body (Content-Encoding: gzip, base64 as API Gateway hands binary bodies): a snapshot 10-20x under the 6 MB request limit', async () => {
    const handler = await loadHandler();
    const zipped = gzipSync(exampleText);
    const event = httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json', headers: { 'content-encoding': 'gzip' } });
    const res = await handler({ ...event, body: zipped.toString('base64'), isBase64Encoded: true, headers: { ...event.headers, 'content-length': String(zipped.length) } } as typeof event);
    expect(res.statusCode).toBe(200);
    expectExampleVerdicts(json(res));
  });

  it('accepts a multi-document YAML body', async () => {
    const handler = await loadHandler();
    const docs = [stringify({ flows: [{ from: 'payments/api', to: 'shop/db', port: 'postgres' }, { from: 'shop/web', to: 'shop/db', port: 5432 }] }), ...example.snapshot.items.map((o: unknown) => stringify(o))];
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: docs.join('---\n'), contentType: 'application/yaml' }));
    expect(res.statusCode).toBe(200);
    const { verdicts } = json(res);
    expect(verdicts.map((v: any) => [v.flow.from, v.flow.to, v.flow.port, v.allowed])).toEqual([
      ['payments/api', 'shop/db', 5432, false],
      ['shop/web', 'shop/db', 5432, true],
    ]);
  });

  it('answers an unknown route with a JSON 404', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('GET', '/v2/nothing'));
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: 'not_found', message: expect.stringContaining('GET /v2/nothing') });
  });

  it('answers a schema violation with 422 and the JSON path', async () => {
    const handler = await loadHandler();
    const body = JSON.stringify({ snapshot: example.snapshot, flows: [{ from: 'shop/nope', to: 'shop/db', port: 5432 }] });
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body, contentType: 'application/json' }));
    expect(res.statusCode).toBe(422);
    expect(json(res)).toMatchObject({ error: 'invalid', issues: [{ path: '$.flows[0].from', message: expect.stringContaining('shop/nope') }] });
  });

  it('serves /openapi.json', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('GET', '/openapi.json'));
    expect(res.statusCode).toBe(200);
    const doc = json(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/verdicts']).toBeDefined();
  });

  it('reads MAX_BODY_BYTES from process.env on first invocation, not at import', async () => {
    vi.resetModules();
    const { handler } = await import('../../functions/adapters/lambda.js');
    vi.stubEnv('MAX_BODY_BYTES', '1000');
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json' }));
    expect(res.statusCode).toBe(413);
    expect(json(res)).toMatchObject({ error: 'too_large', message: expect.stringContaining('1000 bytes') });
  });
});

describe('Lambda handler with the DynamoDB store (dynalite) and tokens', () => {
  let dynamo: LocalDynamo;
  beforeAll(async () => {
    dynamo = await startLocalDynamo({ tableName: 'netpolc-lambda' });
  });
  afterAll(async () => {
    await dynamo.close();
  });
  const writer = makeToken('write:cluster=prod');
  const agent = makeToken('read:cluster=prod,node=node-2');

  it('builds the store from process.env on first use: PUT two versions, then a node agent reads tables, a diff and a 304', async () => {
    // As infra/template.yaml configures the function; no AWS credentials in the environment, so
    // the SDK chain is bypassed only because the endpoint is local (dummy credentials).
    vi.stubEnv('STORE', 'dynamodb');
    vi.stubEnv('DYNAMODB_TABLE', dynamo.tableName);
    vi.stubEnv('DYNAMODB_ENDPOINT', dynamo.endpoint);
    vi.stubEnv('NETPOLC_TOKENS', `${writer.entry}\n${agent.entry}`);
    const handler = await loadHandler();
    const put = (rv: string, body: string, auth: Record<string, string>) =>
      handler(httpApiEvent('PUT', `/v1/clusters/prod/snapshots/${rv}`, { body, contentType: 'application/json', headers: auth }));
    expect((await put('1', clusterText, writer.header)).statusCode).toBe(201);
    expect((await put('1', clusterText, {})).statusCode).toBe(401);
    expect((await put('1', clusterText, agent.header)).statusCode).toBe(403);
    const v2 = JSON.parse(clusterText);
    v2.items.find((o: any) => o.kind === 'Pod' && o.metadata.name === 'web').metadata.labels = { app: 'web2' };
    expect((await put('2', JSON.stringify(v2), writer.header)).statusCode).toBe(201);
    // Lambda freezes the process after each answer: the move is settled before it answers.
    const { DynamoDbBackend } = await import('../../infra/store/dynamodb.js');
    const { pointerKey } = await import('../../infra/store/keys.js');
    expect(await new DynamoDbBackend({ client: dynamo.client, tableName: dynamo.tableName }).getItem(pointerKey('prod'))).toMatchObject({ version: '2', settled: true, retire: '[]' });

    const tables = (query: string, headers: Record<string, string> = {}) => handler(httpApiEvent('GET', '/v1/clusters/prod/nodes/node-2/tables', { query, headers: { ...agent.header, ...headers } }));
    const diff = json(await tables('since=1'));
    expect(diff).toMatchObject({ node: 'node-2', from: '1', to: '2', full: false, format: 'ir' });
    expect(Object.keys(diff.delta.setsChanged).length).toBeGreaterThan(0);
    const flat = json(await tables('since=1&format=ir-flat'));
    expect(Object.keys(flat.tablesAdded).length + flat.tablesRemoved.length).toBeGreaterThan(0);
    const nft = await tables('format=nftables');
    expect(nft.statusCode).toBe(200);
    expect(nft.body).toContain('table inet netpolc');
    expect((await tables('format=nftables', { 'if-none-match': String(nft.headers?.etag) })).statusCode).toBe(304);
    expect((await handler(httpApiEvent('GET', '/v1/clusters/prod/snapshots', { headers: agent.header }))).statusCode).toBe(403);

    // Stored in the table this process serves, and readable by a fresh store over it.
    const { createDynamoDbStore } = await import('../../infra/store/dynamodb.js');
    const store = createDynamoDbStore({ client: dynamo.client, tableName: dynamo.tableName });
    expect((await store.latest('prod'))?.version).toBe('2');
    expect((await store.getSnapshotObjects('prod', '1'))?.length).toBe(JSON.parse(clusterText).items.length);
  });

  it('malformed NETPOLC_TOKENS fail every invocation with the reason (logged by Lambda), never an open API', async () => {
    vi.stubEnv('DYNAMODB_TABLE', dynamo.tableName);
    vi.stubEnv('DYNAMODB_ENDPOINT', dynamo.endpoint);
    vi.stubEnv('NETPOLC_TOKENS', `${writer.entry} read:cluster=prod`);
    const handler = await loadHandler();
    for (const path of ['/v1/clusters/prod/snapshots', '/v1/verdicts']) {
      await expect(handler(httpApiEvent('GET', path))).rejects.toThrow('NETPOLC_TOKENS entry 2: must start with the SHA-256 of the token');
    }
  });

  it('without tokens answers 503 on /v1/clusters (not open), unless NETPOLC_ALLOW_ANONYMOUS=true', async () => {
    vi.stubEnv('DYNAMODB_TABLE', dynamo.tableName);
    vi.stubEnv('DYNAMODB_ENDPOINT', dynamo.endpoint);
    let handler = await loadHandler();
    const list = () => handler(httpApiEvent('GET', '/v1/clusters/prod/snapshots'));
    const closed = await list();
    expect(closed.statusCode).toBe(503);
    expect(json(closed).message).toContain('NETPOLC_TOKENS');
    vi.stubEnv('NETPOLC_ALLOW_ANONYMOUS', 'true');
    handler = await loadHandler();
    expect((await list()).statusCode).toBe(200);
  });
});
