// The hono application factory. Entry adapters (Node, Worker, Lambda) build AppDeps from
// their environment and call createApp; nothing is created at import time.
import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { API_LIMITS } from '../schemas/api/verdicts.js';
import { compressAnswers, type AnswerCompressor } from './answer-compression.js';
import { ApiError } from './errors.js';
import { inflatedBodies } from './request-coding.js';
import { StoreCorruptionError, type SnapshotStore } from '../infra/store/types.js';
import { guardStore, StoreUnavailableError } from '../infra/store/guard.js';
import type { Sha256Hex } from '../core/compile/index.js';
import { closedAccess, requireToken, type AccessPolicy } from './access/check.js';
import { withServices, type AppEnv } from './context.js';
import { accessLog, type AccessLine } from './ops/access-log.js';
import { opsRoutes } from './ops/health.js';
import { Metrics } from './ops/metrics.js';
import { offloadRoutes, type OffloadOptions } from './offload.js';
import { validationHook } from './openapi.js';
import { wellEncodedPath } from './request.js';
import { askRoutes } from './routes/ask.js';
import { clusterQueryRoutes } from './routes/cluster-queries.js';
import { clusterRoutes } from './routes/clusters.js';
import { compileRoutes } from './routes/compile.js';
import { docsRoutes } from './routes/docs.js';
import { lintRoutes } from './routes/lint.js';
import { matrixRoutes } from './routes/matrix.js';
import { nodeTablesRoutes } from './routes/node-tables.js';
import { previewRoutes } from './routes/previews.js';
import { verdictRoutes } from './routes/verdicts.js';
import { createServices } from './services/index.js';

export interface AppDeps {
  readonly maxBodyBytes?: number;
  /** Where compiled snapshots are kept; the /v1/clusters routes answer 503 without one. */
  readonly store?: SnapshotStore;
  /** Where the store is, as its errors name it ("embedded DynamoDB in ./.data/dynalite (DATA_DIR)"). */
  readonly storeDescription?: string;
  /** SHA-256 for table ids; the portable one when unset (a Node entry passes node:crypto's). */
  readonly sha256Hex?: Sha256Hex;
  /**
   * Who may use stored clusters (/v1/clusters/*, /v1/ask with `cluster`). Closed when absent:
   * an adapter that forgets to decide does not serve stored clusters to anyone.
   */
  readonly access?: AccessPolicy;
  /** Where unexpected errors are reported (console by default). */
  readonly logError?: (e: unknown) => void;
  /** Where the access log goes, one line per request (none by default; the entry adapters log to stdout). */
  readonly logAccess?: ((line: AccessLine) => void) | null;
  /** Request, compile, publish and store-error figures served at /metrics (a fresh set by default). */
  readonly metrics?: Metrics;
  /** Objects of compiled versions kept in memory to compile the next version from changes (compiled-versions.ts). */
  readonly warmStateObjects?: number;
  /**
   * A publish answers once its version is latest and settles the pointer move after (the Node
   * server, whose process outlives its answers; a Worker does the same through waitUntil).
   */
  readonly settleAfterAnswer?: boolean;
  /** Where compute routes run instead of this thread (the Node server's threads; offload.ts). */
  readonly offload?: OffloadOptions;
  /**
   * Compresses answers (gzip or deflate) when the client's Accept-Encoding asks for it: the Node
   * server and Lambda (an HTTP API compresses nothing, and its answers stop at 6 MB). None for
   * the Worker: Cloudflare's edge compresses what it serves.
   */
  readonly answerCompressor?: AnswerCompressor;
}

/** The application: its routes bound to the contract it documents, with the services on every request's context. */
export type App = OpenAPIHono<AppEnv>;

export function createApp(given: AppDeps = {}): App {
  const deps: AppDeps = given.store ? { ...given, store: guardStore(given.store, given.storeDescription ?? 'the configured snapshot store') } : given;
  // A query value or path parameter a route's schema rejects is a 422 like every other (openapi.ts).
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const maxBodyBytes = deps.maxBodyBytes ?? API_LIMITS.maxBodyBytes;
  const logError = deps.logError ?? ((e: unknown) => console.error(e));
  const metrics = deps.metrics ?? new Metrics();
  const access = deps.access ?? closedAccess();
  const services = createServices({ access, metrics, sha256Hex: deps.sha256Hex, store: deps.store, warmStateObjects: deps.warmStateObjects, settleAfterAnswer: deps.settleAfterAnswer === true });
  // Every route and route middleware reads its dependencies from here (context.ts).
  app.use('*', withServices(services));
  app.use('*', accessLog(metrics, deps.logAccess ?? null));
  // Rendered tables and compiled forms are text that deflates 5-20x (answer-compression.ts).
  if (deps.answerCompressor) app.use('*', compressAnswers(deps.answerCompressor));

  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError('too_large', `the request body is larger than the limit of ${maxBodyBytes} bytes (MAX_BODY_BYTES)`);
      },
    }),
  );

  // After the limit on what arrives: a compressed body is held to it again once inflated.
  app.use('/v1/*', inflatedBodies(maxBodyBytes));
  app.use('/v1/*', wellEncodedPath);
  // Every path under /v1/clusters needs a valid token, unknown ones included; each route then checks its scope.
  app.use('/v1/clusters/*', requireToken(access));
  // Before the routes: a compute route then runs elsewhere, with the same checks there.
  if (deps.offload) offloadRoutes(app, deps.offload, metrics, (cluster) => services.polls?.forget(cluster));

  verdictRoutes(app);
  matrixRoutes(app);
  opsRoutes(app, deps.offload?.threads);
  compileRoutes(app);
  previewRoutes(app);
  lintRoutes(app);
  askRoutes(app);
  clusterRoutes(app);
  nodeTablesRoutes(app);
  clusterQueryRoutes(app);
  docsRoutes(app);

  app.notFound((c) => c.json(new ApiError('not_found', `no route for ${c.req.method} ${c.req.path}; see /docs`).toJSON(), 404));
  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(err.toJSON(), err.status, err.more.headers ?? {});
    // Anything else is our bug, not the client's input: log it, answer without internals.
    // An answer longer than the runtime's largest string: the request asked for too much at once.
    if (err instanceof RangeError && /string length/i.test(err.message)) {
      return c.json(new ApiError('too_large', 'the answer is larger than this runtime can encode (about 512 MiB of JSON); ask for format=ir (shared sets), one node, or a smaller snapshot').toJSON(), 413);
    }
    // The store failed or holds what it should not: not the client's input, not a bug of ours.
    if (err instanceof StoreCorruptionError || err instanceof StoreUnavailableError) {
      metrics.storeErrors.inc({ kind: err.name });
      logError(err);
      const where = given.storeDescription ?? 'the configured snapshot store';
      return c.json(new ApiError('unavailable', err instanceof StoreCorruptionError ? `the snapshot store (${where}) holds an incomplete or damaged version: ${err.message}` : err.message).toJSON(), 503);
    }
    logError(err);
    return c.json(new ApiError('internal', 'internal error; this is a bug in netpolc, please report it').toJSON(), 500);
  });
  return app;
}
