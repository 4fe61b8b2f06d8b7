// The store failing under the API: a full disk under the embedded store, a damaged LevelDB table
// file, an item the store lost, a store that cannot be reached. Each is an error for that request
// naming the cause and where the store is (503), never a crash, a 500 or a 200 with fewer tables;
// the server keeps serving and what was stored before stays readable.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { createDynamoDbClient, createDynamoDbStore, DynamoDbBackend } from '../../infra/store/dynamodb.js';
import { readBlobs } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { packIndexPk, packPk } from '../../infra/store/keys.js';
import { decodePackIndex } from '../../infra/store/packs.js';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { wideAdminPolicy } from '../support/hostile.js';
import { runToExit, withServer } from '../support/node-server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const json = { 'content-type': 'application/json' };

const dynamo = useLocalDynamo();

describe('store failures', () => {
  it('a table the store lost: the node route answers 503 naming it, never 200 with fewer tables', async () => {
    const errors: unknown[] = [];
    const open = () => createApp({ store: createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }), storeDescription: 'test table', access: { kind: 'anonymous' }, logError: (e) => errors.push(e) });
    const writer = open();
    expect((await writer.request('/v1/clusters/lost/snapshots/1', { method: 'PUT', headers: json, body: example })).status).toBe(201);
    const full = (await (await writer.request('/v1/clusters/lost/nodes/node-1/tables')).json()) as { ir: { tables: Record<string, unknown> } };
    const [gone] = Object.keys(full.ir.tables);
    // A whole publish stores tables packed (infra/store/packs.ts): the pack holding it is lost.
    const backend = new DynamoDbBackend({ client: dynamo().client, tableName: dynamo().tableName });
    const index = (await createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }).getNodeTables('lost', '1', 'node-1'))!.packIndex!;
    const indexBlob = (await readBlobs({ backend, compression: streamCompression }, [packIndexPk(index)])).complete.get(packIndexPk(index))!;
    const pack = decodePackIndex(index, indexBlob.bytes, portableSha256Hex).get(gone!)!;
    await dynamo().client.send(new DeleteItemCommand({ TableName: dynamo().tableName, Key: { pk: { S: packPk(pack) }, sk: { S: '0' } } }));
    // Another server (a restart, another replica): nothing of this version read before.
    const res = await open().request('/v1/clusters/lost/nodes/node-1/tables');
    expect(res.status).toBe(503);
    const message = ((await res.json()) as { message: string }).message;
    expect(message).toContain(`table ${gone}`);
    // Where the store is, as for every store error: an operator knows what to look at.
    expect(message).toContain('(test table)');
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
    // Stored bodies are deflated: random annotations keep each version's objects ~200 KB on disk.
    const noisy = (v: number) => wideAdminPolicy().map((o, i) => (i < 20 ? { ...o, metadata: { ...o.metadata, annotations: { noise: randomBytes(10_000).toString('base64'), v: String(v) } } } : o));
    const code = await withServer({ STORE: 'embedded', DATA_DIR: dir, COMPUTE_THREADS: '1' }, async (url) => {
      expect((await fetch(`${url}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: json, body: example })).status).toBe(201);
      let failed: Response | null = null;
      for (let v = 2; v < 6 && !failed; v++) {
        const res = await fetch(`${url}/v1/clusters/prod/snapshots/${v}`, { method: 'PUT', headers: json, body: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: noisy(v) }) });
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

  describe('a damaged LevelDB table file under the embedded store', () => {
    const data = mkdtempSync(join(tmpdir(), 'netpolc-damaged-'));
    const env = { STORE: 'embedded', DATA_DIR: data, COMPUTE_THREADS: '1' };
    const leveldb = join(data, 'dynalite');
    afterAll(() => rmSync(data, { recursive: true, force: true }));
    const web = (JSON.parse(example) as { items: { kind: string; metadata: { name: string; labels?: object } }[] }).items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web')!;
    const changes = [
      { base: '1', changes: { apply: [{ ...web, metadata: { ...web.metadata, labels: { app: 'web2' } } }] } },
      { base: '2', changes: { apply: [{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'api-from-shop', namespace: 'payments' }, spec: { podSelector: { matchLabels: { app: 'api' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'shop' } } }], ports: [{ port: 8443 }] }] } }] } },
    ];
    const reads = ['/v1/clusters/prod/snapshots', ...['1', '2', '3'].flatMap((v) => [`/v1/clusters/prod/snapshots/${v}`, `/v1/clusters/prod/ask?q=${encodeURIComponent('who can reach shop/db')}&version=${v}`, ...['node-1', 'node-2'].flatMap((n) => ['ir', 'nftables'].map((f) => `/v1/clusters/prod/nodes/${n}/tables?format=${f}&version=${v}`))])];
    const tableFile = () => {
      const files = readdirSync(leveldb);
      const tables = files.filter((f) => /\.(ldb|sst)$/.test(f));
      expect(tables, files.join(' ')).toHaveLength(1);
      // Nothing left in the log: every item is in the table file.
      for (const log of files.filter((f) => f.endsWith('.log'))) expect(statSync(join(leveldb, log)).size).toBe(0);
      return join(leveldb, tables[0]!);
    };
    /** Every byte from `from` to `to` (fractions of the file) inverted. */
    const damage = (file: string, from: number, to: number) => {
      const bytes = readFileSync(file);
      for (let i = Math.floor(bytes.length * from); i < Math.floor(bytes.length * to); i++) bytes[i]! ^= 0xff;
      writeFileSync(file, bytes);
    };
    const before = new Map<string, string>();

    it('reads that reach it answer 503 naming LevelDB\'s corruption and DATA_DIR, others what they answered before; the server keeps serving', async () => {
      expect(
        await withServer(env, async (url) => {
          expect((await fetch(`${url}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: json, body: example })).status).toBe(201);
          for (const [i, change] of changes.entries()) expect((await fetch(`${url}/v1/clusters/prod/snapshots/${i + 2}`, { method: 'PUT', headers: json, body: JSON.stringify(change) })).status).toBe(201);
          for (const path of reads) {
            const res = await fetch(`${url}${path}`);
            expect(res.status, path).toBe(200);
            before.set(path, await res.text());
          }
        }),
      ).toBe(0);
      // Into a table file: LevelDB writes the log it recovers into a table file whenever it opens
      // a directory (leveldb 1.20 never reuses a recovered log), so one more start and stop leaves
      // every item in a .ldb and the log empty. Filling a 4 MiB memtable would take far longer.
      expect(await withServer(env, async () => {})).toBe(0);
      // The middle third, every byte inverted. Reads do not verify LevelDB's block checksums
      // (classic-level sets no verify_checksums); what LevelDB does check is each block's
      // compression type and its snappy framing, and a damaged range fails those in every block it
      // touches. (One flipped byte is not always caught: inside a snappy literal it can change a
      // key, and the item is then simply not found.) The last blocks (dynalite's table
      // description, the index) stay whole, so the server starts.
      damage(tableFile(), 1 / 3, 2 / 3);

      const answered: [string, number, string, number][] = [];
      const code = await withServer(env, async (url) => {
        for (const path of reads) {
          const started = Date.now();
          const res = await fetch(`${url}${path}`);
          answered.push([path, res.status, await res.text(), Date.now() - started]);
        }
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        // Requests that need no store are served as ever.
        expect((await fetch(`${url}/v1/compile`, { method: 'POST', headers: json, body: JSON.stringify({ snapshot: JSON.parse(example) }) })).status).toBe(200);
      });
      // SIGTERM, not a crash, ended it.
      expect(code).toBe(0);
      const failed = answered.filter(([, status]) => status !== 200);
      expect(failed.length, 'the damage is reached').toBeGreaterThan(0);
      // At once, not after retries: damaged files stay damaged (retried, each read took 4–14 s).
      expect(failed.reduce((ms, [, , , took]) => ms + took, 0)).toBeLessThan(30_000);
      for (const [path, status, body] of answered) {
        if (status === 200) expect(body, path).toBe(before.get(path));
        else {
          expect(status, `${path}: ${body}`).toBe(503);
          expect((JSON.parse(body) as { message: string }).message, path).toMatch(new RegExp(`^the snapshot store failed: InternalServerError: LEVEL_CORRUPTION: Corruption: .* \\(embedded DynamoDB \\(dynalite\\) in ${leveldb} \\(DATA_DIR\\), table netpolc\\)$`));
        }
      }
    }, 180_000);

    it('a damaged end of the file (its index): the server does not start, and says the files are damaged', () => {
      // The same table file: the footer and index every read starts from, dynalite's first at start.
      damage(tableFile(), 0.97, 1);
      const r = runToExit(env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`netpolc: the embedded DynamoDB (dynalite) did not start (data in ${leveldb}, DATA_DIR; its LevelDB files are damaged or unreadable: move the directory aside or restore it from a backup): LEVEL_CORRUPTION: Corruption: `);
    }, 60_000);
  });
});
