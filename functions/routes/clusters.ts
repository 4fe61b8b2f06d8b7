// /v1/clusters/{cluster}/snapshots…, …/latest and /v1/store/collect: compiled snapshots kept per
// resourceVersion, latest being the one published last (or rolled back to). Node tables are in
// node-tables.ts.
import type { Context } from 'hono';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ClusterErrorSchema, CollectResultSchema, LatestMovedSchema, PublishResponseSchema, VersionHeaderSchema, VersionPageSchema } from '../../schemas/api/clusters.js';
import { VersionFromChangesSchema } from '../../schemas/api/versions.js';
import { requireAccess } from '../access/check.js';
import { API_LIMITS } from '../../schemas/api/verdicts.js';
import { parseBody, routeBodyLimit } from '../body.js';
import { storeRequired, type AppEnv } from '../context.js';
import { checkRequest, readBody, readRequest } from '../request.js';
import { ACCESS_RESPONSES, ClusterParams, errorResponse, json, jsonBody, queryValue, requestBody, VersionParams } from '../openapi.js';
import { LATEST_ORDERS, latestConditions } from '../services/latest-conditions.js';

const COMMON = {
  ...ACCESS_RESPONSES,
  404: errorResponse('unknown cluster, version or node'),
  422: errorResponse('invalid snapshot or parameters: `issues` lists each with its JSON path'),
  503: errorResponse('no store configured, the store failed, or no tokens on a serverless deployment'),
};
// Routes that read a body: PUT/POST snapshots, PUT latest.
const BODY_ERRORS = {
  400: errorResponse('malformed JSON or YAML, or a malformed If-Match / If-None-Match'),
  413: errorResponse('body over the size limit (MAX_BODY_BYTES), or the request over its time or memory budget on the Node server (`budget`)'),
  415: errorResponse('content-type other than JSON or YAML'),
};
const WRITE_RESPONSES = {
  200: json('stored before (unchanged)', PublishResponseSchema),
  201: json('stored; latest unless a condition failed', PublishResponseSchema),
  ...BODY_ERRORS,
  409: errorResponse('same version, other content; order=numeric not met (names latest); base of changes not stored or not latest (names latest)', ClusterErrorSchema),
  412: errorResponse('If-Match / If-None-Match did not hold (names latest; `stored: true` when the version was stored before the check at the move failed)', ClusterErrorSchema),
};
// Conditions on the latest version (services/latest-conditions.ts).
const GUARDS = {
  headers: z.object({
    'If-Match': z.string().optional().openapi({ description: 'publish only if the latest version is this one ("<rv>"), or any (*)' }),
    'If-None-Match': z.string().optional().openapi({ description: '*: publish only into a cluster without a version' }),
  }),
  query: z.object({
    order: queryValue(z.enum(LATEST_ORDERS, { error: 'publish (the default: latest is the version published last) or numeric' }))
      .optional()
      .openapi({ description: 'numeric: move latest only to a greater integer version (409 otherwise); publish (default): the version published last is latest' }),
  }),
};
const SnapshotBody = z.unknown().openapi({ description: 'a snapshot: a Kubernetes List, {"items": [...]} or an array of objects, as `kubectl get … -o json` prints them' });

// Write a cluster; read it (write implies read).
const write = requireAccess((c) => ({ access: 'write', cluster: c.req.param('cluster')! }));
const read = requireAccess((c) => ({ access: 'read', cluster: c.req.param('cluster')! }));

/** A Worker's waitUntil, which keeps work after the answer alive; null without an execution context (not a Worker). */
function waitUntil(c: Context): ((work: Promise<unknown>) => void) | null {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return null;
  }
}

