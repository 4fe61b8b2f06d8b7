// The embedded default: an in-process dynalite (DynamoDB's API over LevelDB) so `npm start` and
// the tests run the very DynamoDB store code with no service to install. In memory for tests;
// on disk (LevelDB through classic-level's prebuilt addon) under ./.data for `npm start`.
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createDynamoDbClient, createTableIfMissing, type TableSetup } from './store/dynamodb.js';

export const DEFAULT_TABLE_NAME = 'netpolc';
export const DEFAULT_DATA_DIR = './.data/dynalite';

export interface LocalDynamoOptions {
  /** LevelDB directory (created if missing); null or absent keeps everything in memory. */
  readonly path?: string | null;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly tableName?: string;
}

export interface LocalDynamo {
  /** http://127.0.0.1:<port>, for DYNAMODB_ENDPOINT or other processes. */
  readonly endpoint: string;
  readonly client: ReturnType<typeof createDynamoDbClient>;
  readonly tableName: string;
  readonly table: TableSetup;
  /** Stops the server and closes the LevelDB files (required before another process may open them). */
  close(): Promise<void>;
}

export async function startLocalDynamo(o: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  // Imported here, not at the top: dynalite is a devDependency and native-addon backed, and the
  // Lambda and Worker bundles must not pull it in.
  answerStorageFailures();
  const { default: dynalite } = await import('dynalite');
  if (o.path) {
    await mkdir(o.path, { recursive: true });
    await checkNotLocked(o.path);
  }
  const server = dynalite({ ...(o.path ? { path: o.path } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createDynamoDbClient({ endpoint, dummyCredentials: true });
  const close = async (): Promise<void> => {
    client.destroy();
    await new Promise<void>((resolve, reject) => server.close((e?: Error) => (e ? reject(e) : resolve())));
  };
  const tableName = o.tableName ?? DEFAULT_TABLE_NAME;
  try {
    const table = await createTableIfMissing(client, tableName);
    return { endpoint, client, tableName, table, close };
  } catch (e) {
    await close().catch(() => undefined);
    // The usual cause on disk: LevelDB allows one process per directory. Unless LevelDB said its
    // files are damaged or unreadable: then that is the cause, not another server.
    const message = e instanceof Error ? e.message : String(e);
    const hint = /\bLEVEL_(CORRUPTION|IO_ERROR)\b/.test(message) ? 'its LevelDB files are damaged or unreadable: move the directory aside or restore it from a backup' : 'is another netpolc using it?';
    const where = o.path ? ` (data in ${o.path}, DATA_DIR; ${hint})` : '';
    throw new Error(`the embedded DynamoDB (dynalite) did not start${where}: ${message}`, { cause: e });
  }
}

const ACTIONS = ['batchGetItem', 'batchWriteItem', 'createTable', 'deleteItem', 'deleteTable', 'describeTable', 'describeTimeToLive', 'getItem', 'listTables', 'listTagsOfResource', 'putItem', 'query', 'scan', 'tagResource', 'untagResource', 'updateItem', 'updateTable'];
type Action = (store: unknown, data: unknown, cb: (err: unknown, out?: unknown) => void) => unknown;
let actionsGuarded = false;

/**
 * dynalite answers DynamoDB's own errors, but rethrows any other error of its storage (a full
 * disk, damaged LevelDB files: LEVEL_IO_ERROR, LEVEL_CORRUPTION) from a callback, where nothing
 * can catch it: the whole server would die on the first write to a full disk. Each action
 * module is wrapped before dynalite loads it, so such an error is answered as DynamoDB answers
 * its own failures (500 InternalServerError with the cause); the store then reports it (503
 * naming DATA_DIR) and the server keeps serving.
 */
function answerStorageFailures(): void {
  if (actionsGuarded) return;
  actionsGuarded = true;
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  for (const action of ACTIONS) {
    const path = fromDynalite.resolve(`./actions/${action}`);
    fromDynalite(path);
    const cached = fromDynalite.cache[path]!;
    const original = cached.exports as Action;
    cached.exports = ((store, data, cb) =>
      original(store, data, (err, out) => {
        if (err && !(err as { statusCode?: number }).statusCode) {
          const message = `${(err as { code?: string }).code ?? 'storage error'}: ${err instanceof Error ? err.message : String(err)}`;
          return cb({ statusCode: 500, body: { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message } });
        }
        cb(err, out);
      })) satisfies Action;
  }
}

/**
 * LevelDB allows one process per directory. dynalite would only find out at its first request
 * and then throw outside any callback, killing the process; opening the directory once here
 * turns that into an error with a reason. dynalite's own `level` is used, whatever its version.
 */
async function checkNotLocked(path: string): Promise<void> {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { Level } = fromDynalite('level') as { Level: new (path: string) => { open(): Promise<void>; close(): Promise<void> } };
  const db = new Level(path);
  try {
    await db.open();
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    if (cause?.code === 'LEVEL_LOCKED') throw new Error(`${path} is in use by another process (LevelDB allows one per directory): stop the other netpolc (\`fuser -v ${path}/LOCK\` names it) or set another DATA_DIR`, { cause: e });
    throw e;
  }
  await db.close();
}
