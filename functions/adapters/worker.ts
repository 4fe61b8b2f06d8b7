// Cloudflare Worker entry: builds AppDeps from the Worker's bindings (vars and secrets) and
// hands the request to createApp. Nothing is created at import time: the app is built on the
// first request and rebuilt only when the configuration it depends on changes.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ExecutionContext } from 'hono';
import { createApp } from '../app.js';
import { depsFromEnv } from '../config.js';

export { depsFromEnv };

/**
 * The bindings this Worker reads. `[vars]` in wrangler.toml may be strings or JSON values,
 * secrets are always strings.
 */
export interface WorkerEnv {
  /** Request body limit in bytes; the API default (64 MiB) when unset. */
  readonly MAX_BODY_BYTES?: string | number;
}

let cached: { key: string; app: OpenAPIHono } | undefined;

function appFor(env: WorkerEnv): OpenAPIHono {
  const deps = depsFromEnv((env ?? {}) as Record<string, string | number | undefined>);
  const key = JSON.stringify(deps);
  if (cached?.key !== key) cached = { key, app: createApp(deps) };
  return cached.app;
}

export default {
  fetch(request: Request, env: WorkerEnv, ctx: ExecutionContext): Response | Promise<Response> {
    return appFor(env).fetch(request, env, ctx);
  },
};
