// POST /v1/verdicts: can A reach B, and why.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { VerdictsRequestSchema, VerdictsResponseSchema } from '../../schemas/api/verdicts.js';
import type { AppEnv } from '../context.js';
import { bodyErrorResponses, json, jsonBody, LenientQuery, requestBody } from '../openapi.js';
import { readClusterRequest } from '../request.js';
import { answerVerdicts } from '../services/answers.js';

export function verdictRoutes(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    method: 'post',
    path: '/v1/verdicts',
    summary: 'Can A reach B on port/protocol, with the decision chain of both sides',
    description:
      'Each side is evaluated through the tiers Admin (AdminNetworkPolicy, Admin-tier ClusterNetworkPolicy) → NetworkPolicy → Baseline (BaselineAdminNetworkPolicy, Baseline-tier ClusterNetworkPolicy) → default allow. A flow is allowed iff the egress side of the source and the ingress side of the destination allow it. Bodies may be JSON or YAML (application/yaml, multi-document).',
    request: { body: requestBody(app, 'VerdictsRequest', VerdictsRequestSchema), query: LenientQuery },
    responses: { 200: json('verdicts in request order', VerdictsResponseSchema), ...bodyErrorResponses() },
  });
  app.openapi(route, async (c) => {
    const { req, cluster } = await readClusterRequest(c, VerdictsRequestSchema);
    return c.json(jsonBody(answerVerdicts(cluster, req.flows)), 200);
  });
}
