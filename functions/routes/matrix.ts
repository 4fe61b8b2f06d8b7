// POST /v1/matrix: all-pairs truth tables, like the upstream e2e reachability matrices.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { findEndpoint, matrix } from '../../core/evaluate/index.js';
import { compileSelector } from '../../schemas/k8s/label-selector.js';
import type { Cluster } from '../../core/cluster.js';
import { warningMessages } from '../../core/warnings.js';
import { API_LIMITS, ErrorSchema, MatrixRequestSchema, MatrixResponseSchema, type MatrixRequest } from '../../schemas/api/verdicts.js';
import { invalid } from '../errors.js';
import { clusterFrom, isLenient, readRequest } from '../request.js';
import { errorResponses, jsonBody, LenientQuery } from './openapi-helpers.js';

export function matrixRoutes(app: OpenAPIHono): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/matrix',
    summary: 'All-pairs truth table of pods for the given ports and protocols',
    description: `Rows are sources, columns destinations. Host-network pods are left out (they are not policy subjects). At most ${API_LIMITS.matrixCells.toLocaleString('en')} cells (pods² × ports) per request; filter pods with \`pods\`.`,
    request: { body: jsonBody(MatrixRequestSchema), query: LenientQuery },
    responses: { 200: { description: 'one table per port/protocol', content: { 'application/json': { schema: MatrixResponseSchema } } }, ...errorResponses(ErrorSchema) },
  });

  app.post('/v1/matrix', async (c) => {
    const req = await readRequest(c, MatrixRequestSchema);
    return c.json(answerMatrix(clusterFrom(req.snapshot, '$.snapshot', isLenient(c)), req));
  });
}

/** The matrix body for any cluster (sent or stored). */
export function answerMatrix(cluster: Cluster, req: Omit<MatrixRequest, 'snapshot'>) {
  const filter = req.pods;
  // Names as clients write them: `ns/pod`, or a workload in any of kubectl's spellings.
  const names = filter?.names ? new Set(filter.names.map((n) => findEndpoint(cluster, n)?.key ?? n)) : null;
  const selector = filter?.selector ? compileSelector(filter.selector) : null;
  const pods = cluster.pods.filter(
    (p) =>
      !p.hostNetwork &&
      (!filter?.namespaces || filter.namespaces.includes(p.namespace)) &&
      (!names || names.has(p.key)) &&
      (!selector || selector.matches(p.labels)),
  );
  const cells = pods.length * pods.length * req.ports.length;
  if (cells > API_LIMITS.matrixCells) {
    throw invalid([{ path: '$.pods', message: `${pods.length} pods × ${pods.length} × ${req.ports.length} ports = ${cells} cells, over the limit of ${API_LIMITS.matrixCells}; narrow the pods` }]);
  }
  const family = req.ipFamily === 'IPv4' ? 4 : req.ipFamily === 'IPv6' ? 6 : null;
  const results = matrix(cluster, pods, req.ports, family);
  return { pods: pods.map((p) => p.key), results, warnings: warningMessages(cluster.warnings) };
}
