// Cloudflare Worker entry: builds AppDeps and the DynamoDB store from the Worker's bindings
// (vars and secrets) and hands the request to createApp. Nothing is created at import time: the
// app is built on the first request and rebuilt only when the configuration it depends on changes.
import type { ExecutionContext } from 'hono';
import { serverlessStoreFromEnv } from '../../infra/serverless-store.js';
import { createApp, type App } from '../app.js';
import { depsFromEnv } from '../config.js';

/**
 * The bindings this Worker reads. `[vars]` in wrangler.toml may be strings or JSON values,
 * secrets (`wrangler secret put NAME`) are always strings.
 */
export interface WorkerEnv {
  /** Request body limit in bytes; the API default (64 MiB) when unset. */
  readonly MAX_BODY_BYTES?: string | number;
  /** Secret: hashed access tokens with scopes (functions/access/tokens.ts). Without it /v1/clusters answers 503. */
  readonly NETPOLC_TOKENS?: string;
  /** "true": without tokens, serve stored clusters to anyone. */
  readonly NETPOLC_ALLOW_ANONYMOUS?: string;
  /** dynamodb (default once a table or endpoint is set) or memory (per isolate, for trials). */
  readonly STORE?: string;
  /** The DynamoDB table (DYNAMODB_TABLE is the same setting). */
  readonly NETPOLC_TABLE?: string;
  readonly DYNAMODB_TABLE?: string;
  /** Another endpoint (DynamoDB Local, dynalite); AWS itself when unset. */
  readonly DYNAMODB_ENDPOINT?: string;
  readonly AWS_REGION?: string;
  /** Secrets: an IAM user's key limited to the table (see README, Deploy). */
  readonly AWS_ACCESS_KEY_ID?: string;
  readonly AWS_SECRET_ACCESS_KEY?: string;
  readonly AWS_SESSION_TOKEN?: string;
  readonly SNAPSHOT_RETENTION_SECONDS?: string | number;
  /** Objects of compiled versions an isolate keeps for versions from changes (default 200000; 0: none). */
  readonly WARM_STATE_OBJECTS?: string | number;
}

const SETTINGS: readonly (keyof WorkerEnv)[] = [
  'MAX_BODY_BYTES', 'NETPOLC_TOKENS', 'NETPOLC_ALLOW_ANONYMOUS', 'STORE', 'NETPOLC_TABLE', 'DYNAMODB_TABLE', 'DYNAMODB_ENDPOINT',
  'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'SNAPSHOT_RETENTION_SECONDS', 'WARM_STATE_OBJECTS',
];

let cached: { key: string; app: App } | undefined;

function appFor(env: WorkerEnv): App {
  const settings = (env ?? {}) as Record<string, string | number | undefined>;
  const key = JSON.stringify(SETTINGS.map((name) => settings[name] ?? null));
  if (cached?.key !== key) {
    cached = { key, app: createApp({ ...depsFromEnv(settings, 'serverless'), store: serverlessStoreFromEnv(settings, { credentials: 'explicit', contentCacheBytes: 8 * 1024 * 1024 }) }) };
  }
  return cached.app;
}

/**
 * The request with a body the app reads through, and a drain of whatever the app left unread.
 * workerd ends the exchange when the answer is returned, so an answer given before the whole body
 * arrived (413 over MAX_BODY_BYTES, 401, 404) cuts the upload: wrangler's local proxy then
 * replaces it with its own 503 "worker restarted mid-request", and a client still writing sees
 * the connection reset. Draining after the answer (waitUntil) is too late; the platform's own
 * request size limit bounds what a drain reads.
 */
function drainable(request: Request): { request: Request; drain: () => Promise<void> } {
  const source = request.body;
  if (!source) return { request, drain: async () => {} };
  const reader = source.getReader();
  let done = false;
  // One read at a time: a drain waits for the app's read in flight.
  let last: Promise<unknown> = Promise.resolve();
  const read = () => {
    const next = last.then(() => reader.read());
    last = next.catch(() => {});
    return next;
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await read();
      if (chunk.done) {
        done = true;
        controller.close();
      } else controller.enqueue(chunk.value);
    },
    // The app stopping early (the body limit) must not cancel the upload, only stop reading it.
    cancel() {},
  });
  const drain = async () => {
    while (!done) done = (await read()).done;
  };
  return { request: new Request(request, { body }), drain };
}

export default {
  async fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Promise<Response> {
    const given = drainable(request);
    const response = await appFor(env).fetch(given.request, env, ctx);
    await given.drain();
    return response;
  },
};
