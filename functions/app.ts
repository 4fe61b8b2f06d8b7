// The hono application factory. Entry adapters (Node, Worker, Lambda) build AppDeps from
// their environment and call createApp; nothing is created at import time.
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { API_LIMITS } from '../schemas/api/verdicts.js';
import { ApiError } from './errors.js';
import type { SnapshotStore } from '../infra/store/types.js';
import { clusterRoutes } from './routes/clusters.js';
import { compileRoutes } from './routes/compile.js';
import { docsRoutes } from './routes/docs.js';
import { matrixRoutes } from './routes/matrix.js';
import { verdictRoutes } from './routes/verdicts.js';
import { changeReviewRoutes } from './routes/change-review.js';

export interface AppDeps {
  readonly maxBodyBytes?: number;
  /** Where compiled snapshots are kept; the /v1/clusters routes answer 503 without one. */
  readonly store?: SnapshotStore;
  /** Where unexpected errors are reported (console by default). */
  readonly logError?: (e: unknown) => void;
}

export function createApp(deps: AppDeps = {}): OpenAPIHono {
  const app = new OpenAPIHono();
  const maxBodyBytes = deps.maxBodyBytes ?? API_LIMITS.maxBodyBytes;
  const logError = deps.logError ?? ((e: unknown) => console.error(e));

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError('too_large', `the request body is larger than the limit of ${maxBodyBytes} bytes (MAX_BODY_BYTES)`);
      },
    }),
  );

  verdictRoutes(app);
  matrixRoutes(app);
  compileRoutes(app);
  changeReviewRoutes(app);
  clusterRoutes(app, deps.store);
  docsRoutes(app);

  app.notFound((c) => c.json(new ApiError('not_found', `no route for ${c.req.method} ${c.req.path}; see /docs`).toJSON(), 404));
  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(err.toJSON(), err.status);
    // Anything else is our bug, not the client's input: log it, answer without internals.
    logError(err);
    return c.json(new ApiError('internal', 'internal error; this is a bug in netpolc, please report it').toJSON(), 500);
  });
  return app;
}
