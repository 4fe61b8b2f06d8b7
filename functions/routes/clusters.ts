// /v1/clusters/{cluster}/…: compiled snapshots kept per resourceVersion, latest being the one
// published last (or rolled back to), and node tables with diffs for node agents
// (If-None-Match → 304 when nothing changed for the node).
import type { Context } from 'hono';
import { z, type OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { requireAccess, type AccessPolicy } from '../access/check.js';
import type { IrNode } from '../../core/compile/index.js';
import { diffNode, nodeDelta, type NodeBindings, type NodeSlice } from '../../core/diff/index.js';
import { DATAPLANES, iptablesDelta, nftables, nftDelta, renderFormat, rendersSets } from '../../core/render/index.js';
import { IdRecord, SET_IR_VERSION, type SetIr } from '../../core/sets/index.js';
import { COMPILE_FORMATS } from '../../schemas/api/compile.js';
import { StoreCorruptionError, VersionIncompleteError, VersionIsLatestError, type NodeTables, type SnapshotStore } from '../../infra/store/types.js';
import { parseBody } from '../body.js';
import { ApiError, invalid } from '../errors.js';
import { prefersText } from '../negotiate.js';
import { storeErrors, type FlatNodes } from '../stored-cluster.js';
import { publish, type PublishDeps } from './publish.js';
import { errorResponse, json, jsonBody, pathParam } from './openapi-helpers.js';
import { VersionFromChangesSchema } from '../../schemas/api/versions.js';
import { ClusterErrorSchema, CollectResultSchema, LatestMovedSchema, NodeTablesResponseSchema, PublishResponseSchema, VersionHeaderSchema, VersionPageSchema } from '../../schemas/api/clusters.js';
import type { PollIndex } from '../poll-index.js';

/** What diffNode reads of a flat node. */
const flatBindings = (n: IrNode): NodeBindings => ({ pods: n.pods, global: n.global, tableIds: Object.keys(n.tables).sort() });

export const ACCESS_RESPONSES = {
  401: errorResponse('no valid bearer token (when tokens are configured); WWW-Authenticate: Bearer'),
  403: errorResponse("the token's scope does not cover this cluster, node or write"),
} as const;

/** A node's slice of a stored version: every table and set its manifest names, or an error naming what is missing. */
async function storedSlice(store: SnapshotStore, m: NodeTables): Promise<NodeSlice> {
  const [tables, bodies] = await Promise.all([storeErrors(store.getTables(m.tableIds)), storeErrors(store.getSets(Object.values(m.sets)))]);
  const missing = [...m.tableIds.filter((id) => !tables.has(id)).map((id) => `table ${id}`), ...Object.entries(m.sets).filter(([, b]) => !bodies.has(b)).map(([id, b]) => `set ${id} (body ${b})`)];
  // Never a 200 with fewer tables or sets than the node's pods need.
  if (missing.length > 0) throw new StoreCorruptionError(`version ${m.version} of cluster ${m.cluster}, node ${m.node}: the store does not have ${missing.join(', ')}`);
  return { addresses: m.addresses, pods: m.pods, sets: Object.fromEntries(Object.entries(m.sets).map(([id, b]) => [id, bodies.get(b)!])), tables: Object.fromEntries(m.tableIds.map((id) => [id, tables.get(id)!])) };
}

const asSetIr = (node: string, slice: NodeSlice): SetIr => ({
  version: SET_IR_VERSION,
  sets: IdRecord.fromObject(slice.sets),
  tables: IdRecord.fromObject(slice.tables),
  nodes: { [node]: { addresses: slice.addresses, pods: slice.pods, sets: Object.keys(slice.sets), tables: Object.keys(slice.tables) } },
});

/** If-None-Match as RFC 9110 compares for GET: weakly (W/ prefixes ignored), any of a list, or *. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === bare);
}

async function nodeTablesResponse(c: Context, store: SnapshotStore, polls: PollIndex, flatOf: FlatNodes, cluster: string, node: string) {
  const format = c.req.query('format') ?? 'ir';
  if (!(COMPILE_FORMATS as readonly string[]).includes(format)) throw invalid([{ path: '$.query.format', message: `one of ${COMPILE_FORMATS.join(', ')}` }]);
  // Polls that find nothing changed are answered from memory (poll-index.ts).
  const latest = c.req.query('version') === undefined ? await storeErrors(polls.latest(cluster)) : null;
  const version = c.req.query('version') ?? latest?.version;
  if (!version) throw new ApiError('not_found', `no snapshot stored for cluster ${cluster}`);
  const current = await storeErrors(polls.nodeTables(cluster, version, node, latest));
  if (!current) throw new ApiError('not_found', `node ${node} is not part of version ${version} of cluster ${cluster}`);
  const part = iptablesPart(c, format);
  const etag = `"${current.hash}.${format}${part ? `.${part}` : ''}"`;
  c.header('ETag', etag);
  // On a 304 too: an agent learns which version its unchanged tables belong to.
  c.header('x-netpolc-version', version);
  if (matches(c.req.header('if-none-match'), etag)) return c.body(null, 304);

  const since = c.req.query('since');
  // An unknown or expired `since` gets the full artifact: an agent can always act on the answer.
  const previous: NodeTables | null = since && (format === 'ir' || format === 'ir-flat' || format === 'nftables' || format === 'iptables') ? await storeErrors(polls.nodeTables(cluster, since, node, null)) : null;
  if (format === 'ir-flat') {
    const flat = await flatOf(cluster, version, node);
    if (previous) {
      const d = diffNode(flatBindings(await flatOf(cluster, since!, node)), flatBindings(flat));
      return c.json({ cluster, node, from: since, to: version, full: false, tablesAdded: Object.fromEntries(d.tablesAdded.map((id) => [id, flat.tables[id]!])), tablesRemoved: d.tablesRemoved, bindingsChanged: d.bindingsChanged, global: flat.global });
    }
    return c.json({ cluster, node, version, full: true, ...flat });
  }
  const slice = await storedSlice(store, current);
  if (format === 'ir') {
    if (previous) return c.json({ cluster, node, from: since, to: version, full: false, format, delta: nodeDelta(await storedSlice(store, previous), slice) });
    return c.json({ cluster, node, version, full: true, format, ir: asSetIr(node, slice) });
  }
  // nftables from a known version: one transaction from that version's ruleset to this one
  // (nftables-delta.ts), unless the whole script is no larger. x-netpolc-full says which an agent got.
  if (format === 'nftables' && previous) {
    const before = await storedSlice(store, previous);
    const script = nftDelta(node, since!, version, before, nodeDelta(before, slice));
    const whole = nftables.render(asSetIr(node, slice))[node]!;
    if (script.length < whole.length) return c.text(script, 200, { 'x-netpolc-full': 'false', 'x-netpolc-since': since! });
    return c.text(whole, 200, { 'x-netpolc-full': 'true' });
  }
  // iptables from a known version: ipset and --noflush restore payloads from that version's
  // rules, plus `cleanup` to run after them (iptables-delta.ts); `full` says which an agent got.
  if (format === 'iptables' && previous) {
    const before = await storedSlice(store, previous);
    const delta = iptablesDelta(node, since!, version, before, nodeDelta(before, slice));
    if (delta) {
      if (part) return c.text(partText(delta, part), 200, { 'x-netpolc-full': 'false', 'x-netpolc-since': since! });
      return c.json({ cluster, node, from: since, to: version, full: false, format, rendered: delta });
    }
  }
  if (format === 'nftables') c.header('x-netpolc-full', 'true');
  // Otherwise the whole artifact.
  const dataplane = DATAPLANES[format]!;
  const flat: IrNode | null = rendersSets(dataplane) ? null : await flatOf(cluster, version, node);
  const rendered = renderFormat(dataplane, () => asSetIr(node, slice), () => ({ nodes: { [node]: flat! } }))[node];
  if (typeof rendered === 'string') return c.text(rendered, 200);
  if (part) return c.text(partText(rendered as object, part), 200, { 'x-netpolc-full': 'true' });
  return c.json({ cluster, node, version, full: true, format, rendered });
}

const IPTABLES_PARTS = ['ipset', 'ipv4', 'ipv6', 'hooks', 'cleanup'] as const;
type IptablesPart = (typeof IPTABLES_PARTS)[number];

/**
 * `part=` (or Accept: text/plain) on format=iptables: one part as the raw text its tool reads —
 * `ipset restore`, `iptables-restore --noflush`, `ip6tables-restore --noflush`, the hook rules
 * one per line, the cleanup after a delta — so an agent can pipe it without parsing JSON.
 */
function iptablesPart(c: Context, format: string): IptablesPart | null {
  const part = c.req.query('part');
  if (part === undefined) {
    if (format === 'iptables' && prefersText(c.req.header('accept'))) throw invalid([{ path: '$.query.part', message: `the iptables artifact has several parts: ask for one as text with part=${IPTABLES_PARTS.join('|')}` }]);
    return null;
  }
  if (format !== 'iptables') throw invalid([{ path: '$.query.part', message: 'part applies to format=iptables (other formats are one text or JSON)' }]);
  if (!(IPTABLES_PARTS as readonly string[]).includes(part)) throw invalid([{ path: '$.query.part', message: `one of ${IPTABLES_PARTS.join(', ')}` }]);
  return part as IptablesPart;
}

function partText(artifact: object, part: IptablesPart): string {
  const value = (artifact as Record<string, unknown>)[part];
  // A whole artifact has no cleanup: nothing to remove after it.
  if (value === undefined) return '';
  return Array.isArray(value) ? value.map((line) => `${line}\n`).join('') : String(value);
}

type Documented = ['get' | 'put' | 'post' | 'delete', string, string, Omit<RouteConfig, 'method' | 'path' | 'summary'>];

export function clusterRoutes(app: OpenAPIHono, store: SnapshotStore | undefined, access: AccessPolicy, flatOf: FlatNodes, deps: PublishDeps): void {
  const need = (): SnapshotStore => {
    if (!store) throw new ApiError('unavailable', 'no snapshot store is configured for this deployment');
    return store;
  };
  const common = {
    ...ACCESS_RESPONSES,
    404: errorResponse('unknown cluster, version or node'),
    422: errorResponse('invalid snapshot or parameters: `issues` lists each with its JSON path'),
    503: errorResponse('no store configured, the store failed, or no tokens on a serverless deployment'),
  } as const;
  // Routes that read a body: PUT/POST snapshots, PUT latest.
  const bodyErrors = {
    400: errorResponse('malformed JSON or YAML, or a malformed If-Match / If-None-Match'),
    413: errorResponse('body over the size limit (MAX_BODY_BYTES), or the request over its time or memory budget on the Node server (`budget`)'),
    415: errorResponse('content-type other than JSON or YAML'),
  } as const;
  const cluster = pathParam('cluster', 'the cluster name');
  const version = pathParam('version', 'a resourceVersion of the cluster');
  const guarded = {
    parameters: [
      { name: 'If-Match', in: 'header' as const, required: false, schema: { type: 'string' as const }, description: 'publish only if the latest version is this one ("<rv>"), or any (*)' },
      { name: 'If-None-Match', in: 'header' as const, required: false, schema: { type: 'string' as const }, description: '*: publish only into a cluster without a version' },
      { name: 'order', in: 'query' as const, required: false, schema: { type: 'string' as const, enum: ['publish', 'numeric'] }, description: 'numeric: move latest only to a greater integer version (409 otherwise); publish (default): the version published last is latest' },
    ],
  };
  const writeResponses = {
    200: json('stored before (unchanged)', PublishResponseSchema),
    201: json('stored; latest unless a condition failed', PublishResponseSchema),
    ...bodyErrors,
    409: errorResponse('same version, other content; order=numeric not met (names latest); base of changes not stored or not latest (names latest)', ClusterErrorSchema),
    412: errorResponse('If-Match / If-None-Match did not hold (names latest; `stored: true` when the version was stored before the check at the move failed)', ClusterErrorSchema),
  };
  const snapshotBody = z.unknown().openapi({ description: 'a snapshot: a Kubernetes List, {"items": [...]} or an array of objects, as `kubectl get … -o json` prints them' });
  const query = (...names: readonly (readonly [string, string])[]) => names.map(([name, description]) => ({ name, in: 'query' as const, required: false, schema: { type: 'string' as const }, description }));
  for (const [method, path, summary, extra] of [
    ['put', '/v1/clusters/{cluster}/snapshots/{version}', 'Compile and store a snapshot as this resourceVersion; it becomes latest (the version published last). Idempotent; 409 for other content. The body is a whole snapshot, or {base, changes: {apply, delete}}: changes on a stored version, as a watcher sees them (409 naming the latest version when base is not stored)', { parameters: [cluster, version, ...guarded.parameters], request: { body: jsonBody(z.union([VersionFromChangesSchema, snapshotBody])) }, responses: { ...common, ...writeResponses } }],
    ['post', '/v1/clusters/{cluster}/snapshots', "Compile and store a snapshot under its List's metadata.resourceVersion; an empty or absent one (kubectl prints resourceVersion: \"\" on Lists) gives a version derived from the content (versionDerived: true)", { parameters: [cluster, ...guarded.parameters], request: { body: jsonBody(snapshotBody) }, responses: { ...common, ...writeResponses } }],
    ['get', '/v1/clusters/{cluster}/snapshots', 'Stored versions in publish order: the latest first, then the versions latest was before, most recent first (limit, cursor)', { parameters: [cluster, ...query(['limit', 'versions per page (a positive integer)'], ['cursor', 'the cursor of the previous page'])], responses: { 200: json('a page of versions; an unknown cluster has none', VersionPageSchema), ...common } }],
    ['get', '/v1/clusters/{cluster}/snapshots/{version}', 'One stored version: nodes, object counts, compile figures, publishedAt, expiresAt', { parameters: [cluster, version], responses: { 200: json('OK', VersionHeaderSchema), ...common } }],
    ['delete', '/v1/clusters/{cluster}/snapshots/{version}', 'Remove a stored version that is not latest: it expires at once (no longer listed or readable)', { parameters: [cluster, version], responses: { 204: { description: 'removed' }, 409: errorResponse('the version is latest (`latest` names it): roll back or publish another first', ClusterErrorSchema), ...common } }],
    ['put', '/v1/clusters/{cluster}/latest', 'Make a stored, unexpired version latest on purpose (rollback), body {"version": "<rv>"}: its expiry is removed, the version it replaces expires; answers {cluster, latest, previous}', { parameters: [cluster], request: { body: jsonBody(z.object({ version: z.string().min(1).openapi({ description: 'a stored, unexpired version' }) })) }, responses: { 200: json('OK', LatestMovedSchema), ...bodyErrors, 409: errorResponse('items of the version do not read back (`missing` names them)', ClusterErrorSchema), ...common } }],
    ['get', '/v1/clusters/{cluster}/nodes/{node}/tables', "A node's part of a stored version: format=ir (default) the set form's slice for the node, or with since=rv the delta (set members added and removed, sets and tables added and removed, bindings changed); format=ir-flat flat tables (since=rv: tables added and removed); other formats the rendered artifact (nftables since=rv: a delta script, x-netpolc-full: false; iptables since=rv: a delta artifact with cleanup, full: false). version=rv (default: latest); format=iptables&part=ipset|ipv4|ipv6|hooks|cleanup: that part as the raw text its tool reads (ipset restore, iptables-restore --noflush, ip6tables-restore --noflush); ETag / If-None-Match (weak tags too) → 304", {
      parameters: [cluster, pathParam('node', 'the node name'), ...query(['format', `one of ${COMPILE_FORMATS.join(', ')} (default ir)`], ['version', 'a stored resourceVersion (default: latest)'], ['since', 'the version the agent holds: answer the delta from it'], ['part', 'format=iptables: ipset | ipv4 | ipv6 | hooks | cleanup, as text'])],
      responses: {
        200: { description: 'JSON (ir, ir-flat, iptables without part, vpp-acl, vpp-session, openstack-sg), or text: the nftables script (or delta script), an iptables part', content: { 'application/json': { schema: NodeTablesResponseSchema }, 'text/plain': { schema: { type: 'string' as const } } } },
        304: { description: 'nothing changed for the node' },
        ...common,
      },
    }],
  ] satisfies Documented[]) {
    app.openAPIRegistry.registerPath({ method, path, summary, ...extra });
  }
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/v1/store/collect',
    summary: 'Delete stored content (tables, set bodies, manifests, object groups) that no unexpired version of any cluster reads and that no publish wrote or relied on within the grace (body {"graceSeconds": N}, optional: default and least 3600). Scans the whole store: run it from a schedule, not per request. Needs a write token for every cluster (write:cluster=*); answers the counts (versions, marked, scanned, deleted, bytesFreed, keptYoung, …)',
    request: { body: jsonBody(z.object({ graceSeconds: z.number().int().min(3600).optional().openapi({ description: 'keep unreferenced content stamped this recently (seconds; default and least 3600)' }) })) },
    responses: {
      200: json('what the collection found and deleted', CollectResultSchema),
      ...ACCESS_RESPONSES,
      400: errorResponse('malformed JSON or YAML'),
      422: errorResponse('graceSeconds below 3600 or not a whole number'),
      503: errorResponse('no store configured, the store failed, a visible version that does not read back (nothing is deleted), or no tokens on a serverless deployment'),
    },
  });

  // Write a cluster; read it (write implies read); or read one node's tables (a node agent's token).
  const clusterOf = (c: Context) => c.req.param('cluster')!;
  const write = requireAccess(access, (c) => ({ access: 'write', cluster: clusterOf(c) }));
  const read = requireAccess(access, (c) => ({ access: 'read', cluster: clusterOf(c) }));
  const readNode = requireAccess(access, (c) => ({ access: 'read', cluster: clusterOf(c), node: c.req.param('node')! }));

  app.put('/v1/clusters/:cluster/snapshots/:version', write, async (c) => publish(c, need(), deps, c.req.param('cluster'), c.req.param('version')));
  app.post('/v1/clusters/:cluster/snapshots', write, async (c) => publish(c, need(), deps, c.req.param('cluster'), null));
  app.delete('/v1/clusters/:cluster/snapshots/:version', write, async (c) => {
    const [name, version] = [c.req.param('cluster'), c.req.param('version')];
    const removed = await storeErrors(need().deleteVersion(name, version)).catch((e: unknown) => {
      if (e instanceof VersionIsLatestError) throw new ApiError('conflict', e.message, undefined, { body: { latest: version } });
      throw e;
    });
    if (!removed) throw new ApiError('not_found', `version ${version} of cluster ${name} is not stored (or expired)`);
    deps.polls?.forget(name);
    return c.body(null, 204);
  });
  app.put('/v1/clusters/:cluster/latest', write, async (c) => {
    const name = c.req.param('cluster');
    const body = parseBody(await c.req.text(), c.req.header('content-type'));
    const version = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).version : undefined;
    if (typeof version !== 'string' || version === '') throw invalid([{ path: '$.version', message: 'the stored version to make latest: {"version": "<resourceVersion>"}' }]);
    const moved = await storeErrors(need().setLatest(name, version)).catch((e: unknown) => {
      if (e instanceof VersionIncompleteError) throw new ApiError('conflict', e.message, undefined, { body: { missing: e.missing } });
      throw e;
    });
    if (!moved) throw new ApiError('not_found', `version ${version} of cluster ${name} is not stored (or expired)`);
    // The warm state follows latest only through publishes: drop it rather than keep a stale guess.
    deps.warm.drop(name);
    deps.polls?.forget(name);
    return c.json({ cluster: name, latest: moved.latest, previous: moved.previous });
  });
  // Every cluster's content is shared: only a token that writes every cluster may collect it.
  app.post('/v1/store/collect', requireAccess(access, () => ({ access: 'write', cluster: '*' })), async (c) => {
    const text = await c.req.text();
    const body = text.trim() === '' ? {} : parseBody(text, c.req.header('content-type'));
    const grace = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).graceSeconds : undefined;
    if (grace !== undefined && typeof grace !== 'number') throw invalid([{ path: '$.graceSeconds', message: 'seconds, a whole number of at least 3600' }]);
    return c.json(await storeErrors(need().collect(grace === undefined ? {} : { graceSeconds: grace })));
  });
  app.get('/v1/clusters/:cluster/snapshots', read, async (c) => {
    const limit = c.req.query('limit');
    return c.json(await storeErrors(need().listVersions(c.req.param('cluster'), { ...(limit ? { limit: Number(limit) } : {}), cursor: c.req.query('cursor') ?? null })));
  });
  app.get('/v1/clusters/:cluster/snapshots/:version', read, async (c) => {
    const header = await storeErrors(need().getHeader(c.req.param('cluster'), c.req.param('version')));
    if (!header) throw new ApiError('not_found', `version ${c.req.param('version')} of cluster ${c.req.param('cluster')} is not stored (or expired)`);
    return c.json(header);
  });
  app.get('/v1/clusters/:cluster/nodes/:node/tables', readNode, async (c) => nodeTablesResponse(c, need(), deps.polls!, flatOf, c.req.param('cluster'), c.req.param('node')));
}
