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

export default {
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
    return appFor(env).fetch(request, env, ctx);
  },
};
