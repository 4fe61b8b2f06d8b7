// Node only: turns StoreSettings into a running store, starting the embedded dynalite when asked.
// The Node adapter calls this at start; Lambda and the Worker build theirs from createDynamoDbStore.
import { startLocalDynamo } from './dynamodb-local.js';
import type { StoreSettings } from './store/config.js';
import { createDynamoDbClient, createDynamoDbStore, createTableIfMissing } from './store/dynamodb.js';
import { createMemoryStore } from './store/memory.js';
import type { SnapshotStore } from './store/types.js';
import type { Sha256Hex } from '../core/compile/index.js';
import type { BlobCompression } from './store/compression.js';

export interface OpenStore {
  readonly store: SnapshotStore;
  /** One line for the start-up log: where snapshots live. */
  readonly description: string;
  /** The embedded store's loopback endpoint, for other threads of this process; null for other stores. */
  readonly endpoint: string | null;
  close(): Promise<void>;
}

/** `sha256Hex`, `compression`: the SHA-256 the store checks table ids with and its deflate (Node's, from the Node adapter). */
export async function openStore(s: StoreSettings, o: { readonly sha256Hex?: Sha256Hex; readonly compression?: BlobCompression } = {}): Promise<OpenStore> {
  const hash = { ...(o.sha256Hex ? { sha256Hex: o.sha256Hex } : {}), ...(o.compression ? { compression: o.compression } : {}) };
  switch (s.kind) {
    case 'memory':
      return { store: createMemoryStore({ retentionSeconds: s.retentionSeconds, ...hash }), description: 'in memory (STORE=memory): lost at exit', endpoint: null, close: async () => undefined };
    case 'embedded': {
      const local = await startLocalDynamo({ path: s.path, tableName: s.tableName });
      const store = createDynamoDbStore({ client: local.client, tableName: s.tableName, retentionSeconds: s.retentionSeconds, ...hash });
      return { store, description: `embedded DynamoDB (dynalite) in ${s.path} (DATA_DIR), table ${s.tableName}`, endpoint: local.endpoint, close: () => local.close() };
    }
    case 'dynamodb': {
      const client = createDynamoDbClient({ ...(s.endpoint ? { endpoint: s.endpoint } : {}), ...(s.region ? { region: s.region } : {}), dummyCredentials: s.dummyCredentials });
      // Against a local endpoint the table is ours to create; on AWS the stack (infra/template.yaml) owns it.
      if (s.endpoint) await createTableIfMissing(client, s.tableName);
      const store = createDynamoDbStore({ client, tableName: s.tableName, retentionSeconds: s.retentionSeconds, ...hash });
      return { store, description: `DynamoDB table ${s.tableName}${s.endpoint ? ` at ${s.endpoint}` : ''}`, endpoint: null, close: async () => client.destroy() };
    }
  }
}
