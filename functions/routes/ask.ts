// Chat-ops: POST /v1/ask {question, snapshot | cluster[, version]} and
// GET /v1/clusters/{cluster}/ask?q=…[&version=]. One sentence plus the decision chain, as JSON or,
// when the Accept header prefers it, as plain text for a chat. A question the grammar cannot
// read is a 422 listing the accepted forms, never a 500. "What changed … since version N" loads
// version N too (a 404 naming the latest when it is not stored).
import type { Context } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import { ACCEPTED_FORMS, answer, answerSince, chainLines, isParseFailure, parseQuestion, type Answer } from '../../core/ask/index.js';
import type { Cluster } from '../../core/cluster.js';
import { warningMessages } from '../../core/warnings.js';
import { AskErrorSchema, AskRequestSchema, AskResponseSchema } from '../../schemas/api/ask.js';
import { authorize, requireAccess, type AccessPolicy } from '../access/check.js';
import { ApiError } from '../errors.js';
import { prefersText } from '../negotiate.js';
import { clusterFrom, isLenient, readRequest } from '../request.js';
import type { StoredCluster } from '../stored-cluster.js';
import { errorResponse, errorResponses, jsonBody, LenientQuery } from './openapi-helpers.js';

export type LoadStored = (cluster: string, version: string | undefined) => Promise<StoredCluster>;

function unreadable(c: Context, path: string, message: string, acceptedForms?: readonly string[]): Response {
  const error = new ApiError('invalid', message, [{ path, message }], acceptedForms ? { body: { acceptedForms } } : {});
  if (!prefersText(c.req.header('accept'))) return c.json(error.toJSON(), 422);
  const forms = acceptedForms ? `\n\nQuestions I understand, for example:\n${acceptedForms.map((f) => `  ${f}`).join('\n')}` : '';
  return c.text(`${message}${forms}\n`, 422);
}

/** The version a "what changed … since version N" question compares against: a 404 naming the latest when N is not stored. */
async function since(load: LoadStored, name: string, version: string): Promise<Cluster> {
  try {
    return (await load(name, version)).cluster;
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== 'not_found') throw e;
    const latest = await load(name, undefined).then((s) => s.version, () => null);
    throw new ApiError('not_found', `version ${version} of cluster ${name} is not stored (or expired)${latest === null ? '' : `; the latest is version ${latest}`}`);
  }
}

/** `path`: where the question came from ($.question or $.query.q), for the 422's issue; `load`: for a stored cluster's other versions. */
async function respond(c: Context, cluster: Cluster, question: string, path: string, stored: { cluster: string; version: string } | null, load: LoadStored | null): Promise<Response> {
  const query = parseQuestion(question);
  if (isParseFailure(query)) return unreadable(c, path, query.error, query.acceptedForms);
  const a: Answer = query.kind === 'changed' && stored && load
    ? answerSince(await since(load, stored.cluster, query.since), cluster, query, { since: query.since, version: stored.version })
    : answer(cluster, query);
  // A pod or named port that is not in the snapshot: the question's to fix.
  if (a.kind === 'error') return unreadable(c, path, a.text);
  if (prefersText(c.req.header('accept'))) {
    const chain = chainLines(a).map((line) => `  ${line}\n`).join('');
    return c.text(`${a.text}\n${chain}`, 200, stored ? { 'x-netpolc-version': stored.version } : {});
  }
  return c.json({ ...(stored ?? {}), ...a, warnings: warningMessages(cluster.warnings) });
}

const responses = {
  200: { description: 'the answer', content: { 'application/json': { schema: AskResponseSchema }, 'text/plain': { schema: { type: 'string' as const } } } },
  422: { description: 'a question that could not be read (with `acceptedForms`), or that names a pod or port the snapshot does not have', content: { 'application/json': { schema: AskErrorSchema }, 'text/plain': { schema: { type: 'string' as const } } } },
};

export function askRoutes(app: OpenAPIHono, access: AccessPolicy, load: LoadStored | null): void {
  const needStore = (): LoadStored => {
    if (!load) throw new ApiError('unavailable', 'no snapshot store is configured for this deployment');
    return load;
  };

  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/ask',
    summary: 'Ask in words: "can shop/web reach shop/db on 5432?", "who can reach payments/api?", "what can shop/web reach?"',
    description: 'Against a snapshot sent along, or a stored `cluster` (a token that reads it when tokens are configured). JSON unless Accept prefers text/plain. Names as for /v1/verdicts: a pod, a workload, a Service, a label selector, a node, an address or a CIDR (each region of it that policies treat alike, at most 256). A name for several pods or regions is answered for each member: "can" says whether all, none or which are allowed and why ("can-group"); "who"/"what" say what all members share and what each has beyond it ("who-group", "what-group"). A question the grammar cannot read comes back with `acceptedForms`.',
    request: { body: jsonBody(AskRequestSchema), query: LenientQuery },
    responses: {
      ...errorResponses(AskErrorSchema),
      ...responses,
      401: errorResponse('with `cluster`: no valid token'),
      403: errorResponse('with `cluster`: the token does not read it'),
      404: errorResponse('with `cluster`: no such cluster or version; "what changed … since version N": N is not stored (names the latest)'),
      503: errorResponse('with `cluster`: no store configured, or no tokens on a serverless deployment; overloaded: every compute thread busy, retry after Retry-After seconds'),
    },
  });
  app.post('/v1/ask', async (c) => {
    const req = await readRequest(c, AskRequestSchema);
    if (req.cluster === undefined) return respond(c, clusterFrom(req.snapshot, '$.snapshot', isLenient(c)), req.question, '$.question', null, null);
    await authorize(access, c.req.header('authorization'), { access: 'read', cluster: req.cluster });
    const stored = await needStore()(req.cluster, req.version);
    return respond(c, stored.cluster, req.question, '$.question', { cluster: req.cluster, version: stored.version }, needStore());
  });

  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/v1/clusters/{cluster}/ask',
    summary: 'Ask about a stored cluster in words (for chat bots): ?q=can shop/web reach shop/db on 5432',
    request: { params: z.object({ cluster: z.string() }), query: z.object({ q: z.string().openapi({ example: 'who can reach payments/api?' }), version: z.string().optional() }) },
    responses: {
      ...responses,
      401: errorResponse('no valid token'),
      403: errorResponse('the token does not read this cluster'),
      404: errorResponse('no such cluster or version; "what changed … since version N": N is not stored (names the latest)'),
      503: errorResponse('no store, or no tokens on a serverless deployment'),
    },
  });
  app.get(
    '/v1/clusters/:cluster/ask',
    requireAccess(access, (c) => ({ access: 'read', cluster: c.req.param('cluster')! })),
    async (c) => {
      const q = c.req.query('q');
      if (q === undefined || q.trim() === '') return unreadable(c, '$.query.q', 'ask with ?q=<question>', ACCEPTED_FORMS);
      const cluster = c.req.param('cluster');
      const stored = await needStore()(cluster, c.req.query('version'));
      return respond(c, stored.cluster, q, '$.query.q', { cluster, version: stored.version }, needStore());
    },
  );
}
