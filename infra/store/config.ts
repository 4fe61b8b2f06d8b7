// Which store a process uses, from its environment (process.env or Worker bindings). Pure: no
// I/O here, so Lambda and the Worker can read settings without pulling in the embedded store.
//   STORE                       memory | dynamodb | embedded (default: dynamodb when DYNAMODB_ENDPOINT
//                               or DYNAMODB_TABLE is set, else the adapter's default)
//   DYNAMODB_TABLE              table name (default netpolc); NETPOLC_TABLE is the same setting
//   DYNAMODB_ENDPOINT           another endpoint (DynamoDB Local, a dynalite elsewhere); AWS_REGION and
//                               credentials come from the standard AWS settings
//   SNAPSHOT_RETENTION_SECONDS  how long a version stays readable once it is no longer latest (default 7 days)
//   DATA_DIR                    embedded store's directory (default ./.data; LevelDB files in DATA_DIR/dynalite)
import { DEFAULT_RETENTION_SECONDS } from './context.js';

export type StoreSettings =
  | { readonly kind: 'memory'; readonly retentionSeconds: number }
  | {
      readonly kind: 'dynamodb';
      readonly tableName: string;
      readonly endpoint: string | null;
      readonly region: string | null;
      /** A local endpoint without AWS credentials configured: emulators accept any, the SDK insists on some. */
      readonly dummyCredentials: boolean;
      readonly retentionSeconds: number;
    }
  | { readonly kind: 'embedded'; readonly tableName: string; readonly path: string; readonly retentionSeconds: number };

export type StoreEnv = Readonly<Record<string, string | number | undefined>>;

const text = (v: string | number | undefined): string | undefined => (v === undefined || String(v).trim() === '' ? undefined : String(v).trim());

/** Whether the environment asks for a store at all (a Worker or Lambda without one answers 503 on /v1/clusters). */
export const storeConfigured = (env: StoreEnv): boolean => ['STORE', 'DYNAMODB_TABLE', 'NETPOLC_TABLE', 'DYNAMODB_ENDPOINT'].some((k) => text(env[k]) !== undefined);

export function storeSettingsFromEnv(env: StoreEnv, defaultKind: StoreSettings['kind'] = 'embedded'): StoreSettings {
  const retentionRaw = text(env.SNAPSHOT_RETENTION_SECONDS);
  const retentionSeconds = retentionRaw === undefined ? DEFAULT_RETENTION_SECONDS : Number(retentionRaw);
  if (!Number.isSafeInteger(retentionSeconds) || retentionSeconds <= 0) throw new Error(`SNAPSHOT_RETENTION_SECONDS must be a positive integer, got ${JSON.stringify(retentionRaw)}`);
  const [table, alias] = [text(env.DYNAMODB_TABLE), text(env.NETPOLC_TABLE)];
  if (table !== undefined && alias !== undefined && table !== alias) throw new Error(`DYNAMODB_TABLE (${table}) and NETPOLC_TABLE (${alias}) name different tables; set one`);
  const tableName = table ?? alias ?? 'netpolc';
  const endpoint = text(env.DYNAMODB_ENDPOINT) ?? null;
  const kind = text(env.STORE) ?? (endpoint !== null || table !== undefined || alias !== undefined ? 'dynamodb' : defaultKind);
  switch (kind) {
    case 'memory':
      return { kind, retentionSeconds };
    case 'dynamodb':
      return {
        kind,
        tableName,
        endpoint,
        region: text(env.AWS_REGION) ?? text(env.AWS_DEFAULT_REGION) ?? null,
        dummyCredentials: endpoint !== null && !text(env.AWS_ACCESS_KEY_ID) && !text(env.AWS_PROFILE),
        retentionSeconds,
      };
    case 'embedded':
      return { kind, tableName, path: `${text(env.DATA_DIR) ?? './.data'}/dynalite`, retentionSeconds };
    default:
      throw new Error(`STORE must be memory, dynamodb or embedded, got ${JSON.stringify(kind)}`);
  }
}
