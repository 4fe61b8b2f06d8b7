// Node entry: reads the environment, serves createApp on HOST:PORT.
import { serve } from '@hono/node-server';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';

const port = Number(process.env.PORT ?? 8787);
const host = process.env.HOST ?? '127.0.0.1';
const app = createApp(depsFromEnv(process.env));
serve({ fetch: app.fetch, port, hostname: host }, (info) => {
  console.log(`netpolc listening on http://${host}:${info.port} (docs: /docs, contract: /openapi.json)`);
});
