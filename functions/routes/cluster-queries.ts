// POST /v1/clusters/{cluster}/verdicts and …/matrix: the stateless requests minus the snapshot,
// answered from a stored version (?version=, latest by default).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { MatrixResponseSchema, StoredMatrixRequestSchema, StoredVerdictsRequestSchema, VerdictsResponseSchema } from '../../schemas/api/verdicts.js';
import { requireAccess } from '../access/check.js';
import type { AppEnv } from '../context.js';
import { ACCESS_RESPONSES, bodyErrorResponses, ClusterParams, errorResponse, json, jsonBody, requestBody, storedVersionQuery } from '../openapi.js';
import { readRequest } from '../request.js';
import { answerMatrix, answerStored, answerVerdicts } from '../services/answers.js';

const VersionQuery = z.object({ version: storedVersionQuery('a stored resourceVersion; the latest by default') });
const storedResponses = { ...ACCESS_RESPONSES, 404: errorResponse('no such cluster or version'), 503: errorResponse('no store configured, no tokens on a serverless deployment, or overloaded (retry after Retry-After seconds)') };
const read = requireAccess((c) => ({ access: 'read', cluster: c.req.param('cluster')! }));

/** The route of a stateless request minus the snapshot, answered from a stored version. */
const storedQueryRoute = <R extends z.ZodType>(name: 'verdicts' | 'matrix', summary: string, body: ReturnType<typeof requestBody>, description: string, response: R) =>
  createRoute({
    method: 'post',
    path: `/v1/clusters/{cluster}/${name}`,
    summary,
    middleware: [read] as const,
    request: { params: ClusterParams, query: VersionQuery, body },
    // The version answered goes in a header, so the bodies stay those of /v1/verdicts and /v1/matrix.
    responses: { 200: json(`${description}; x-netpolc-version names the version`, response), ...bodyErrorResponses(), ...storedResponses },
  });

export function clusterQueryRoutes(app: OpenAPIHono<AppEnv>): void {
  const verdicts = storedQueryRoute('verdicts', 'Verdicts against a stored version: the /v1/verdicts body without the snapshot', requestBody(app, 'StoredVerdictsRequest', StoredVerdictsRequestSchema), 'verdicts in request order', VerdictsResponseSchema);
  app.openapi(verdicts, async (c) => {
    // The body first: a malformed request is the client's to fix even when the cluster is unknown.
    const req = await readRequest(c, StoredVerdictsRequestSchema);
    const { version, body } = await answerStored(c.get('services').clusters, c.req.valid('param').cluster, c.req.valid('query').version, (cluster) => answerVerdicts(cluster, req.flows));
    return c.json(jsonBody(body), 200, { 'x-netpolc-version': version });
  });

  const matrix = storedQueryRoute('matrix', 'All-pairs truth table of a stored version: the /v1/matrix body without the snapshot', requestBody(app, 'StoredMatrixRequest', StoredMatrixRequestSchema), 'one table per port/protocol', MatrixResponseSchema);
  app.openapi(matrix, async (c) => {
    const req = await readRequest(c, StoredMatrixRequestSchema);
    const { version, body } = await answerStored(c.get('services').clusters, c.req.valid('param').cluster, c.req.valid('query').version, (cluster) => answerMatrix(cluster, req));
    return c.json(jsonBody(body), 200, { 'x-netpolc-version': version });
  });
}
