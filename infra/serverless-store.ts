// The store of a Worker or a Lambda, from its configuration: DynamoDB (or STORE=memory, per
// instance, for trials). Built on the first request, never at import. Web-standard code only
// (no node: modules), so it bundles for workerd; the embedded dynalite is Node's (open-store.ts).
import { storeConfigured, storeSettingsFromEnv, type StoreEnv } from './store/config.js';
import { createDynamoDbClient, createDynamoDbStore } from './store/dynamodb.js';
import { createMemoryStore } from './store/memory.js';
import type { SnapshotStore } from './store/types.js';
import type { Sha256Hex } from '../core/compile/index.js';
import type { BlobCompression } from './store/compression.js';

export interface ServerlessStoreOptions {
  /**
   * 'explicit': credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN)
   * in `env` (a Worker's secrets: it has no AWS credential chain). 'chain': the SDK's own search
   * (Lambda's execution role).
   */
  readonly credentials: 'explicit' | 'chain';
  /** SHA-256 for table ids (Lambda passes node:crypto's; the Worker keeps the portable one). */
  readonly sha256Hex?: Sha256Hex;
  /** Deflate for stored bodies (Lambda passes zlib's; the Worker keeps the web streams). */
  readonly compression?: BlobCompression;
  /** Bytes of tables and set bodies kept after reading: what the platform's memory allows (a Worker's isolate has 128 MB). */
  readonly contentCacheBytes: number;
}

const text = (v: string | number | undefined): string | undefined => (v === undefined || String(v).trim() === '' ? undefined : String(v).trim());

/** undefined when the environment configures no store (the /v1/clusters routes then answer 503). */
export function serverlessStoreFromEnv(env: StoreEnv, o: ServerlessStoreOptions): SnapshotStore | undefined {
  if (!storeConfigured(env)) return undefined;
  const s = storeSettingsFromEnv(env, 'dynamodb');
  if (s.kind === 'embedded') throw new Error('STORE=embedded runs only in the Node server (npm start); use STORE=dynamodb or memory');
  const hash = { ...(o.sha256Hex ? { sha256Hex: o.sha256Hex } : {}), ...(o.compression ? { compression: o.compression } : {}) };
  if (s.kind === 'memory') return createMemoryStore({ retentionSeconds: s.retentionSeconds, ...hash });
  const [accessKeyId, secretAccessKey, sessionToken] = [text(env.AWS_ACCESS_KEY_ID), text(env.AWS_SECRET_ACCESS_KEY), text(env.AWS_SESSION_TOKEN)];
  if (o.credentials === 'explicit') {
    if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) throw new Error('set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
    if (accessKeyId === undefined && s.endpoint === null) throw new Error('DynamoDB needs the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY secrets (wrangler secret put …)');
    if (s.region === null && s.endpoint === null) throw new Error('DynamoDB needs AWS_REGION');
  }
  const client = createDynamoDbClient({
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    ...(s.region ? { region: s.region } : {}),
    ...(o.credentials === 'explicit' && accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } } : { dummyCredentials: s.dummyCredentials }),
  });
  return createDynamoDbStore({ client, tableName: s.tableName, retentionSeconds: s.retentionSeconds, contentCacheBytes: o.contentCacheBytes, ...hash });
}
