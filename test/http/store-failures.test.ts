// The store failing under the API: a full disk under the embedded store, an item the store lost,
// a store that cannot be reached. Each is an error for that request naming the cause and where
// the store is (503), never a crash, a 500 or a 200 with fewer tables; the server keeps serving
// and what was stored before stays readable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { startLocalDynamo, type LocalDynamo } from '../../infra/dynamodb-local.js';
import { createDynamoDbClient, createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { wideAdminPolicy } from '../support/hostile.js';
import { withServer } from '../support/node-server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const json = { 'content-type': 'application/json' };

let local: LocalDynamo;
beforeAll(async () => {
  local = await startLocalDynamo();
});
afterAll(async () => {
  await local.close();
});

describe('store failures', () => {
  it('a table the store lost: the node route answers 503 naming it, never 200 with fewer tables', async () => {
    const errors: unknown[] = [];
    const open = () => createApp({ store: createDynamoDbStore({ client: local.client, tableName: local.tableName }), storeDescription: 'test table', access: { kind: 'anonymous' }, logError: (e) => errors.push(e) });
    const writer = open();
    expect((await writer.request('/v1/clusters/lost/snapshots/1', { method: 'PUT', headers: json, body: example })).status).toBe(201);
    const full = (await (await writer.request('/v1/clusters/lost/nodes/node-1/tables')).json()) as { ir: { tables: Record<string, unknown> } };
    const [gone] = Object.keys(full.ir.tables);
    await local.client.send(new DeleteItemCommand({ TableName: local.tableName, Key: { pk: { S: `t#${gone}` }, sk: { S: '0' } } }));
    // Another server (a restart, another replica): nothing of this version read before.
    const res = await open().request('/v1/clusters/lost/nodes/node-1/tables');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toContain(`table ${gone}`);
    expect(errors).toHaveLength(1);
  });

  it('a store that cannot be reached: 503 with the cause and where the store is', async () => {
    const client = createDynamoDbClient({ endpoint: 'http://127.0.0.1:9', dummyCredentials: true });
    const app = createApp({ store: createDynamoDbStore({ client, tableName: 'netpolc' }), storeDescription: 'DynamoDB table netpolc at http://127.0.0.1:9', access: { kind: 'anonymous' }, logError: () => {} });
    const res = await app.request('/v1/clusters/prod/snapshots');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('unavailable');
    expect(body.message).toMatch(/^the snapshot store failed: .*ECONNREFUSED.*\(DynamoDB table netpolc at http:\/\/127\.0\.0\.1:9\)$/);
    expect((await app.request('/healthz')).status).toBe(200);
    client.destroy();
  }, 60_000);

  // A small filesystem as DATA_DIR needs root (mount); elsewhere the test says why it did not run.
  const dir = mkdtempSync(join(tmpdir(), 'netpolc-full-'));
  const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=384k', 'tmpfs', dir]).status === 0;
  afterAll(() => {
    if (mounted) spawnSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  if (!mounted) console.warn(`skipped "a full disk under the embedded store": mounting a small tmpfs needs root and mount(8) (uid ${process.getuid?.()})`);

  it.skipIf(!mounted)('a full disk under the embedded store: the write is a 503 naming DATA_DIR, the server stays up, the earlier version stays served', async () => {
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wideAdminPolicy() });
    const code = await withServer({ STORE: 'embedded', DATA_DIR: dir, COMPUTE_THREADS: '1' }, async (url) => {
      expect((await fetch(`${url}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: json, body: example })).status).toBe(201);
      let failed: Response | null = null;
      for (let v = 2; v < 6 && !failed; v++) {
        const res = await fetch(`${url}/v1/clusters/prod/snapshots/${v}`, { method: 'PUT', headers: json, body: big.replace('"wide"', `"wide-${v}"`) });
        if (res.status !== 201) failed = res;
      }
      expect(failed?.status).toBe(503);
      const message = ((await failed!.json()) as { message: string }).message;
      expect(message).toContain('No space left on device');
      expect(message).toContain('(DATA_DIR)');
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const tables = await fetch(`${url}/v1/clusters/prod/nodes/node-1/tables?version=1`);
      expect(tables.status).toBe(200);
    });
    expect(code).toBe(0);
  }, 180_000);
});
