// Liveness and readiness for load balancers, Kubernetes probes and systemd: /healthz answers
// while the process serves requests; /readyz also reads the store (an unknown cluster's latest
// pointer: one small read), so a server whose store is unreachable is taken out of rotation.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { SnapshotStore } from '../../infra/store/types.js';
import type { Metrics } from './metrics.js';

export function opsRoutes(app: OpenAPIHono, store: SnapshotStore | undefined, metrics: Metrics): void {
  for (const [path, summary, failure] of [
    ['/healthz', 'Liveness: 200 while the process serves requests', null],
    ['/readyz', 'Readiness: 200 when the snapshot store answers a read', 'the store cannot be read (the cause is in the body)'],
    ['/metrics', 'Prometheus metrics (text format 0.0.4): requests, latency, compile and publish durations, store errors', null],
  ] as const) {
    app.openAPIRegistry.registerPath({ method: 'get', path, summary, responses: { 200: { description: 'OK' }, ...(failure ? { 503: { description: failure } } : {}) } });
  }
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (!store) return c.json({ status: 'ok', store: 'none configured' });
    try {
      await store.latest('netpolc-readyz');
      return c.json({ status: 'ok', store: 'reachable' });
    } catch (e) {
      metrics.storeErrors.inc({ kind: e instanceof Error ? e.name : 'unknown' });
      return c.json({ status: 'unavailable', store: `unreachable: ${e instanceof Error ? e.message : String(e)}` }, 503);
    }
  });
  app.get('/metrics', (c) => c.text(metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
}
