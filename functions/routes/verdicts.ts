// POST /v1/verdicts: can A reach B, and why.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { FlowError, verdictFor } from '../../core/evaluate/index.js';
import type { Cluster } from '../../core/cluster.js';
import { warningMessages } from '../../core/warnings.js';
import { ErrorSchema, VerdictsRequestSchema, VerdictsResponseSchema, type FlowRequest } from '../../schemas/api/verdicts.js';
import type { ValidationIssue } from '../../schemas/snapshot.js';
import { invalid } from '../errors.js';
import { clusterFrom, isLenient, readRequest } from '../request.js';
import { errorResponses, jsonBody, LenientQuery } from './openapi-helpers.js';

export function verdictRoutes(app: OpenAPIHono): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/verdicts',
    summary: 'Can A reach B on port/protocol, with the decision chain of both sides',
    description:
      'Each side is evaluated through the tiers Admin (AdminNetworkPolicy, Admin-tier ClusterNetworkPolicy) → NetworkPolicy → Baseline (BaselineAdminNetworkPolicy, Baseline-tier ClusterNetworkPolicy) → default allow. A flow is allowed iff the egress side of the source and the ingress side of the destination allow it. Bodies may be JSON or YAML (application/yaml, multi-document).',
    request: { body: jsonBody(VerdictsRequestSchema), query: LenientQuery },
    responses: { 200: { description: 'verdicts in request order', content: { 'application/json': { schema: VerdictsResponseSchema } } }, ...errorResponses(ErrorSchema) },
  });

  app.post('/v1/verdicts', async (c) => {
    const req = await readRequest(c, VerdictsRequestSchema);
    return c.json(answerVerdicts(clusterFrom(req.snapshot, '$.snapshot', isLenient(c)), req.flows));
  });
}

/** The verdicts body for any cluster (sent or stored); unknown names are 422s on $.flows[i]. */
export function answerVerdicts(cluster: Cluster, requested: readonly FlowRequest[]) {
  const issues: ValidationIssue[] = [];
  const verdicts = requested.map((f, i) => {
    try {
      return verdictFor(cluster, f);
    } catch (e) {
      if (!(e instanceof FlowError)) throw e;
      issues.push({ path: `$.flows[${i}].${e.field}`, message: e.message });
      return null;
    }
  });
  if (issues.length > 0) throw invalid(issues);
  return { verdicts, warnings: warningMessages(cluster.warnings) };
}
