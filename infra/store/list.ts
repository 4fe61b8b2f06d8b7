// The listing, in publish order (resourceVersions are not collatable, order.ts): the latest
// version, then the order items (p#<seq>, one per
// pointer move) newest first, each shown only if it is its version's last move (the header's
// `seq`: a version rolled back to has an older order item too) and the version has not expired;
// then, for clusters stored by an earlier netpolc, its headers (which have no order items), in
// the order that netpolc listed them. Read page by page from the store, never sorted in memory.
// Versions stored but never made latest (a publish that stopped before the move, or whose
// conditions failed there) are not in publish order and not listed: GET by version reads them.
import type { Item } from './backend.js';
import type { StoreContext } from './context.js';
import { isExpired, isLegacyHeader, summaryFromItem } from './header.js';
import { HEADER_SK_PREFIX, ORDER_SK_PREFIX, checkName, clusterPk, headerKey, pointerKey } from './keys.js';
import { StoreInputError, type ListVersionsOptions, type VersionPage, type VersionSummary } from './types.js';

const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
// Queries one call may make: a page behind many expired or superseded items ends early, with a cursor.
const MAX_QUERIES = 10;

/** Where a listing stands: before the latest, or after an order item or legacy header key (null: before the first). */
type Position = { readonly phase: 'top' } | { readonly phase: 'order' | 'legacy'; readonly sk: string | null };

interface Candidate {
  readonly at: Position;
  /** null when the item is not listed (expired, superseded, the latest again). */
  readonly summary: VersionSummary | null;
}

export async function listVersions(ctx: StoreContext, cluster: string, opts: ListVersionsOptions = {}): Promise<VersionPage> {
  checkName('cluster', cluster);
  const limit = opts.limit ?? DEFAULT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw new StoreInputError('limit', `limit must be an integer from 1 to ${MAX_PAGE}`);
  const from = opts.cursor ? decodeCursor(opts.cursor) : ({ phase: 'top' } as const);
  const pointer = await ctx.backend.getItem(pointerKey(cluster));
  if (!pointer) return { versions: [], cursor: null };
  const versions: VersionSummary[] = [];
  const budget = { queries: 0 };
  let last: Position = from;
  for await (const c of candidates(ctx, cluster, pointer, from, Math.min(limit + 1, MAX_PAGE), budget)) {
    if (c.summary) {
      // One more than needed tells whether a next page exists.
      if (versions.length === limit) return { versions, cursor: encodeCursor(last) };
      versions.push(c.summary);
    }
    last = c.at;
    if (budget.queries >= MAX_QUERIES && versions.length < limit) return { versions, cursor: encodeCursor(last) };
  }
  return { versions, cursor: null };
}

async function* candidates(ctx: StoreContext, cluster: string, pointer: Item, from: Position, pageSize: number, budget: { queries: number }): AsyncGenerator<Candidate> {
  const latest = String(pointer.version);
  const now = ctx.nowSeconds();
  const visible = (h: Item | undefined | null): h is Item => !!h && !isExpired(h, now);
  let at = from;
  if (at.phase === 'top') {
    // The latest heads the list even before its order item is written (a move not settled yet).
    const header = await ctx.backend.getItem(headerKey(cluster, latest));
    at = { phase: 'order', sk: null };
    yield { at, summary: visible(header) ? summaryFromItem(cluster, header) : null };
  }
  if (at.phase === 'order') {
    for (let after = at.sk; ; ) {
      budget.queries++;
      const page = await ctx.backend.queryPage(clusterPk(cluster), { skPrefix: ORDER_SK_PREFIX, limit: pageSize, descending: true, startAfterSk: after });
      const named = [...new Set(page.items.map((i) => String(i.version)))].filter((v) => v !== latest);
      const headers = named.length > 0 ? await ctx.backend.getItems(named.map((v) => headerKey(cluster, v)), { consistent: true }) : [];
      const byVersion = new Map(headers.map((h) => [String(h.version), h]));
      for (const item of page.items) {
        const header = byVersion.get(String(item.version));
        const shown = visible(header) && header.seq === item.seq && header.version !== latest;
        yield { at: { phase: 'order', sk: item.sk }, summary: shown ? summaryFromItem(cluster, header) : null };
      }
      if (page.lastSk === null) break;
      after = page.lastSk;
    }
    // Only a pointer an earlier netpolc wrote, or moved since, has headers without order items.
    if (!(pointer.legacy === true || typeof pointer.seq !== 'number')) return;
    at = { phase: 'legacy', sk: null };
  }
  for (let after = at.sk; ; ) {
    budget.queries++;
    const page = await ctx.backend.queryPage(clusterPk(cluster), { skPrefix: HEADER_SK_PREFIX, limit: pageSize, descending: true, startAfterSk: after });
    for (const header of page.items) {
      const shown = visible(header) && isLegacyHeader(header) && header.version !== latest;
      yield { at: { phase: 'legacy', sk: header.sk }, summary: shown ? summaryFromItem(cluster, header) : null };
    }
    if (page.lastSk === null) return;
    after = page.lastSk;
  }
}

// Opaque to clients: base64url of the phase and the last key read.
const base64url = (text: string): string => btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');

function encodeCursor(at: Position): string {
  return base64url(at.phase === 'top' ? 't:' : `${at.phase === 'order' ? 'o' : 'l'}:${at.sk ?? ''}`);
}

function decodeCursor(cursor: string): Position {
  let text: string;
  try {
    text = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
  } catch {
    throw new StoreInputError('cursor', 'malformed cursor');
  }
  const [phase, sk] = [text.slice(0, 2), text.slice(2)];
  if (phase === 't:' && sk === '') return { phase: 'top' };
  if (phase === 'o:' && (sk === '' || /^p#[0-9]{16}$/.test(sk))) return { phase: 'order', sk: sk || null };
  if (phase === 'l:' && (sk === '' || (sk.startsWith(HEADER_SK_PREFIX) && sk.length <= 140 && /^[!-~]+$/.test(sk)))) return { phase: 'legacy', sk: sk || null };
  throw new StoreInputError('cursor', 'malformed cursor');
}
