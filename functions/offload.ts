// Requests that compute (compile, publish, verdicts, previews, …) can be answered by another
// thread: the Node adapter runs them in a pool of worker threads, so one large or hostile
// request never blocks node agents' polls, health checks or the docs, and a request over its
// budget is stopped without stopping the server. This file is platform-neutral: it says which
// routes compute, moves a request to the runner and back as plain data, and answers identical
// concurrent requests once. The Worker and Lambda adapters pass no runner (their platforms run
// one request per isolate or invocation, under the platform's own limits).
import type { Context, MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './context.js';
import type { Metrics } from './ops/metrics.js';
import { nodeTablesComputes } from './routes/node-tables.js';

/** A request as data: what crosses to the runner. */
export interface WireRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array | null;
}

/** A compile/publish figure or store error recorded while a request ran elsewhere, for this process's /metrics. */
export type Observation = readonly ['compile' | 'publish', number, Readonly<Record<string, string>>] | readonly ['storeErrors', number, Readonly<Record<string, string>>];

export interface WireResponse {
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Uint8Array;
  readonly observations: readonly Observation[];
}

/**
 * Runs a request elsewhere. `affinity` (a cluster name) sends requests about one cluster to the
 * same runner, where that cluster's compiled state and loaded versions are kept warm. The
 * runner answers every failure of its own (budget, overload) as a WireResponse too.
 */
export type Offload = (req: WireRequest, affinity: string | null, signal: AbortSignal) => Promise<WireResponse>;

export interface OffloadOptions {
  readonly run: Offload;
  /** Whether routes that read or write stored clusters compute elsewhere (the runner reaches the same store). */
  readonly storeRoutes: boolean;
  /** A digest of a body, to recognise identical concurrent requests: fed chunk by chunk as the body arrives. */
  readonly digest: () => BodyDigest;
  /**
   * Compute threads that have started, and all of them (/readyz): a thread loads the app before
   * it answers, so right after the server listens the first requests wait for it (~2 s).
   */
  readonly threads?: () => { readonly started: number; readonly of: number };
}

export interface BodyDigest {
  update(chunk: Uint8Array): void;
  hex(): string;
}

interface ComputeRoute {
  readonly method: 'POST' | 'PUT' | 'GET';
  readonly path: string;
  /** Requests about a stored cluster: kept on the cluster's runner, and only offloaded when the runner has the store. */
  readonly stored: boolean;
  /** GET routes compute only for some requests (a node poll answered 304 from memory does not). */
  readonly when?: (c: Context<AppEnv>) => boolean | Promise<boolean>;
}

// Every route whose work grows with the snapshot. Cheap reads (unchanged node polls, listings,
// headers, health, metrics, docs) stay on the serving thread.
export const COMPUTE_ROUTES: readonly ComputeRoute[] = [
  ...['/v1/compile', '/v1/verdicts', '/v1/matrix', '/v1/lint', '/v1/previews'].map((path) => ({ method: 'POST' as const, path, stored: false })),
  // /v1/ask may name a stored cluster instead of carrying a snapshot.
  { method: 'POST', path: '/v1/ask', stored: true },
  { method: 'PUT', path: '/v1/clusters/:cluster/snapshots/:version', stored: true },
  { method: 'POST', path: '/v1/clusters/:cluster/snapshots', stored: true },
  { method: 'POST', path: '/v1/clusters/:cluster/verdicts', stored: true },
  { method: 'POST', path: '/v1/clusters/:cluster/matrix', stored: true },
  { method: 'GET', path: '/v1/clusters/:cluster/ask', stored: true },
  { method: 'GET', path: '/v1/clusters/:cluster/nodes/:node/tables', stored: true, when: nodeTablesComputes },
];

// Headers that change the answer: requests equal in these and the body get one answer.
// Accept-Encoding: the compute thread compresses the answer the client asked for.
const ANSWER_HEADERS = ['authorization', 'content-type', 'accept', 'accept-encoding', 'if-match', 'if-none-match'];

/** Bytes of an answer handed to the socket per slice (answerBody). */
const ANSWER_SLICE_BYTES = 1024 * 1024;

