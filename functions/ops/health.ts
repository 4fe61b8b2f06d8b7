// Liveness and readiness for load balancers, Kubernetes probes and systemd: /healthz answers
// while the process serves requests; /readyz also reads the store (an unknown cluster's latest
// pointer: one small read), so a server whose store is unreachable is taken out of rotation.
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { SnapshotStore } from '../../infra/store/types.js';
import type { Metrics } from './metrics.js';
import { HealthSchema, ReadinessSchema, UnreadySchema } from '../../schemas/api/clusters.js';
import { errorResponse, json } from '../routes/openapi-helpers.js';

export function opsRoutes(app: OpenAPIHono, store: SnapshotStore | undefined, metrics: Metrics): void {
  app.openAPIRegistry.registerPath({ method: 'get', path: '/healthz', summary: 'Liveness: 200 while the process serves requests', responses: { 200: json('OK', HealthSchema) } });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: 200 when the snapshot store answers a read',
    responses: { 200: json('the store answers, or none is configured', ReadinessSchema), 503: errorResponse('the store cannot be read (the cause is in `store` and `message`)', UnreadySchema) },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text format 0.0.4): requests, latency, compile and publish durations, store errors',
    responses: { 200: { description: 'OK', content: { 'text/plain': { schema: { type: 'string' } } } } },
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (!store) return c.json({ status: 'ok', store: 'none configured' });
    try {
      await store.latest('netpolc-readyz');
      return c.json({ status: 'ok', store: 'reachable' });
    } catch (e) {
      metrics.storeErrors.inc({ kind: e instanceof Error ? e.name : 'unknown' });
      const cause = e instanceof Error ? e.message : String(e);
      // The shared error members too, so a client reads every error the same way.
      return c.json({ error: 'unavailable', message: `the snapshot store cannot be read: ${cause}`, status: 'unavailable', store: `unreachable: ${cause}` }, 503);
    }
  });
  app.get('/metrics', (c) => c.text(metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
}
