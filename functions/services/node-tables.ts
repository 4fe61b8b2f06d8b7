// A node's part of a stored version, as node agents poll it: the set form's slice, flat tables,
// or a rendered artifact; from a version the agent holds (`since`), the delta; an entity tag per
// (tables, format, part), so an unchanged poll is a 304 answered from memory (poll-index.ts).
import type { IrNode } from '../../core/compile/index.js';
import { diffNode, nodeDelta, type NodeBindings, type NodeSlice } from '../../core/diff/index.js';
import { DATAPLANES, iptablesDelta, nftables, nftDelta, rendersSets } from '../../core/render/index.js';
import { refusedAt, renderAsked } from '../render-asked.js';
import { IdRecord, SET_IR_VERSION, type SetIr } from '../../core/sets/index.js';
import type { CompileFormat } from '../../schemas/formats.js';
import { StoreCorruptionError, type NodeTables, type SnapshotStore } from '../../infra/store/types.js';
import { ApiError, invalid } from '../errors.js';
import type { PollIndex } from '../poll-index.js';
import { nextTurn } from '../turns.js';
import { requireStore, storeErrors, type StoredClusters } from './stored-clusters.js';

export const IPTABLES_PARTS = ['ipset', 'ipv4', 'ipv6', 'hooks', 'cleanup'] as const;
type IptablesPart = (typeof IPTABLES_PARTS)[number];

export interface NodeTablesRequest {
  readonly cluster: string;
  readonly node: string;
  readonly format: CompileFormat;
  /** A stored version; the latest when undefined. */
  readonly version: string | undefined;
  readonly since: string | undefined;
  readonly part: string | undefined;
  /** The Accept header prefers text/plain. */
  readonly prefersText: boolean;
  readonly ifNoneMatch: string | undefined;
}

/** The answer and the headers it carries; `etag` and `version` go on every answer, a 304 too. */
export type NodeTablesAnswer = { readonly etag: string; readonly version: string } & (
  | { readonly kind: 'not-modified' }
  | { readonly kind: 'json'; readonly body: Record<string, unknown> }
  | { readonly kind: 'text'; readonly text: string; readonly headers: Readonly<Record<string, string>> }
);

/** What diffNode reads of a flat node. */
const flatBindings = (n: IrNode): NodeBindings => ({ pods: n.pods, global: n.global, tableIds: Object.keys(n.tables).sort() });

/**
 * A node's slice of a stored version: every table and set its manifest names, or an error naming
 * what is missing. In steps, each on its own turn (turns.ts): on the serving thread, a crowded
 * node's read (20,000 pods: 16,000 tables, 6,000 sets) is ~50 ms of work between its awaits.
 */