/**
 * An answer's bytes as a stream of views into them. `new Response(bytes)` copies its bytes on
 * the serving thread (undici's extractBody): ~80-160 ms for a 205 MiB answer, during which no
 * node agent's poll is answered. Slices of 1 MiB also let the socket's backpressure pace it.
 */
export function answerBody(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const end = Math.min(bytes.length, at + ANSWER_SLICE_BYTES);
      controller.enqueue(bytes.subarray(at, end));
      at = end;
    },
  });
}

/** The middleware that sends compute routes to `options.run`, registered before the routes themselves. */
/** `wrote(cluster)`: a request that may have changed a stored cluster has been answered. */
export function offloadRoutes(app: OpenAPIHono<AppEnv>, options: OffloadOptions, metrics: Metrics, wrote: (cluster: string) => void): void {
  // Identical concurrent requests (20 agents or pipelines PUTting the same version) compute once;
  // the work stops only when every client waiting for it has gone.
  const inFlight = new Map<string, { answer: Promise<WireResponse>; waiting: number; stop: AbortController }>();
  for (const route of COMPUTE_ROUTES) {
    if (route.stored && !options.storeRoutes) continue;
    const handler: MiddlewareHandler<AppEnv> = async (c, next) => {
      if (route.when && !(await route.when(c))) return next();
      const read = c.req.method === 'GET' ? null : await readDigested(c.req.raw, options.digest());
      const body = read?.bytes ?? null;
      const headers = [...c.req.raw.headers].filter(([k]) => k !== 'content-length');
      const req: WireRequest = { method: c.req.method, url: c.req.url, headers, body };
      const key = `${req.method} ${req.url}\n${ANSWER_HEADERS.map((h) => c.req.header(h) ?? '').join('\n')}\n${read?.digest ?? ''}`;
      let shared = inFlight.get(key);
      if (!shared) {
        const stop = new AbortController();
        const answer = options.run(req, route.stored ? (c.req.param('cluster') ?? null) : null, stop.signal).finally(() => inFlight.delete(key));
        inFlight.set(key, (shared = { answer, waiting: 0, stop }));
        void answer.then((res) => record(metrics, res.observations), () => undefined);
      }
      const mine = shared;
      mine.waiting++;
      const leave = () => --mine.waiting === 0 && mine.stop.abort();
      c.req.raw.signal.addEventListener('abort', leave, { once: true });
      const answer = mine.answer;
      const res = await answer.finally(() => c.req.raw.signal.removeEventListener('abort', leave));
      const cluster = c.req.param('cluster');
      if (cluster && c.req.method !== 'GET') wrote(cluster);
      return new Response(res.status === 204 || res.status === 304 || res.body.length === 0 ? null : answerBody(res.body), { status: res.status, headers: res.headers as [string, string][] });
    };
    app.on(route.method, route.path, handler);
  }
}

/**
 * A body's bytes and digest, read as it arrives: each chunk copied into place and hashed on
 * arrival. Read whole, then hashed, a 57 MiB body held the serving thread ~70 ms at its end
 * (the copy and the hash, ~35 ms each), and every poll with it. The size the request declared
 * is allocated once; a body without one (or larger) grows as it comes.
 */
async function readDigested(raw: Request, digest: BodyDigest): Promise<{ readonly bytes: Uint8Array; readonly digest: string }> {
  const declared = Number(raw.headers.get('content-length') ?? Number.NaN);
  let bytes = new Uint8Array(Number.isSafeInteger(declared) && declared >= 0 ? declared : 0);
  let size = 0;
  if (raw.body) {
    for await (const chunk of raw.body as unknown as AsyncIterable<Uint8Array>) {
      if (size + chunk.length > bytes.length) {
        const grown = new Uint8Array(Math.max(size + chunk.length, bytes.length * 2));
        grown.set(bytes.subarray(0, size));
        bytes = grown;
      }
      bytes.set(chunk, size);
      size += chunk.length;
      digest.update(chunk);
    }
  }
  return { bytes: size === bytes.length ? bytes : bytes.slice(0, size), digest: digest.hex() };
}

function record(metrics: Metrics, observations: readonly Observation[]): void {
  for (const [name, value, labels] of observations) {
    if (name === 'storeErrors') metrics.storeErrors.inc(labels, value);
    else metrics[name].observe(value, labels);
  }
}
