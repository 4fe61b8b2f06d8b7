// POST /v1/clusters/{cluster}/verdicts and …/matrix: the stateless requests minus the snapshot,
// answered from a stored version (?version=, latest by default).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Cluster } from '../../core/cluster.js';
import { z } from '@hono/zod-openapi';
import { ErrorSchema, MatrixResponseSchema, StoredMatrixRequestSchema, StoredVerdictsRequestSchema, VerdictsResponseSchema } from '../../schemas/api/verdicts.js';
import { requireAccess, type AccessPolicy } from '../access/check.js';
import { ApiError } from '../errors.js';
import { readRequest } from '../request.js';
import type { LoadStored } from './ask.js';
import { ACCESS_RESPONSES } from './clusters.js';
import { answerMatrix } from './matrix.js';
import { errorResponse, errorResponses, jsonBody } from './openapi-helpers.js';
import { answerVerdicts } from './verdicts.js';

const request = (body: z.ZodTypeAny) => ({
  params: z.object({ cluster: z.string() }),
  query: z.object({ version: z.string().optional().openapi({ description: 'a stored resourceVersion; the latest by default' }) }),
  body: jsonBody(body),
});
const storedResponses = { ...ACCESS_RESPONSES, 404: errorResponse('no such cluster or version'), 503: errorResponse('no store configured, no tokens on a serverless deployment, or overloaded (retry after Retry-After seconds)') };

export function clusterQueryRoutes(app: OpenAPIHono, access: AccessPolicy, load: LoadStored | null): void {
  const stored = (c: Context) => {
    if (!load) throw new ApiError('unavailable', 'no snapshot store is configured for this deployment');
    return load(c.req.param('cluster')!, c.req.query('version'));
  };
  const read = requireAccess(access, (c) => ({ access: 'read', cluster: c.req.param('cluster')! }));
  // The version answered goes in a header, so the bodies stay those of /v1/verdicts and /v1/matrix.
  const versionHeader = (version: string) => ({ 'x-netpolc-version': version });

  /** A stateless route's request minus the snapshot, answered from a stored version. */
  const storedRoute = <Req>(route: { name: string; summary: string; description: string; body: z.ZodType<Req>; response: z.ZodTypeAny; answer: (cluster: Cluster, req: Req) => unknown }) => {
    app.openAPIRegistry.registerPath({
      method: 'post',
      path: `/v1/clusters/{cluster}/${route.name}`,
      summary: route.summary,
      request: request(route.body),
      responses: { 200: { description: `${route.description}; x-netpolc-version names the version`, content: { 'application/json': { schema: route.response } } }, ...errorResponses(ErrorSchema), ...storedResponses },
    });
    app.post(`/v1/clusters/:cluster/${route.name}`, read, async (c) => {
      // The body first: a malformed request is the client's to fix even when the cluster is unknown.
      const req = await readRequest(c, route.body);
      const { cluster, version } = await stored(c);
      return c.json(route.answer(cluster, req) as object, 200, versionHeader(version));
    });
  };

  storedRoute({
    name: 'verdicts',
    summary: 'Verdicts against a stored version: the /v1/verdicts body without the snapshot',
    description: 'verdicts in request order',
    body: StoredVerdictsRequestSchema,
    response: VerdictsResponseSchema,
    answer: (cluster, req) => answerVerdicts(cluster, req.flows),
  });
  storedRoute({
    name: 'matrix',
    summary: 'All-pairs truth table of a stored version: the /v1/matrix body without the snapshot',
    description: 'one table per port/protocol',
    body: StoredMatrixRequestSchema,
    response: MatrixResponseSchema,
    answer: answerMatrix,
  });
}
