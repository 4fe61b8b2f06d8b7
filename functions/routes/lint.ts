// POST /v1/lint: policy lints of a snapshot, each finding with its object, the JSON path into
// the request and a one-line fix.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { buildCluster } from '../../core/cluster.js';
import { LINT_LIMITS, lintRun, LINTS, type Finding } from '../../core/lint/index.js';
import { warningMessages } from '../../core/warnings.js';
import { LintRequestSchema, LintResponseSchema } from '../../schemas/api/preview.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import type { AppEnv } from '../context.js';
import { invalid } from '../errors.js';
import { apiFinding } from '../findings.js';
import { bodyErrorResponses, json, LenientQuery, requestBody } from '../openapi.js';
import { isLenient, parseOptions, readRequest } from '../request.js';

export function lintRoutes(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    method: 'post',
    path: '/v1/lint',
    summary: 'Policy lints: conflicts, shadowed and redundant rules, policies selecting nothing, …',
    description: `Findings, errors first: ${LINTS.map((l) => `\`${l.code}\` (${l.severities.join('/')}; ${l.precision})`).join(', ')}. Budgets: a question (one rule's cells) visits at most ${LINT_LIMITS.pairsPerQuestion.toLocaleString('en-US')} subject–peer pairs and holds at most ${LINT_LIMITS.cellsPerQuestion.toLocaleString('en-US')} cells; a run takes at most ${LINT_LIMITS.stepsPerRun.toLocaleString('en-US')} steps. Questions over them are counted in \`unchecked\`, never guessed.`,
    request: { body: requestBody(app, 'LintRequest', LintRequestSchema), query: LenientQuery },
    responses: { 200: json('findings with severity, object, JSON path and fix hint', LintResponseSchema), ...bodyErrorResponses() },
  });
  app.openapi(route, async (c) => {
    const req = await readRequest(c, LintRequestSchema);
    const parsed = parseSnapshot(req.snapshot, '$.snapshot', parseOptions(req.snapshot, isLenient(c)));
    if (!parsed.ok) throw invalid(parsed.issues);
    const cluster = buildCluster(parsed.snapshot);
    const { findings, unchecked } = lintRun(cluster, { objectPaths: parsed.snapshot.paths });
    const count = (s: Finding['severity']) => findings.filter((f) => f.severity === s).length;
    return c.json({ findings: findings.map(apiFinding), unchecked, counts: { error: count('error'), warning: count('warning'), info: count('info') }, warnings: warningMessages(cluster.warnings) }, 200);
  });
}
