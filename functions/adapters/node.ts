// Node entry: reads the environment, opens the snapshot store (embedded DynamoDB under ./.data
// by default, STORE=memory, or DYNAMODB_ENDPOINT / AWS settings) and serves createApp.
import { serve } from '@hono/node-server';
import { openStore } from '../../infra/open-store.js';
import { storeSettingsFromEnv } from '../../infra/store/config.js';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';
import { nodeSha256Hex } from '../node-sha256.js';

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
const opened = await openStore(storeSettingsFromEnv(process.env));
const app = createApp({ ...depsFromEnv(process.env), store: opened.store, sha256Hex: nodeSha256Hex });
const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
  console.log(`netpolc listening on http://${host}:${info.port} (docs: /docs, contract: /openapi.json)`);
  console.log(`snapshots: ${opened.description}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void opened.close().then(() => process.exit(0))));
}
