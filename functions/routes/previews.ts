// POST /v1/previews: what a change to a cluster's manifests does to connectivity, before it is
// merged — JSON by default, a pull-request comment with `Accept: text/markdown`.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { noEndpointObjects } from '../../core/cluster.js';
import { applyChanges, preview, previewMarkdown, withoutParts, type Preview, type PreviewStage } from '../../core/preview/index.js';
import { PREVIEW_DETAILS, PreviewRequestSchema, PreviewResponseSchema, type PreviewRequest } from '../../schemas/api/preview.js';
import { parseSnapshot, type ParsedSnapshot, type ValidationIssue } from '../../schemas/snapshot.js';
import type { AppEnv } from '../context.js';
import { invalid } from '../errors.js';
import { apiFinding } from '../findings.js';
import { bodyErrorResponses, FLAG_MESSAGE, flagQuery, isFlag, LenientQuery, queryValue, requestBody } from '../openapi.js';
import { isLenient, parseOptions, readRequest } from '../request.js';
import { askedWithin } from '../render-asked.js';

/** Base and head as parsed snapshots, every problem with its path into the request. */
function snapshotsOf(req: PreviewRequest, lenient: boolean): { base: ParsedSnapshot; head: ParsedSnapshot } {
  const issues: ValidationIssue[] = [];
  const parse = (raw: unknown, at: string) => {
    const p = parseSnapshot(raw, at, parseOptions(raw, lenient));
    if (!p.ok) issues.push(...p.issues);
    return p.ok ? p.snapshot : null;
  };
  const base = parse(req.base, '$.base');
  let head: ParsedSnapshot | null = null;
  if (req.head !== undefined) head = parse(req.head, '$.head');
  else {
    const apply = parse(req.changes!.apply, '$.changes.apply');
    if (base && apply) {
      const applied = applyChanges(base, { apply, delete: req.changes!.delete }, '$.changes.delete');
      if (applied.ok) head = applied.snapshot;
      else issues.push(...applied.issues);
    }
  }
  const empty = base ? noEndpointObjects(base) : null;
  if (empty) issues.push({ path: '$.base', message: empty });
  if (issues.length > 0 || !base || !head) throw invalid(issues);
  return { base, head };
}

type Detail = (typeof PREVIEW_DETAILS)[number];

// Checked after the body (a body the client must fix is answered first), so the schema takes any
// value and names the ones read.
const PreviewQuery = LenientQuery.extend({
  tables: flagQuery("overrides the body's `tables`: false leaves out the per-node rule-table delta"),
  lint: flagQuery("overrides the body's `lint`: false leaves out the lints of the result"),
  detail: queryValue(z.string()).optional().openapi({ enum: [...PREVIEW_DETAILS], description: "overrides the body's `detail`: parts also lists each aggregate's class pairs and their members" }),
});

/** `?tables=false`, `?lint=false`, `?detail=parts` override the body's fields. */
function queryOptions(query: z.infer<typeof PreviewQuery>, req: PreviewRequest): { tables: boolean; lint: boolean; detail: Detail } {
  const issues: ValidationIssue[] = [];
  const flag = (name: 'tables' | 'lint') => {
    const v = query[name];
    if (v === undefined) return req[name];
    if (!isFlag(v)) issues.push({ path: `$.query.${name}`, message: FLAG_MESSAGE });
    return v === 'true';
  };
  const [tables, lint] = [flag('tables'), flag('lint')];
  const detail = query.detail ?? req.detail;
  if (!(PREVIEW_DETAILS as readonly string[]).includes(detail)) issues.push({ path: '$.query.detail', message: `one of ${PREVIEW_DETAILS.join(', ')}` });
  if (issues.length > 0) throw invalid(issues);
  return { tables, lint, detail: detail as Detail };
}

function previewJson(p: Preview, detail: Detail) {
  const body = detail === 'parts' ? p : withoutParts(p);
  return { ...body, lint: p.lint && { findings: p.lint.findings.map((f) => ({ ...apiFinding(f), new: f.new })), resolved: p.lint.resolved.map(apiFinding), unchecked: p.lint.unchecked } };
}

export function previewRoutes(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    method: 'post',
    path: '/v1/previews',
    summary: 'Preview a change: the connectivity delta, the per-node rule-table delta and the lints of the result',
    description:
      'Send `{base, head}` (two snapshots) or `{base, changes: {apply: [objects], delete: [{kind, namespace, name}]}}`. Every (source, destination, port/protocol) whose verdict changes, grouped by namespace and workload, each group with the rule that decided before and after and its count of endpoint pairs; pods present in one snapshot only are counted, not reported as changes. Computed over classes of endpoints alike in both snapshots, not pair by pair. `Accept: text/markdown` returns a pull-request comment with a Mermaid graph of the changed edges. `Server-Timing` gives each stage.',
    request: { body: requestBody(app, 'PreviewRequest', PreviewRequestSchema), query: PreviewQuery },
    responses: {
      200: { description: 'the preview', content: { 'application/json': { schema: PreviewResponseSchema }, 'text/markdown': { schema: z.string() } } },
      ...bodyErrorResponses(),
    },
  });
  app.openapi(route, async (c) => {
    const req = await readRequest(c, PreviewRequestSchema);
    const { tables, lint, detail } = queryOptions(c.req.valid('query'), req);
    const snapshots = snapshotsOf(req, isLenient(c));
    const timings: string[] = [];
    // A stage past its limit is a 422 at what asked for it: the connectivity delta at the change.
    // (The per-node table delta is the set form, which has no such limit.)
    const refusedAs: Partial<Record<PreviewStage, [string, string]>> = {
      delta: [req.head === undefined ? '$.changes' : '$.head', ''],
    };
    const stage = <T>(name: PreviewStage, run: () => T): T => {
      const t0 = performance.now();
      try {
        const [path, advice] = refusedAs[name] ?? [];
        return path === undefined ? run() : askedWithin(path, run, advice);
      } finally {
        timings.push(`${name};dur=${(performance.now() - t0).toFixed(1)}`);
      }
    };
    const { sha256Hex } = c.get('services');
    const p = preview(snapshots, { tables, lint, stage, headFromChanges: req.head === undefined, ...(sha256Hex ? { sha256Hex } : {}) });
    c.header('Server-Timing', timings.join(', '));
    if ((c.req.header('accept') ?? '').includes('text/markdown')) return c.body(previewMarkdown(p), 200, { 'content-type': 'text/markdown; charset=utf-8' });
    return c.json(previewJson(p, detail), 200);
  });
}
