// POST /v1/clusters/{cluster}/verdicts and …/matrix: the stateless requests minus the snapshot,
// answered from a stored version (?version=, latest by default).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { ErrorSchema, MatrixResponseSchema, StoredMatrixRequestSchema, StoredVerdictsRequestSchema, VerdictsResponseSchema } from '../../schemas/api/verdicts.js';
import { requireAccess, type AccessPolicy } from '../access/check.js';
import { ApiError } from '../errors.js';
import { readRequest } from '../request.js';
import type { LoadStored } from './ask.js';
import { ACCESS_RESPONSES } from './clusters.js';
import { answerMatrix } from './matrix.js';
import { errorResponses, jsonBody } from './openapi-helpers.js';
import { answerVerdicts } from './verdicts.js';

const request = (body: z.ZodTypeAny) => ({
  params: z.object({ cluster: z.string() }),
  query: z.object({ version: z.string().optional().openapi({ description: 'a stored resourceVersion; the latest by default' }) }),
  body: jsonBody(body),
});
const storedResponses = { ...ACCESS_RESPONSES, 404: { description: 'no such cluster or version' }, 503: { description: 'no store configured, or no tokens on a serverless deployment' } };

export function clusterQueryRoutes(app: OpenAPIHono, access: AccessPolicy, load: LoadStored | null): void {
  const stored = (c: Context) => {
    if (!load) throw new ApiError('unavailable', 'no snapshot store is configured for this deployment');
    return load(c.req.param('cluster')!, c.req.query('version'));
  };
  const read = requireAccess(access, (c) => ({ access: 'read', cluster: c.req.param('cluster')! }));
  // The version answered goes in a header, so the bodies stay those of /v1/verdicts and /v1/matrix.
  const versionHeader = (version: string) => ({ 'x-netpolc-version': version });

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/clusters/{cluster}/verdicts',
    summary: 'Verdicts against a stored version: the /v1/verdicts body without the snapshot',
    request: request(StoredVerdictsRequestSchema),
    responses: { 200: { description: 'verdicts in request order; x-netpolc-version names the version', content: { 'application/json': { schema: VerdictsResponseSchema } } }, ...errorResponses(ErrorSchema), ...storedResponses },
  });
  app.post('/v1/clusters/:cluster/verdicts', read, async (c) => {
    // The body first: a malformed request is the client's to fix even when the cluster is unknown.
    const req = await readRequest(c, StoredVerdictsRequestSchema);
    const { cluster, version } = await stored(c);
    return c.json(answerVerdicts(cluster, req.flows), 200, versionHeader(version));
  });

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/clusters/{cluster}/matrix',
    summary: 'All-pairs truth table of a stored version: the /v1/matrix body without the snapshot',
    request: request(StoredMatrixRequestSchema),
    responses: { 200: { description: 'one table per port/protocol; x-netpolc-version names the version', content: { 'application/json': { schema: MatrixResponseSchema } } }, ...errorResponses(ErrorSchema), ...storedResponses },
  });
  app.post('/v1/clusters/:cluster/matrix', read, async (c) => {
    const req = await readRequest(c, StoredMatrixRequestSchema);
    const { cluster, version } = await stored(c);
    return c.json(answerMatrix(cluster, req), 200, versionHeader(version));
  });
}
