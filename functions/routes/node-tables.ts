// GET /v1/clusters/{cluster}/nodes/{node}/tables: a node's part of a stored version, for node
// agents (If-None-Match → 304 when nothing changed for the node).
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { COMPILE_FORMATS } from '../../schemas/api/compile.js';
import { NodeTablesResponseSchema } from '../../schemas/api/clusters.js';
import { requireAccess } from '../access/check.js';
import { storeRequired, type AppEnv } from '../context.js';
import { prefersText } from '../negotiate.js';
import { ACCESS_RESPONSES, ClusterParams, errorResponse, queryValue } from '../openapi.js';
import { IPTABLES_PARTS } from '../services/node-tables.js';

const route = createRoute({
  method: 'get',
  path: '/v1/clusters/{cluster}/nodes/{node}/tables',
  summary:
    "A node's part of a stored version: format=ir (default) the set form's slice for the node, or with since=rv the delta (set members added and removed, sets and tables added and removed, bindings changed); format=ir-flat flat tables (since=rv: tables added and removed); other formats the rendered artifact (nftables since=rv: a delta script, x-netpolc-full: false; iptables since=rv: a delta artifact with cleanup, full: false). version=rv (default: latest); format=iptables&part=ipset|ipv4|ipv6|hooks|cleanup: that part as the raw text its tool reads (ipset restore, iptables-restore --noflush, ip6tables-restore --noflush); ETag / If-None-Match (weak tags too) → 304",
  // A node agent's token reads its node's tables; without a store, 503 before the query is read.
  middleware: [requireAccess((c) => ({ access: 'read', cluster: c.req.param('cluster')!, node: c.req.param('node')! })), storeRequired] as const,
  request: {
    params: ClusterParams.extend({ node: z.string().openapi({ description: 'the node name' }) }),
    query: z.object({
      format: queryValue(z.enum(COMPILE_FORMATS, { error: `one of ${COMPILE_FORMATS.join(', ')}` }))
        .optional()
        .openapi({ description: 'the form of the answer (default ir)' }),
      version: queryValue(z.string()).optional().openapi({ description: 'a stored resourceVersion (default: latest)' }),
      since: queryValue(z.string()).optional().openapi({ description: 'the version the agent holds: answer the delta from it' }),
      // Checked once the node's tables are found (an unknown node is a 404 first), against the format.
      part: queryValue(z.string()).optional().openapi({ enum: [...IPTABLES_PARTS], description: 'format=iptables: one part as text' }),
    }),
  },
  responses: {
    200: { description: 'JSON (ir, ir-flat, iptables without part, vpp-acl, vpp-session, openstack-sg), or text: the nftables script (or delta script), an iptables part', content: { 'application/json': { schema: NodeTablesResponseSchema }, 'text/plain': { schema: z.string() } } },
    304: { description: 'nothing changed for the node' },
    ...ACCESS_RESPONSES,
    404: errorResponse('unknown cluster, version or node'),
    422: errorResponse('invalid parameters: `issues` lists each with its JSON path'),
    503: errorResponse('no store configured, the store failed, or no tokens on a serverless deployment'),
  },
});

export function nodeTablesRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => {
    const { cluster, node } = c.req.valid('param');
    const { format, version, since, part } = c.req.valid('query');
    const answer = await c.var.services.nodeTables.read({ cluster, node, format: format ?? 'ir', version, since, part, prefersText: prefersText(c.req.header('accept')), ifNoneMatch: c.req.header('if-none-match') });
    c.header('ETag', answer.etag);
    // On a 304 too: an agent learns which version its unchanged tables belong to.
    c.header('x-netpolc-version', answer.version);
    if (answer.kind === 'not-modified') return c.body(null, 304);
    if (answer.kind === 'text') return c.text(answer.text, 200, answer.headers);
    return c.json(answer.body, 200);
  });
}
