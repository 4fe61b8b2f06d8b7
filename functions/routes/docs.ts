// GET /openapi.json and GET /docs: the machine contract and a page for people, both built
// from the same route declarations.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../context.js';
import { json } from '../openapi.js';
import { API_LIMITS } from '../../schemas/api/verdicts.js';
import { FLAT_LIMITS } from '../../core/compile/index.js';
import { OPENSTACK_SG_MAX_RULES_PER_GROUP, VPP_ACL_LIMITS, VPP_SESSION_LIMITS } from '../../core/render/index.js';

const OpenApiDocumentSchema = z.object({ openapi: z.string(), info: z.object({ title: z.string(), version: z.string() }).loose(), paths: z.record(z.string(), z.record(z.string(), z.unknown())), components: z.record(z.string(), z.unknown()).optional() }).loose();

const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);

type Doc = { info: { title: string; version: string; description?: string }; paths: Record<string, Record<string, { summary?: string; description?: string; responses: Record<string, { description: string }> }>> };

export function renderDocsPage(doc: Doc): string {
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => {
      const statuses = Object.entries(op.responses)
        .map(([code, r]) => `<li><code>${esc(code)}</code> ${esc(r.description)}</li>`)
        .join('');
      return `<section><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2><p><strong>${esc(op.summary ?? '')}</strong></p><p>${esc(op.description ?? '')}</p><ul>${statuses}</ul></section>`;
    }),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}code,pre{background:#f4f4f4;padding:.1em .3em;border-radius:3px}pre{padding:1em;overflow:auto}section{border-top:1px solid #ddd;margin-top:1.5rem}</style></head>
<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description ?? '')}</p>
<p>Machine-readable contract: <a href="/openapi.json"><code>/openapi.json</code></a> (OpenAPI 3.1).</p>
<h2>Example</h2><pre>curl -s localhost:8787/v1/verdicts -H 'content-type: application/json' \\
  -d @examples/verdicts-request.json</pre>
${ops.join('\n')}</body></html>`;
}

export const OPENAPI_INFO = {
  title: 'netpolc',
  version: '0.1.0',
  description:
    'Network-policy compilation API. Reads a Kubernetes cluster snapshot (Namespaces, Pods, Nodes, Services; NetworkPolicy networking.k8s.io/v1 and the legacy extensions/v1beta1 proposal form; AdminNetworkPolicy/BaselineAdminNetworkPolicy v1alpha1; ClusterNetworkPolicy v1alpha2) and answers verdicts with their decision chain.' +
    ` Limits: request bodies ${API_LIMITS.maxBodyBytes / 1024 / 1024} MiB by default (MAX_BODY_BYTES); PUT /v1/clusters/{cluster}/latest and POST /v1/store/collect ${API_LIMITS.smallBodyBytes} bytes, checked before the body is read (413 naming the route's limit).` +
    ` Forms that cannot keep sets have limits per node, counted as they are built: ${FLAT_LIMITS.rulesPerNode} flat rules (ir-flat, and the VPP formats made from it), ${VPP_ACL_LIMITS.rules} VPP ACL rules, ${VPP_SESSION_LIMITS.rules} VPP session rules, ${OPENSTACK_SG_MAX_RULES_PER_GROUP} rules and region addresses in one OpenStack security group; past one, a 422 at the field that asked for the form ($.format, $.query.format) naming the node. The set form (format=ir), nftables and iptables keep sets and have none.` +
    ' Compression: a request body may be sent with Content-Encoding gzip or deflate (the limits hold once it is inflated; another coding is a 415, bytes not valid in their coding a 400); answers are gzip- or deflate-encoded when Accept-Encoding asks, on the Node server and Lambda, with a weak ETag (If-None-Match compares weakly).',
};

export function docsRoutes(app: OpenAPIHono<AppEnv>): void {
  // Built on the first request (every route is declared by then) and kept: generating it took
  // 20-55 ms of the serving thread per request, and the routes never change while the app runs.
  let built: { readonly doc: z.infer<typeof OpenApiDocumentSchema>; readonly html: string } | undefined;
  const document = () => {
    if (!built) {
      const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: OPENAPI_INFO });
      built = { doc: doc as z.infer<typeof OpenApiDocumentSchema>, html: renderDocsPage(doc as unknown as Doc) };
    }
    return built;
  };
  app.openapi(createRoute({ method: 'get', path: '/openapi.json', summary: 'This contract (OpenAPI 3.1)', responses: { 200: json('the OpenAPI document', OpenApiDocumentSchema) } }), (c) => c.json(document().doc, 200));
  app.openapi(createRoute({ method: 'get', path: '/docs', summary: 'This contract as a page for people', responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } } }), (c) => c.html(document().html, 200));
  app.openapi(createRoute({ method: 'get', path: '/', summary: 'Redirects to /docs', responses: { 302: { description: 'Location: /docs' } } }), (c) => c.redirect('/docs', 302));
}
