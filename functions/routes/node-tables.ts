// GET /v1/clusters/{cluster}/nodes/{node}/tables: a node's part of a stored version, for node
// agents (If-None-Match → 304 when nothing changed for the node).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { CompileFormat } from '../../schemas/formats.js';
import { COMPILE_FORMATS } from '../../schemas/api/compile.js';
import { NodeTablesResponseSchema } from '../../schemas/api/clusters.js';
import { requireAccess } from '../access/check.js';
import { storeRequired, type AppEnv } from '../context.js';
import { jsonStream } from '../json-stream.js';
import { prefersText } from '../negotiate.js';
import { ACCESS_RESPONSES, ClusterParams, errorResponse, queryValue, storedVersionQuery, versionProblem } from '../openapi.js';
import { IPTABLES_PARTS, type NodeTablesRequest } from '../services/node-tables.js';

const FORMATS: ReadonlySet<string | undefined> = new Set([undefined, ...COMPILE_FORMATS]);

/** What the route reads of a request, from its validated parameters or, for a poll, from the raw ones. */
const nodeTablesRequest = (c: Context<AppEnv>, q: { format?: CompileFormat | undefined; version?: string | undefined; since?: string | undefined; part?: string | undefined }): NodeTablesRequest => ({
  cluster: c.req.param('cluster')!,
  node: c.req.param('node')!,
  format: q.format ?? 'ir',
  version: q.version,
  since: q.since,
  part: q.part,
  prefersText: prefersText(c.req.header('accept')),
  ifNoneMatch: c.req.header('if-none-match'),
});

/**
 * The tag of a poll whose tables did not change (If-None-Match holds it), or null. Only when the
 * validators would accept the query (path parameters and the other values are any string;
 * format is one of the formats), so a 304 here is the answer the route would give. Kept per
 * request: the offload decision (offload.ts) and unchangedPoll read it once between them.
 */
const tags = new WeakMap<Request, Promise<{ readonly etag: string; readonly version: string } | null>>();
function unchangedTag(c: Context<AppEnv>): Promise<{ readonly etag: string; readonly version: string } | null> {
  let tag = tags.get(c.req.raw);
  if (!tag) {
    const format = c.req.query('format');
    const q = { format: format as CompileFormat | undefined, version: c.req.query('version'), since: c.req.query('since'), part: c.req.query('part') };
    // A version or since the route's validator refuses is answered by the route (422), not here.
    const refused = (q.version !== undefined && versionProblem(q.version)) || (q.since !== undefined && versionProblem(q.since));
    tag = c.req.header('if-none-match') === undefined || !FORMATS.has(format) || refused ? Promise.resolve(null) : c.get('services').nodeTables.unchanged(nodeTablesRequest(c, q));
    tags.set(c.req.raw, tag);
  }
  return tag;
}

/**
 * The agents' hot path: a poll whose tables did not change is answered 304 before the route's
 * parameters are validated (the validators cost about a third of a 304 poll in process).
 */
const unchangedPoll: MiddlewareHandler<AppEnv> = async (c, next) => {
  const tag = await unchangedTag(c);
  if (!tag) return next();
  c.header('ETag', tag.etag);
  c.header('x-netpolc-version', tag.version);
  return c.body(null, 304);
};

/**
 * Whether answering computes (offload.ts sends it to a compute thread): rendering a dataplane,
 * deriving the flat form, computing a delta from `since` each take the serving thread for up to
 * seconds on a node of 20,000 pods. Not the set form's slice as stored (format=ir without since),
 * which a node agent must get even while every thread computes, nor a poll whose tables did not
 * change (a 304 from memory). Asked before the route's access check: a poll's tag only decides
 * where the request runs, and a request the route refuses gets the same refusal on either thread.
 */
export const nodeTablesComputes = async (c: Context<AppEnv>): Promise<boolean> =>
  ((c.req.query('format') ?? 'ir') !== 'ir' || c.req.query('since') !== undefined) && (await unchangedTag(c).catch(() => null)) === null;

const route = createRoute({
  method: 'get',
  path: '/v1/clusters/{cluster}/nodes/{node}/tables',
  summary:
    "A node's part of a stored version: format=ir (default) the set form's slice for the node, or with since=rv the delta (set members added and removed, sets and tables added and removed, bindings changed); format=ir-flat flat tables (since=rv: tables added and removed); other formats the rendered artifact (nftables since=rv: a delta script, x-netpolc-full: false; iptables since=rv: a delta artifact with cleanup, full: false). version=rv (default: latest); format=iptables&part=ipset|ipv4|ipv6|hooks|cleanup: that part as the raw text its tool reads (ipset restore, iptables-restore --noflush, ip6tables-restore --noflush); ETag / If-None-Match (weak tags too) → 304",
  // A node agent's token reads its node's tables; without a store, 503 before the query is read.
  middleware: [requireAccess((c) => ({ access: 'read', cluster: c.req.param('cluster')!, node: c.req.param('node')! })), storeRequired, unchangedPoll] as const,
  request: {
    params: ClusterParams.extend({ node: z.string().openapi({ description: 'the node name' }) }),
    query: z.object({
      format: queryValue(z.enum(COMPILE_FORMATS, { error: `one of ${COMPILE_FORMATS.join(', ')}` }))
        .optional()
        .openapi({ description: 'the form of the answer (default ir)' }),
      version: storedVersionQuery('a stored resourceVersion (default: latest)'),
      since: storedVersionQuery('the version the agent holds: answer the delta from it'),
      // Checked once the node's tables are found (an unknown node is a 404 first), against the format.
      part: queryValue(z.string()).optional().openapi({ enum: [...IPTABLES_PARTS], description: 'format=iptables: one part as text' }),
    }),
  },
  responses: {
    200: { description: 'JSON (ir, ir-flat, iptables without part, vpp-acl, vpp-session, openstack-sg), or text: the nftables script (or delta script), an iptables part', content: { 'application/json': { schema: NodeTablesResponseSchema }, 'text/plain': { schema: z.string() } } },
    304: { description: 'nothing changed for the node' },
    ...ACCESS_RESPONSES,
    404: errorResponse('unknown cluster, version or node'),
    422: errorResponse('invalid parameters: `issues` lists each with its JSON path; or a format this node cannot be rendered in within its documented limits (`$.query.format`)'),
    503: errorResponse('no store configured, the store failed, or no tokens on a serverless deployment'),
  },
});

export function nodeTablesRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const answer = await c.get('services').nodeTables.read(nodeTablesRequest(c, c.req.valid('query')));
    c.header('ETag', answer.etag);
    // On a 304 too: an agent learns which version its unchanged tables belong to.
    c.header('x-netpolc-version', answer.version);
    if (answer.kind === 'not-modified') return c.body(null, 304);
    if (answer.kind === 'text') return c.text(answer.text, 200, answer.headers);
    // Sliced (json-stream.ts): a crowded node's answer is megabytes, and this may be the serving thread.
    return c.body(jsonStream(answer.body), 200, { 'content-type': 'application/json' });
  });
}
