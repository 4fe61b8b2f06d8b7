// POST /v1/compile: the set form (ir), flat tables (ir-flat) or a rendered dataplane format.
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { compile } from '../../core/compile/index.js';
import { DATAPLANES } from '../../core/render/index.js';
import { compileSets, setIrMembersText } from '../../core/sets/index.js';
import { unknownNodes } from '../../core/snapshot/index.js';
import { warningMessages } from '../../core/warnings.js';
import { CompileRequestSchema, CompileResponseSchema } from '../../schemas/api/compile.js';
import type { AppEnv } from '../context.js';
import { ApiError, invalid } from '../errors.js';
import { bodyErrorResponses, json, jsonBody, jsonText, LenientQuery, requestBody } from '../openapi.js';
import { readClusterRequest } from '../request.js';
import { askedWithin, renderAsked } from '../render-asked.js';

export function compileRoutes(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    method: 'post',
    path: '/v1/compile',
    summary: 'Compiled policy per node: the set form, flat rule tables, or rendered for a dataplane',
    description:
      'format=ir (default): the set form — tiered rules (Admin, NetworkPolicy, Baseline, default) over shared address sets, each table and set once, nodes naming what they need. format=ir-flat: per pod an ingress and an egress table of ordered first-match 6-tuple rules, the node-global table. Other formats render for a dataplane (nftables, iptables and openstack-sg from the set form; VPP from flat tables). Every form equals the verdict engine (property-tested on random snapshots).',
    request: { body: requestBody(app, 'CompileRequest', CompileRequestSchema), query: LenientQuery },
    responses: { 200: json('compiled nodes', CompileResponseSchema), ...bodyErrorResponses() },
  });

  app.openapi(route, async (c) => {
    const { sha256Hex, metrics } = c.get('services');
    const { req, cluster } = await readClusterRequest(c, CompileRequestSchema);
    const unknown = unknownNodes(cluster, req.nodes ?? []);
    if (unknown.length > 0) throw invalid(unknown.map((u) => ({ path: `$.nodes[${u.index}]`, message: u.message })));
    const opts = { ...(req.nodes ? { nodes: req.nodes } : {}), ...(sha256Hex ? { sha256Hex } : {}) };
    const timedCompile = <T>(form: 'ir' | 'ir-flat', run: () => T): T => {
      const started = performance.now();
      const out = run();
      metrics.compile.observe((performance.now() - started) / 1000, { form });
      return out;
    };
    if (req.format === 'ir') {
      const { ir, stats } = timedCompile('ir', () => compileSets(cluster, opts));
      const warnings = warningMessages(cluster.warnings);
      // Sets and tables written from the texts their ids hashed (core/sets/texts.ts), not stringified again.
      const text = `{"format":${JSON.stringify(req.format)},${setIrMembersText(ir)},"stats":${JSON.stringify(stats)},"warnings":${JSON.stringify(warnings)}}`;
      return jsonText(c, jsonBody({ format: req.format, ...ir, stats, warnings }), text);
    }
    // Flat tables are derived only when asked for (or for a format that reads them).
    let stats: Record<string, number> = {};
    const flatIr = () => {
      const out = timedCompile('ir-flat', () => compile(cluster, opts));
      stats = { ...out.stats };
      return out.ir;
    };
    if (req.format === 'ir-flat') {
      const nodes = askedWithin('$.format', flatIr).nodes;
      return c.json(jsonBody({ format: req.format, nodes, stats, warnings: warningMessages(cluster.warnings) }), 200);
    }
    const dataplane = DATAPLANES[req.format];
    if (!dataplane) throw new ApiError('invalid', `format "${req.format}" is not available in this build`);
    const setIr = () => {
      const out = timedCompile('ir', () => compileSets(cluster, opts));
      stats = { ...out.stats };
      return out.ir;
    };
    const nodes = renderAsked(dataplane, setIr, flatIr, '$.format');
    return c.json(jsonBody({ format: req.format, nodes, stats, warnings: warningMessages(cluster.warnings) }), 200);
  });
}
