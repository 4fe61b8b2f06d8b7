// AppDeps from a platform's environment (process.env, Worker bindings): one reading of each
// setting for every adapter, and a clear error for a bad value instead of a silent default.
//   MAX_BODY_BYTES            request body limit (default 64 MiB)
//   NETPOLC_TOKENS            access tokens for /v1/clusters/*, as hashes with scopes (functions/access/tokens.ts)
//   NETPOLC_ALLOW_ANONYMOUS   true: a Worker or Lambda without tokens serves stored clusters to anyone
//   ACCESS_LOG                true (default): one JSON line per request on stdout; false: none
//   WARM_STATE_OBJECTS        objects of compiled versions kept in memory for versions from changes (default 200000; 0: none)
// The Node server's compute threads (computeFromEnv; the Worker and Lambda have their platform's limits):
//   COMPUTE_THREADS              threads answering compile, publish, verdicts, previews… (default 2; 0: the serving thread)
//   REQUEST_TIME_BUDGET_SECONDS  wall time one such request may take (default 300)
//   REQUEST_MEMORY_MB            old-generation heap one such request may use (default 4096, plus the thread's
//                                192 MiB young generation: compute-pool.ts; the process may use threads × this)
//   MAX_QUEUED_REQUESTS          requests that may wait for a thread before 503 + Retry-After (default 32)
import type { AppDeps } from './app.js';
import type { AccessPolicy } from './access/check.js';
import { parseTokens } from './access/tokens.js';

export type EnvSource = Readonly<Record<string, string | number | undefined>>;

/**
 * 'node': a server that can keep to loopback when no tokens are configured (the adapter enforces
 * it). 'serverless': reachable by anyone, so without tokens stored clusters are refused unless
 * NETPOLC_ALLOW_ANONYMOUS=true.
 */
export type Platform = 'node' | 'serverless';

const text = (v: string | number | undefined): string | undefined => (v === undefined || String(v).trim() === '' ? undefined : String(v).trim());

function positiveInteger(name: string, value: string | number | undefined, unit = 'bytes', min = 1): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min} (${unit}), got ${JSON.stringify(value)}`);
  return n;
}

function flag(name: string, value: string | number | undefined): boolean {
  const v = text(value)?.toLowerCase();
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

export function accessFromEnv(env: EnvSource, platform: Platform): AccessPolicy {
  const tokens = parseTokens(text(env.NETPOLC_TOKENS));
  const anonymous = flag('NETPOLC_ALLOW_ANONYMOUS', env.NETPOLC_ALLOW_ANONYMOUS);
  if (tokens.length > 0) {
    if (anonymous) throw new Error('NETPOLC_TOKENS and NETPOLC_ALLOW_ANONYMOUS=true contradict each other; set one');
    return { kind: 'tokens', tokens };
  }
  if (platform === 'node' || anonymous) return { kind: 'anonymous' };
  return { kind: 'closed', reason: 'no access tokens are configured (NETPOLC_TOKENS)' };
}

export function depsFromEnv(env: EnvSource, platform: Platform): AppDeps {
  // stdout is where each platform collects logs (journald, CloudWatch, Workers Logs).
  const logAccess = text(env.ACCESS_LOG) === undefined || flag('ACCESS_LOG', env.ACCESS_LOG) ? (line: unknown) => console.log(JSON.stringify(line)) : null;
  const warmStateObjects = positiveInteger('WARM_STATE_OBJECTS', env.WARM_STATE_OBJECTS, 'objects', 0);
  return { maxBodyBytes: positiveInteger('MAX_BODY_BYTES', env.MAX_BODY_BYTES), access: accessFromEnv(env, platform), logAccess, settleAfterAnswer: platform === 'node', ...(warmStateObjects !== undefined ? { warmStateObjects } : {}) };
}

export interface ComputeSettings {
  readonly workers: number;
  readonly timeSeconds: number;
  readonly memoryMb: number;
  readonly maxQueued: number;
}

export const COMPUTE_DEFAULTS: ComputeSettings = { workers: 2, timeSeconds: 300, memoryMb: 4096, maxQueued: 32 };

/** The Node server's compute threads and per-request budgets; null: compute on the serving thread. */
export function computeFromEnv(env: EnvSource): ComputeSettings | null {
  const workers = positiveInteger('COMPUTE_THREADS', env.COMPUTE_THREADS, 'threads', 0) ?? COMPUTE_DEFAULTS.workers;
  if (workers === 0) return null;
  return {
    workers,
    timeSeconds: positiveInteger('REQUEST_TIME_BUDGET_SECONDS', env.REQUEST_TIME_BUDGET_SECONDS, 'seconds') ?? COMPUTE_DEFAULTS.timeSeconds,
    memoryMb: positiveInteger('REQUEST_MEMORY_MB', env.REQUEST_MEMORY_MB, 'MiB', 64) ?? COMPUTE_DEFAULTS.memoryMb,
    maxQueued: positiveInteger('MAX_QUEUED_REQUESTS', env.MAX_QUEUED_REQUESTS, 'requests', 0) ?? COMPUTE_DEFAULTS.maxQueued,
  };
}
