// Shared request plumbing: body → validated request → cluster. Every failure becomes an
// ApiError with JSON paths; nothing here knows about a particular route.
import type { Context, MiddlewareHandler } from 'hono';
import type { z } from 'zod';
import { buildCluster, noEndpoints, type Cluster } from '../core/cluster.js';
import { formatPath, parseSnapshot, type ParseOptions, type ValidationIssue } from '../schemas/snapshot.js';
import { leftOutDocuments, parseBody } from './body.js';
import { ApiError, invalid } from './errors.js';
import { FLAG_MESSAGE, isFlag } from './openapi.js';

/**
 * The body read as JSON or YAML (body.ts), its text not kept: hono keeps what c.req.text() read
 * for later readers, and nothing here reads a body twice. An L snapshot is 145 MB of text: kept,
 * it (and the request's parsed JSON, when a caller's frame holds it) would stay live through the
 * compile, and a compute thread near its heap budget spends its time in garbage collection.
 */
export async function readBody(c: Context, lenient = false): Promise<unknown> {
  const text = await c.req.text();
  delete c.req.bodyCache.text;
  return parseBody(text, c.req.header('content-type'), lenient);
}

export async function readRequest<S extends z.ZodTypeAny>(c: Context, schema: S): Promise<z.infer<S>> {
  return checkRequest(schema, await readBody(c, isLenient(c)));
}

/** A request body checked against its schema: a 422 listing each problem at its JSON path. */
export function checkRequest<S extends z.ZodTypeAny>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i: z.core.$ZodIssue): ValidationIssue => ({ path: formatPath('$', i.path), message: i.message })));
  return parsed.data;
}

/**
 * A request that carries a snapshot: the request without it, and the snapshot built into a
 * cluster. The snapshot's parsed JSON lives only in this frame (see readBody).
 */
export async function readClusterRequest<S extends z.ZodType<{ snapshot?: unknown }>>(c: Context, schema: S): Promise<{ req: Omit<z.infer<S>, 'snapshot'>; cluster: Cluster }> {
  const { snapshot, ...req } = await readRequest(c, schema);
  return { req, cluster: clusterFrom(snapshot, '$.snapshot', isLenient(c)) };
}

/** `?lenient=true`: invalid objects and YAML documents are left out and listed in `warnings`, not a 422/400. */
export function isLenient(c: Context): boolean {
  return queryFlag(c, 'lenient') ?? false;
}

/** A boolean query parameter (openapi.ts FLAGS): undefined when absent, a 422 at `$.query.<name>` unless exactly true or false. */
export function queryFlag(c: Context, name: string): boolean | undefined {
  const v = c.req.query(name);
  if (v === undefined) return undefined;
  if (!isFlag(v)) throw invalid([{ path: `$.query.${name}`, message: FLAG_MESSAGE }]);
  return v === 'true';
}

/** Parse options of a snapshot of the request: lenient, with the YAML documents the body left out. */
export function parseOptions(snapshot: unknown, lenient: boolean): ParseOptions {
  const broken = typeof snapshot === 'object' && snapshot !== null ? leftOutDocuments.get(snapshot) : undefined;
  return { lenient, leftOut: broken ?? [] };
}

export function clusterFrom(snapshot: unknown, base = '$.snapshot', lenient = false): Cluster {
  if (snapshot === undefined) throw invalid([{ path: base, message: 'a snapshot is required' }]);
  const parsed = parseSnapshot(snapshot, base, parseOptions(snapshot, lenient));
  if (!parsed.ok) throw invalid(parsed.issues);
  const cluster = buildCluster(parsed.snapshot);
  const empty = noEndpoints(parsed.snapshot, cluster);
  if (empty) throw invalid([{ path: base, message: empty }]);
  return cluster;
}

/**
 * Path parameters are UTF-8, percent-encoded. A segment that does not decode (`%FF`, `%E2%82`,
 * `%G1`) is a 400: read literally it would name another cluster, version or node than the one
 * the client meant (and equal the well-encoded `%25FF`).
 */
export const wellEncodedPath: MiddlewareHandler = async (c, next) => {
  for (const segment of new URL(c.req.url).pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      throw new ApiError('bad_request', `malformed percent-encoding in the path: ${JSON.stringify(segment)} (path parameters are UTF-8, percent-encoded: a literal % is %25)`);
    }
  }
  await next();
};
