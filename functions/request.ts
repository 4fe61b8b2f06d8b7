// Shared request plumbing: body → validated request → cluster. Every failure becomes an
// ApiError with JSON paths; nothing here knows about a particular route.
import type { Context } from 'hono';
import type { z } from 'zod';
import { buildCluster, noEndpoints, type Cluster } from '../core/cluster.js';
import { formatPath, parseSnapshot, type ParseOptions, type ValidationIssue } from '../schemas/snapshot.js';
import { leftOutDocuments, parseBody } from './body.js';
import { invalid } from './errors.js';

export async function readRequest<S extends z.ZodTypeAny>(c: Context, schema: S): Promise<z.infer<S>> {
  const body = parseBody(await c.req.text(), c.req.header('content-type'), isLenient(c));
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i: z.core.$ZodIssue): ValidationIssue => ({ path: formatPath('$', i.path), message: i.message })));
  return parsed.data;
}

/** `?lenient=true`: invalid objects and YAML documents are left out and listed in `warnings`, not a 422/400. */
export function isLenient(c: Context): boolean {
  return c.req.query('lenient') === 'true';
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
