// POST /v1/lint: policy lints of a snapshot, each finding with its object, the JSON path into
// the request and a one-line fix.
import type { OpenAPIHono } from '@hono/zod-openapi';
import { buildCluster } from '../../core/cluster.js';
import { lint, LINTS, type Finding } from '../../core/lint/index.js';
import { warningMessages } from '../../core/warnings.js';
import { LintRequestSchema, LintResponseSchema } from '../../schemas/api/preview.js';
import { ErrorSchema } from '../../schemas/api/verdicts.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { invalid } from '../errors.js';
import { isLenient, parseOptions, readRequest } from '../request.js';
import { errorResponses, jsonBody, LenientQuery } from './openapi-helpers.js';

/** The API's finding: `path` points into the request, `pathInObject` into the object. */
export function apiFinding(f: Finding) {
  const { snapshotPath, path, ...rest } = f;
  return { ...rest, path: snapshotPath ?? path, pathInObject: path };
}

export function lintRoutes(app: OpenAPIHono): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/lint',
    summary: 'Policy lints: conflicts, shadowed and redundant rules, policies selecting nothing, …',
    description: `Findings, errors first: ${LINTS.map((l) => `\`${l.code}\` (${l.severities.join('/')}; ${l.precision})`).join(', ')}.`,
    request: { body: jsonBody(LintRequestSchema), query: LenientQuery },
    responses: { 200: { description: 'findings with severity, object, JSON path and fix hint', content: { 'application/json': { schema: LintResponseSchema } } }, ...errorResponses(ErrorSchema) },
  });

  app.post('/v1/lint', async (c) => {
    const req = await readRequest(c, LintRequestSchema);
    const parsed = parseSnapshot(req.snapshot, '$.snapshot', parseOptions(req.snapshot, isLenient(c)));
    if (!parsed.ok) throw invalid(parsed.issues);
    const cluster = buildCluster(parsed.snapshot);
    const findings = lint(cluster, { objectPaths: parsed.snapshot.paths });
    const count = (s: Finding['severity']) => findings.filter((f) => f.severity === s).length;
    return c.json({ findings: findings.map(apiFinding), counts: { error: count('error'), warning: count('warning'), info: count('info') }, warnings: warningMessages(cluster.warnings) });
  });
}
