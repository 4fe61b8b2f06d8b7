// Liveness and readiness for load balancers, Kubernetes probes and systemd: /healthz answers
// while the process serves requests; /readyz also reads the store (an unknown cluster's latest
// pointer: one small read), so a server whose store is unreachable is taken out of rotation.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HealthSchema, ReadinessSchema, UnreadySchema } from '../../schemas/api/clusters.js';
import type { AppEnv } from '../context.js';
import { errorResponse, json } from '../openapi.js';

export function opsRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createRoute({ method: 'get', path: '/healthz', summary: 'Liveness: 200 while the process serves requests', responses: { 200: json('OK', HealthSchema) } }), (c) => c.json({ status: 'ok' as const }, 200));

  const readyz = createRoute({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: 200 when the snapshot store answers a read',
    responses: { 200: json('the store answers, or none is configured', ReadinessSchema), 503: errorResponse('the store cannot be read (the cause is in `store` and `message`)', UnreadySchema) },
  });
  app.openapi(readyz, async (c) => {
    const { store, metrics } = c.get('services');
    if (!store) return c.json({ status: 'ok' as const, store: 'none configured' }, 200);
    try {
      await store.latest('netpolc-readyz');
      return c.json({ status: 'ok' as const, store: 'reachable' }, 200);
    } catch (e) {
      metrics.storeErrors.inc({ kind: e instanceof Error ? e.name : 'unknown' });
      const cause = e instanceof Error ? e.message : String(e);
      // The shared error members too, so a client reads every error the same way.
      return c.json({ error: 'unavailable', message: `the snapshot store cannot be read: ${cause}`, status: 'unavailable' as const, store: `unreachable: ${cause}` }, 503);
    }
  });

  const metricsRoute = createRoute({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text format 0.0.4): requests, latency, compile and publish durations, store errors',
    responses: { 200: { description: 'the metrics', content: { 'text/plain': { schema: z.string() } } } },
  });
  app.openapi(metricsRoute, (c) => c.text(c.get('services').metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
}
