// POST /v1/matrix: all-pairs truth tables, like the upstream e2e reachability matrices.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { API_LIMITS, MatrixRequestSchema, MatrixResponseSchema } from '../../schemas/api/verdicts.js';
import type { AppEnv } from '../context.js';
import { bodyErrorResponses, json, LenientQuery, requestBody } from '../openapi.js';
import { readClusterRequest } from '../request.js';
import { answerMatrix } from '../services/answers.js';

export function matrixRoutes(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    method: 'post',
    path: '/v1/matrix',
    summary: 'All-pairs truth table of pods for the given ports and protocols',
    description: `Rows are sources, columns destinations. Host-network pods are left out (they are not policy subjects). At most ${API_LIMITS.matrixCells.toLocaleString('en')} cells (pods² × ports) per request; filter pods with \`pods\`.`,
    request: { body: requestBody(app, 'MatrixRequest', MatrixRequestSchema), query: LenientQuery },
    responses: { 200: json('one table per port/protocol', MatrixResponseSchema), ...bodyErrorResponses() },
  });
  app.openapi(route, async (c) => {
    const { req, cluster } = await readClusterRequest(c, MatrixRequestSchema);
    return c.json(answerMatrix(cluster, req), 200);
  });
}
