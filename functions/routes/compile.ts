// POST /v1/compile: per-node rule tables (IR) or a rendered dataplane format.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { compile } from '../../core/compile/compile.js';
import type { Sha256Hex } from '../../core/compile/table-id.js';
import { DATAPLANES } from '../../core/render/index.js';
import { CompileRequestSchema, CompileResponseSchema } from '../../schemas/api/compile.js';
import { ErrorSchema } from '../../schemas/api/verdicts.js';
import { RenderLimitError } from '../../core/render/vpp-session.js';
import { ApiError, invalid } from '../errors.js';
import { clusterFrom, isLenient, readRequest } from '../request.js';
import { errorResponses, jsonBody, LenientQuery } from './openapi-helpers.js';

export function compileRoutes(app: OpenAPIHono, sha256Hex?: Sha256Hex): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/compile',
    summary: 'Per-node compiled rule tables, as IR or rendered for a dataplane',
    description:
      'Every pod gets an ingress table (traffic arriving at it) and an egress table (traffic leaving it): ordered first-match 6-tuple rules ending with a catch-all, content-addressed and shared by pods with identical rules. The tables equal the verdict engine (property-tested on random snapshots).',
    request: { body: jsonBody(CompileRequestSchema), query: LenientQuery },
    responses: { 200: { description: 'compiled nodes', content: { 'application/json': { schema: CompileResponseSchema } } }, ...errorResponses(ErrorSchema) },
  });

  app.post('/v1/compile', async (c) => {
    const req = await readRequest(c, CompileRequestSchema);
    const cluster = clusterFrom(req.snapshot, '$.snapshot', isLenient(c));
    const { ir, stats } = compile(cluster, { ...(req.nodes ? { nodes: req.nodes } : {}), ...(sha256Hex ? { sha256Hex } : {}) });
    if (req.format === 'ir') return c.json({ format: req.format, nodes: ir.nodes, stats, warnings: cluster.warnings });
    const dataplane = DATAPLANES[req.format];
    if (!dataplane) throw new ApiError('invalid', `format "${req.format}" is not available in this build`);
    let nodes: Record<string, unknown>;
    try {
      nodes = dataplane.render(ir);
    } catch (e) {
      // A format that cannot express this snapshot within its limits: the client's choice to change.
      if (e instanceof RenderLimitError) throw invalid([{ path: '$.format', message: e.message }]);
      throw e;
    }
    return c.json({ format: req.format, nodes, stats, warnings: cluster.warnings });
  });
}
