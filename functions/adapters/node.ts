// Node entry: reads the environment, opens the snapshot store (embedded DynamoDB under ./.data
// by default, STORE=memory, or DYNAMODB_ENDPOINT / AWS settings) and serves createApp. Without
// access tokens it serves on loopback only: stored clusters are then open to this machine alone.
import { serve } from '@hono/node-server';
import { openStore } from '../../infra/open-store.js';
import { storeSettingsFromEnv } from '../../infra/store/config.js';
import { createApp, type AppDeps } from '../app.js';
import { computeFromEnv, depsFromEnv, type ComputeSettings } from '../config.js';
import { createHash } from 'node:crypto';
import { ComputePool } from './compute-pool.js';
import { nodeSha256Hex } from '../node-sha256.js';
import { nodeAnswerCompressor, nodeCompression } from '../node-compression.js';
import { Metrics } from '../ops/metrics.js';

const isLoopback = (host: string): boolean => host === 'localhost' || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1' || host === '[::1]';

function configure(): { deps: AppDeps; host: string; port: number; compute: ComputeSettings | null } {
  const deps = depsFromEnv(process.env, 'node');
  const compute = computeFromEnv(process.env);
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  if (deps.access?.kind !== 'tokens' && !isLoopback(host)) {
    throw new Error(`HOST=${host} would serve stored clusters to anyone who can connect: no access tokens are configured (NETPOLC_TOKENS). Configure tokens (see README, Access control) or listen on 127.0.0.1`);
  }
  return { deps, host, port, compute };
}

let config: ReturnType<typeof configure>;
try {
  config = configure();
} catch (e) {
  // A bad setting stops the server: never start more open than its operator configured.
  console.error(`netpolc: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
const { deps, host, port, compute } = config;
const settings = storeSettingsFromEnv(process.env);
const opened = await openStore(settings, { sha256Hex: nodeSha256Hex, compression: nodeCompression }).catch((e: unknown) => {
  // The usual cause: another server on the same DATA_DIR. One line that says so, not a stack.
  console.error(`netpolc: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
// Compute routes run on threads that reach the same store: the embedded one over its loopback
// endpoint, DynamoDB directly. An in-memory store is this thread's alone, so its routes stay here.
const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
const pool = compute ? new ComputePool(compute, { env, storeEndpoint: opened.endpoint, storeDescription: opened.description }) : null;
const sha256Digest = () => {
  const hash = createHash('sha256');
  return { update: (chunk: Uint8Array) => void hash.update(chunk), hex: () => hash.digest('hex') };
};
const offload = pool ? { run: pool.run, storeRoutes: settings.kind !== 'memory', digest: sha256Digest, threads: () => ({ started: pool.startedThreads, of: pool.threads }) } : undefined;
const metrics = new Metrics();
if (pool) {
  metrics.gauge('netpolc_compute_threads_busy', 'Compute threads answering a request now (COMPUTE_THREADS in all).', () => pool.busy);
  metrics.gauge('netpolc_compute_requests_waiting', 'Requests waiting for a compute thread (at most MAX_QUEUED_REQUESTS; more get 503).', () => pool.waiting);
}
const app = createApp({ ...deps, metrics, store: opened.store, storeDescription: opened.description, sha256Hex: nodeSha256Hex, answerCompressor: nodeAnswerCompressor, ...(offload ? { offload } : {}) });
const server = serve({ fetch: app.fetch, port, hostname: host }, (info) => {
  console.log(`netpolc listening on http://${host}:${info.port} (docs: /docs, contract: /openapi.json)`);
  console.log(`snapshots: ${opened.description}`);
  if (deps.access?.kind === 'tokens') console.log(`access: ${deps.access.tokens.length} token${deps.access.tokens.length === 1 ? '' : 's'} (NETPOLC_TOKENS); /v1/clusters/* needs a bearer token`);
  else console.log('access: no tokens configured (NETPOLC_TOKENS), so listening on loopback only; anyone on this machine can read and write stored clusters');
  if (compute) console.log(`compute: ${compute.workers} threads; per request at most ${compute.timeSeconds} s and ${compute.memoryMb} MiB of heap, ${compute.maxQueued} waiting (COMPUTE_THREADS, REQUEST_TIME_BUDGET_SECONDS, REQUEST_MEMORY_MB, MAX_QUEUED_REQUESTS)`);
});
// Idle keep-alive connections stay open past clients' own idle limits (undici 4 s, agents and
// load balancers up to 60 s): a server that closes first races the client's next request on
// that connection, which then fails with ECONNRESET/EPIPE (a POST is not retried).
const http = server as import('node:http').Server;
http.keepAliveTimeout = 65_000;
http.headersTimeout = 66_000;

// In-flight requests finish (a publish included), idle keep-alive connections close, the
// threads finish the store work left after their answers (pointer moves settled), then the
// store stops, releasing the data directory for the next start. A connection whose answer is
// still being written (a streamed or compressed one) becomes idle only after the signal, and
// would otherwise hold the shutdown for keepAliveTimeout: idle ones are closed until it ends.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void Promise.all([pool?.close(), opened.store.settled()]).then(() => opened.close()).then(() => process.exit(0)));
    http.closeIdleConnections();
    setInterval(() => http.closeIdleConnections(), 100).unref();
  });
}
