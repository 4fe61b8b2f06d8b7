// Chat-ops: POST /v1/ask {question, snapshot | cluster[, version]} and
// GET /v1/clusters/{cluster}/ask?q=…[&version=]. One sentence plus the decision chain, as JSON or,
// when the Accept header prefers it, as plain text for a chat. A question the grammar cannot
// read is a 422 listing the accepted forms, never a 500.
import type { Context } from 'hono';
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { chainLines } from '../../core/ask/index.js';
import { warningMessages } from '../../core/warnings.js';
import { AskErrorSchema, AskRequestSchema, AskResponseSchema } from '../../schemas/api/ask.js';
import { authorize, requireAccess } from '../access/check.js';
import type { AppEnv } from '../context.js';
import { ApiError } from '../errors.js';
import { prefersText } from '../negotiate.js';
import { bodyErrorResponses, ClusterParams, errorResponse, jsonBody, LenientQuery, queryValue, requestBody, storedVersionQuery, validationHook } from '../openapi.js';
import { clusterFrom, isLenient, readRequest } from '../request.js';
import { askCluster, askStored, NO_QUESTION, type AskOutcome } from '../services/ask.js';

const responses = {
  200: { description: 'the answer', content: { 'application/json': { schema: AskResponseSchema }, 'text/plain': { schema: z.string() } } },
  422: { description: 'a question that could not be read (with `acceptedForms`), or that names a pod or port the snapshot does not have', content: { 'application/json': { schema: AskErrorSchema }, 'text/plain': { schema: z.string() } } },
};

/** The outcome as JSON or, when the Accept header prefers it, text; `path`: where the question came from ($.question or $.query.q). */
function respond(c: Context<AppEnv>, outcome: AskOutcome, path: string) {
  const text = prefersText(c.req.header('accept'));
  if (outcome.kind === 'unreadable') {
    const { message, acceptedForms } = outcome;
    if (!text) return c.json(new ApiError('invalid', message, [{ path, message }], acceptedForms ? { body: { acceptedForms } } : {}).toJSON(), 422);
    const forms = acceptedForms ? `\n\nQuestions I understand, for example:\n${acceptedForms.map((f) => `  ${f}`).join('\n')}` : '';
    return c.text(`${message}${forms}\n`, 422);
  }
  const { answer: a, stored, cluster } = outcome;
  if (text) {
    const chain = chainLines(a).map((line) => `  ${line}\n`).join('');
    return c.text(`${a.text}\n${chain}`, 200, stored ? { 'x-netpolc-version': stored.version } : {});
  }
  return c.json(jsonBody({ ...(stored ?? {}), ...a, warnings: warningMessages(cluster.warnings) }), 200);
}

export function askRoutes(app: OpenAPIHono<AppEnv>): void {
  const post = createRoute({
    method: 'post',
    path: '/v1/ask',
    summary: 'Ask in words: "can shop/web reach shop/db on 5432?", "who can reach payments/api?", "what can shop/web reach?"',
    description: 'Against a snapshot sent along, or a stored `cluster` (a token that reads it when tokens are configured). JSON unless Accept prefers text/plain. Names as for /v1/verdicts: a pod, a workload, a Service, a label selector, a node, an address or a CIDR (each region of it that policies treat alike, at most 256). A name for several pods or regions is answered for each member: "can" says whether all, none or which are allowed and why ("can-group"); "who"/"what" say what all members share and what each has beyond it ("who-group", "what-group"). A question the grammar cannot read comes back with `acceptedForms`.',
    request: { body: requestBody(app, 'AskRequest', AskRequestSchema), query: LenientQuery },
    responses: {
      ...bodyErrorResponses(AskErrorSchema),
      ...responses,
      401: errorResponse('with `cluster`: no valid token'),
      403: errorResponse('with `cluster`: the token does not read it'),
      404: errorResponse('with `cluster`: no such cluster or version; "what changed … since version N": N is not stored (names the latest)'),
      503: errorResponse('with `cluster`: no store configured, or no tokens on a serverless deployment; overloaded: every compute thread busy, retry after Retry-After seconds'),
    },
  });
  app.openapi(post, async (c) => {
    const req = await readRequest(c, AskRequestSchema);
    if (req.cluster === undefined) return respond(c, await askCluster(clusterFrom(req.snapshot, '$.snapshot', isLenient(c)), req.question, null, null), '$.question');
    const { access, clusters } = c.get('services');
    await authorize(access, c.req.header('authorization'), { access: 'read', cluster: req.cluster });
    return respond(c, await askStored(clusters, req.cluster, req.version, req.question), '$.question');
  });

  const get = createRoute({
    method: 'get',
    path: '/v1/clusters/{cluster}/ask',
    summary: 'Ask about a stored cluster in words (for chat bots): ?q=can shop/web reach shop/db on 5432',
    middleware: [requireAccess((c) => ({ access: 'read', cluster: c.req.param('cluster')! }))] as const,
    request: {
      params: ClusterParams,
      query: z.object({
        q: queryValue(z.string().refine((q) => q.trim() !== '')).openapi({ description: 'the question', example: 'who can reach payments/api?' }),
        version: storedVersionQuery('a stored resourceVersion (default: latest)'),
      }),
    },
    responses: {
      ...responses,
      401: errorResponse('no valid token'),
      403: errorResponse('the token does not read this cluster'),
      404: errorResponse('no such cluster or version; "what changed … since version N": N is not stored (names the latest)'),
      503: errorResponse('no store, or no tokens on a serverless deployment'),
    },
  });
  app.openapi(
    get,
    async (c) => {
      const { cluster } = c.req.valid('param');
      const { q, version } = c.req.valid('query');
      return respond(c, await askStored(c.get('services').clusters, cluster, version, q), '$.query.q');
    },
    // No question, or a blank one: what to ask, as any unreadable question is answered; any other
    // parameter (version) a 422 at its path.
    (result, c) => {
      if (result.success) return undefined;
      if (result.target === 'query' && result.error.issues.some((i) => i.path[0] === 'q')) return respond(c, NO_QUESTION, '$.query.q');
      validationHook(result);
      return undefined;
    },
  );
}