export function clusterRoutes(app: OpenAPIHono<AppEnv>): void {
  const put = createRoute({
    method: 'put',
    path: '/v1/clusters/{cluster}/snapshots/{version}',
    summary: 'Compile and store a snapshot as this resourceVersion; it becomes latest (the version published last). Idempotent; 409 for other content. The body is a whole snapshot, or {base, changes: {apply, delete}}: changes on a stored version, as a watcher sees them (409 naming the latest version when base is not stored)',
    // The store before the query: a deployment without one answers 503 to any publish.
    middleware: [write, storeRequired] as const,
    request: { params: VersionParams, ...GUARDS, body: requestBody(app, 'VersionBody', z.union([VersionFromChangesSchema, SnapshotBody])) },
    responses: { ...COMMON, ...WRITE_RESPONSES },
  });
  app.openapi(put, async (c) => {
    const { cluster, version } = c.req.valid('param');
    const headers = c.req.valid('header');
    const conditions = latestConditions(headers['If-Match'], headers['If-None-Match'], c.req.valid('query').order);
    const published = await c.get('services').publisher.publish({ cluster, versionFromPath: version, conditions, body: () => readBody(c), waitUntil: waitUntil(c) });
    return c.json(jsonBody(published.body), published.status);
  });

  const post = createRoute({
    method: 'post',
    path: '/v1/clusters/{cluster}/snapshots',
    summary: "Compile and store a snapshot under its List's metadata.resourceVersion; an empty or absent one (kubectl prints resourceVersion: \"\" on Lists) gives a version derived from the content (versionDerived: true)",
    middleware: [write, storeRequired] as const,
    request: { params: ClusterParams, ...GUARDS, body: requestBody(app, 'Snapshot', SnapshotBody) },
    responses: { ...COMMON, ...WRITE_RESPONSES },
  });
  app.openapi(post, async (c) => {
    const headers = c.req.valid('header');
    const conditions = latestConditions(headers['If-Match'], headers['If-None-Match'], c.req.valid('query').order);
    const published = await c.get('services').publisher.publish({ cluster: c.req.valid('param').cluster, versionFromPath: null, conditions, body: () => readBody(c), waitUntil: waitUntil(c) });
    return c.json(jsonBody(published.body), published.status);
  });

  const list = createRoute({
    method: 'get',
    path: '/v1/clusters/{cluster}/snapshots',
    summary: 'Stored versions in publish order: the latest first, then the versions latest was before, most recent first (limit, cursor)',
    middleware: [read] as const,
    request: {
      params: ClusterParams,
      query: z.object({
        // Read as a number as given: the store bounds it.
        limit: queryValue(z.string()).optional().openapi({ description: 'versions per page (a positive integer)' }),
        cursor: queryValue(z.string()).optional().openapi({ description: 'the cursor of the previous page' }),
      }),
    },
    responses: { 200: json('a page of versions; an unknown cluster has none', VersionPageSchema), ...COMMON },
  });
  app.openapi(list, async (c) => {
    const { limit, cursor } = c.req.valid('query');
    return c.json(jsonBody(await c.get('services').versions.list(c.req.valid('param').cluster, { limit: limit ? Number(limit) : undefined, cursor: cursor ?? null })), 200);
  });

  const header = createRoute({
    method: 'get',
    path: '/v1/clusters/{cluster}/snapshots/{version}',
    summary: 'One stored version: nodes, object counts, compile figures, publishedAt, expiresAt',
    middleware: [read] as const,
    request: { params: VersionParams },
    responses: { 200: json("the version's header", VersionHeaderSchema), ...COMMON },
  });
  app.openapi(header, async (c) => {
    const { cluster, version } = c.req.valid('param');
    return c.json(jsonBody(await c.get('services').versions.header(cluster, version)), 200);
  });

  const remove = createRoute({
    method: 'delete',
    path: '/v1/clusters/{cluster}/snapshots/{version}',
    summary: 'Remove a stored version that is not latest: it expires at once (no longer listed or readable)',
    middleware: [write] as const,
    request: { params: VersionParams },
    responses: { 204: { description: 'removed' }, 409: errorResponse('the version is latest (`latest` names it): roll back or publish another first', ClusterErrorSchema), ...COMMON },
  });
  app.openapi(remove, async (c) => {
    const { cluster, version } = c.req.valid('param');
    await c.get('services').versions.remove(cluster, version);
    return c.body(null, 204);
  });

  const LATEST_VERSION = 'the stored version to make latest: {"version": "<resourceVersion>"}';
  const LatestBody = z.object({ version: z.string({ error: LATEST_VERSION }).min(1, LATEST_VERSION).openapi({ description: 'a stored, unexpired version' }) }).openapi({ description: `at most ${API_LIMITS.smallBodyBytes} bytes` });
  const latest = createRoute({
    method: 'put',
    path: '/v1/clusters/{cluster}/latest',
    summary: 'Make a stored, unexpired version latest on purpose (rollback), body {"version": "<rv>"}: its expiry is removed, the version it replaces expires; answers {cluster, latest, previous}',
    middleware: [write, routeBodyLimit('PUT /v1/clusters/{cluster}/latest', API_LIMITS.smallBodyBytes)] as const,
    request: { params: ClusterParams, body: requestBody(app, 'LatestRequest', LatestBody) },
    responses: { 200: json('the version now latest, and the one it replaced', LatestMovedSchema), ...BODY_ERRORS, 413: errorResponse(`body over this route's limit of ${API_LIMITS.smallBodyBytes} bytes`), 409: errorResponse('items of the version do not read back (`missing` names them)', ClusterErrorSchema), ...COMMON },
  });
  app.openapi(latest, async (c) => {
    const { version } = await readRequest(c, LatestBody);
    return c.json(jsonBody(await c.get('services').versions.makeLatest(c.req.valid('param').cluster, version)), 200);
  });

  const GRACE = 'seconds, a whole number of at least 3600';
  const CollectBody = z
    .object({ graceSeconds: z.number({ error: GRACE }).int(GRACE).min(3600, GRACE).optional().openapi({ description: 'keep unreferenced content stamped this recently (seconds; default and least 3600)' }) })
    .openapi({ description: `at most ${API_LIMITS.smallBodyBytes} bytes; may be empty` });
  const collect = createRoute({
    method: 'post',
    path: '/v1/store/collect',
    summary: 'Delete stored content (tables, set bodies, manifests, object groups) that no unexpired version of any cluster reads and that no publish wrote or relied on within the grace (body {"graceSeconds": N}, optional: default and least 3600). Scans the whole store: run it from a schedule, not per request. Needs a write token for every cluster (write:cluster=*); answers the counts (versions, marked, scanned, deleted, bytesFreed, keptYoung, …)',
    // Every cluster's content is shared: only a token that writes every cluster may collect it.
    middleware: [requireAccess(() => ({ access: 'write', cluster: '*' })), routeBodyLimit('POST /v1/store/collect', API_LIMITS.smallBodyBytes)] as const,
    request: { body: requestBody(app, 'CollectRequest', CollectBody, false) },
    responses: {
      200: json('what the collection found and deleted', CollectResultSchema),
      ...ACCESS_RESPONSES,
      400: errorResponse('malformed JSON or YAML'),
      413: errorResponse(`body over this route's limit of ${API_LIMITS.smallBodyBytes} bytes`),
      422: errorResponse('a body that is not an object, or graceSeconds below 3600 or not a whole number (`issues`: $.graceSeconds)'),
      503: errorResponse('no store configured, the store failed, a visible version that does not read back (nothing is deleted), or no tokens on a serverless deployment'),
    },
  });
  app.openapi(collect, async (c) => {
    const text = await c.req.text();
    const body = text.trim() === '' ? {} : parseBody(text, c.req.header('content-type'));
    const { graceSeconds } = checkRequest(CollectBody, body);
    return c.json(jsonBody(await c.get('services').versions.collect(graceSeconds)), 200);
  });
}