async function storedSlice(store: SnapshotStore, m: NodeTables): Promise<NodeSlice> {
  const tables = await storeErrors(store.getTables(m.tableIds, m.packIndex));
  await nextTurn();
  const bodies = await storeErrors(store.getSets(Object.values(m.sets), m.packIndex));
  await nextTurn();
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

/**
 * `part=` (or Accept: text/plain) on format=iptables: one part as the raw text its tool reads —
 * `ipset restore`, `iptables-restore --noflush`, `ip6tables-restore --noflush`, the hook rules
 * one per line, the cleanup after a delta — so an agent can pipe it without parsing JSON.
 */
function iptablesPart(req: NodeTablesRequest): IptablesPart | null {
  const { part, format } = req;
  if (part === undefined) {
    if (format === 'iptables' && req.prefersText) throw invalid([{ path: '$.query.part', message: `the iptables artifact has several parts: ask for one as text with part=${IPTABLES_PARTS.join('|')}` }]);
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

export class NodeTablesReader {
  constructor(
    private readonly store: SnapshotStore | undefined,
    private readonly polls: PollIndex | null,
    private readonly clusters: StoredClusters,
  ) {}

  /** The version asked for (the latest by default), the node's tables in it and their tag; 404 or 422 as read answers them. */
  private async tagged(req: NodeTablesRequest): Promise<{ readonly current: NodeTables; readonly part: IptablesPart | null; readonly etag: string; readonly version: string }> {
    requireStore(this.store);
    const polls = this.polls!;
    const { cluster, node, format } = req;
    // Polls that find nothing changed are answered from memory (poll-index.ts).
    const latest = req.version === undefined ? await storeErrors(polls.latest(cluster)) : null;
    const version = req.version ?? latest?.version;
    if (!version) throw new ApiError('not_found', `no snapshot stored for cluster ${cluster}`);
    const current = await storeErrors(polls.nodeTables(cluster, version, node, latest));
    if (!current) throw new ApiError('not_found', `node ${node} is not part of version ${version} of cluster ${cluster}`);
    const part = iptablesPart(req);
    return { current, part, etag: `"${current.hash}.${format}${part ? `.${part}` : ''}"`, version };
  }

  /** A poll that nothing changed for (If-None-Match holds the tag): its tag and version, else null. The first step of read. */
  async unchanged(req: NodeTablesRequest): Promise<{ readonly etag: string; readonly version: string } | null> {
    if (!req.ifNoneMatch) return null;
    const { etag, version } = await this.tagged(req);
    return matches(req.ifNoneMatch, etag) ? { etag, version } : null;
  }

  async read(req: NodeTablesRequest): Promise<NodeTablesAnswer> {
    const store = requireStore(this.store);
    const polls = this.polls!;
    const { cluster, node, format, since } = req;
    const { current, part, etag, version } = await this.tagged(req);
    const tagged = { etag, version };
    if (matches(req.ifNoneMatch, etag)) return { ...tagged, kind: 'not-modified' };
    const json = (body: Record<string, unknown>): NodeTablesAnswer => ({ ...tagged, kind: 'json', body });
    const text = (t: string, headers: Record<string, string> = {}): NodeTablesAnswer => ({ ...tagged, kind: 'text', text: t, headers });

    // An unknown or expired `since` gets the full artifact: an agent can always act on the answer.
    const previous: NodeTables | null = since && (format === 'ir' || format === 'ir-flat' || format === 'nftables' || format === 'iptables') ? await storeErrors(polls.nodeTables(cluster, since, node, null)) : null;
    // Flat tables past their limits (core/compile/flat-limits.ts) are a 422 at the format asked for.
    const flatNode = (v: string) => this.clusters.flatNode(cluster, v, node).catch(refusedAt('$.query.format'));
    if (format === 'ir-flat') {
      const flat = await flatNode(version);
      if (previous) {
        const d = diffNode(flatBindings(await flatNode(since!)), flatBindings(flat));
        return json({ cluster, node, from: since, to: version, full: false, tablesAdded: Object.fromEntries(d.tablesAdded.map((id) => [id, flat.tables[id]!])), tablesRemoved: d.tablesRemoved, bindingsChanged: d.bindingsChanged, global: flat.global });
      }
      return json({ cluster, node, version, full: true, ...flat });
    }
    const slice = await storedSlice(store, current);
    if (format === 'ir') {
      if (previous) return json({ cluster, node, from: since, to: version, full: false, format, delta: nodeDelta(await storedSlice(store, previous), slice) });
      const ir = asSetIr(node, slice);
      await nextTurn();
      return json({ cluster, node, version, full: true, format, ir });
    }
    // nftables from a known version: one transaction from that version's ruleset to this one
    // (nftables-delta.ts), unless the whole script is no larger. x-netpolc-full says which an agent got.
    if (format === 'nftables' && previous) {
      const before = await storedSlice(store, previous);
      const script = nftDelta(node, since!, version, before, nodeDelta(before, slice));
      const whole = nftables.render(asSetIr(node, slice))[node]!;
      if (script.length < whole.length) return text(script, { 'x-netpolc-full': 'false', 'x-netpolc-since': since! });
      return text(whole, { 'x-netpolc-full': 'true' });
    }
    // iptables from a known version: ipset and --noflush restore payloads from that version's
    // rules, plus `cleanup` to run after them (iptables-delta.ts); `full` says which an agent got.
    if (format === 'iptables' && previous) {
      const before = await storedSlice(store, previous);
      const delta = iptablesDelta(node, since!, version, before, nodeDelta(before, slice));
      if (delta) {
        if (part) return text(partText(delta, part), { 'x-netpolc-full': 'false', 'x-netpolc-since': since! });
        return json({ cluster, node, from: since, to: version, full: false, format, rendered: delta });
      }
    }
    // Otherwise the whole artifact.
    const whole: Record<string, string> = format === 'nftables' ? { 'x-netpolc-full': 'true' } : {};
    const dataplane = DATAPLANES[format]!;
    const flat: IrNode | null = rendersSets(dataplane) ? null : await flatNode(version);
    const rendered = renderAsked(dataplane, () => asSetIr(node, slice), () => ({ nodes: { [node]: flat! } }), '$.query.format')[node];
    if (typeof rendered === 'string') return text(rendered, whole);
    if (part) return text(partText(rendered as object, part), { 'x-netpolc-full': 'true' });
    // nftables renders text: a JSON artifact never carries x-netpolc-full.
    return json({ cluster, node, version, full: true, format, rendered });
  }
}
