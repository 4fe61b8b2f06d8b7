// Liveness and readiness for load balancers, Kubernetes probes and systemd: /healthz answers
// while the process serves requests; /readyz also reads the store (an unknown cluster's latest
// pointer: one small read), so a server whose store is unreachable is taken out of rotation,
// and on the Node server waits for a compute thread to have started: the threads load the app
// after the server listens, and until one has, every request that computes waits for it.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { HealthSchema, ReadinessSchema, UnreadySchema } from '../../schemas/api/clusters.js';
import type { AppEnv } from '../context.js';
import type { OffloadOptions } from '../offload.js';
import { errorResponse, json } from '../openapi.js';

export function opsRoutes(app: OpenAPIHono<AppEnv>, threads?: OffloadOptions['threads']): void {
  app.openapi(createRoute({ method: 'get', path: '/healthz', summary: 'Liveness: 200 while the process serves requests', responses: { 200: json('OK', HealthSchema) } }), (c) => c.json({ status: 'ok' as const }, 200));

  const readyz = createRoute({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: 200 when the snapshot store answers a read and (Node server) a compute thread has started',
    responses: {
      200: json('the store answers, or none is configured; a compute thread has started, or requests compute where they are served', ReadinessSchema),
      503: errorResponse('the store cannot be read, or no compute thread has started yet (the cause is in `store` or `compute`, and `message`)', UnreadySchema),
    },
  });
  app.openapi(readyz, async (c) => {
    const { store, metrics } = c.get('services');
    const counts = threads?.();
    const compute = counts ? { compute: `${counts.started} of ${counts.of} threads started` } : {};
    // The shared error members too, so a client reads every error the same way.
    const unready = (message: string, storeState: string) => c.json({ error: 'unavailable', message, status: 'unavailable' as const, store: storeState, ...compute }, 503);
    let storeState = 'none configured';
    if (store) {
      try {
        await store.latest('netpolc-readyz');
        storeState = 'reachable';
      } catch (e) {
        metrics.storeErrors.inc({ kind: e instanceof Error ? e.name : 'unknown' });
        const cause = e instanceof Error ? e.message : String(e);
        return unready(`the snapshot store cannot be read: ${cause}`, `unreachable: ${cause}`);
      }
    }
    if (counts && counts.started === 0) return unready(`no compute thread has started yet (0 of ${counts.of}): requests that compute would wait for one`, storeState);
    return c.json({ status: 'ok' as const, store: storeState, ...compute }, 200);
  });

  const metricsRoute = createRoute({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (text format 0.0.4): requests, latency, compile and publish durations, store errors',
    responses: { 200: { description: 'the metrics', content: { 'text/plain': { schema: z.string() } } } },
  });
  app.openapi(metricsRoute, (c) => c.text(c.get('services').metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));
}
