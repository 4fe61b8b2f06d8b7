// One line per request, as JSON: method, route pattern, status, response bytes, milliseconds,
// cluster and node when the route names them, and the token's scope — never the token. The
// same middleware feeds the request metrics, so logs and /metrics count the same requests.
import type { MiddlewareHandler } from 'hono';
import type { Metrics } from './metrics.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The authenticated token's scopes ("write:cluster=prod", …) or "anonymous"; unset before authentication. */
    tokenScope: string;
  }
}

export interface AccessLine {
  readonly time: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly bytes: number | null;
  readonly ms: number;
  readonly cluster?: string;
  readonly node?: string;
  readonly scope?: string;
}

export function accessLog(metrics: Metrics, write: ((line: AccessLine) => void) | null): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = performance.now() - started;
    // The matched pattern (/v1/clusters/:cluster/…), not the path: bounded label cardinality.
    const route = c.req.routePath === '/*' || c.req.routePath === '*' ? 'unmatched' : c.req.routePath;
    const status = c.res.status;
    metrics.requests.inc({ route, method: c.req.method, status: String(status) });
    metrics.latency.observe(ms / 1000, { route, method: c.req.method });
    if (!write) return;
    const length = c.res.headers.get('content-length');
    const cluster = c.req.param('cluster');
    const node = c.req.param('node');
    const scope = c.get('tokenScope');
    write({
      time: new Date().toISOString(),
      method: c.req.method,
      route,
      status,
      bytes: length === null ? null : Number(length),
      ms: Math.round(ms * 10) / 10,
      ...(cluster ? { cluster } : {}),
      ...(node ? { node } : {}),
      ...(scope ? { scope } : {}),
    });
  };
}
