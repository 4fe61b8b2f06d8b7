// The latest pointer (`c#<cluster> / latest`) names the version published last: Kubernetes'
// resourceVersions "must not be assumed ... numeric or collatable" (order.ts), so every publish
// that stores a version moves the pointer to it, whatever the versions are. A move is a
// compare-and-swap on the pointer's move number `seq`, which only grows (a condition on the
// version alone would let a move pass after a rollback to the same version: A → B → A). After
// the swap, each idempotent and all at once: the order item p#<seq> naming the version, the
// header's `seq`, the expiry of the versions the move replaced (kept on the pointer as `retire`
// until then); then `settled` on the pointer. A crash anywhere is finished by a retry of that
// publish or by the next move, which settles the order item of the pointer it replaces first.
import type { AttrValue, Item } from './backend.js';
import type { StoreContext } from './context.js';
import { isLegacyHeader } from './header.js';
import { ORDER_SK_PREFIX, clusterPk, headerKey, orderKey, pointerKey } from './keys.js';
import { reconcile, retentionEnd, retireItems, unretireItems } from './lifecycle.js';
import { unmetCondition, type UnmetCondition } from './order.js';
import { StoreCorruptionError, type LatestConditions } from './types.js';
import { TTL_ATTRIBUTE } from './backend.js';

// Each failed swap means another publisher moved the pointer; more than this many in a row is
// not contention but a bug.
const MAX_POINTER_SWAPS = 50;

export function retireList(pointer: Item): string[] {
  const raw = pointer.retire;
  if (raw === undefined) return [];
  const list: unknown = JSON.parse(String(raw));
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new StoreCorruptionError(`malformed latest pointer ${pointer.pk}`);
  return list;
}

const seqOf = (pointer: Item): number | null => (typeof pointer.seq === 'number' ? pointer.seq : null);

/** The swap's condition: the move number, or the version on a pointer written before moves were numbered. */
const unchanged = (pointer: Item) => (seqOf(pointer) !== null ? { attribute: 'seq', equals: pointer.seq! } : { attribute: 'version', equals: pointer.version! });

/**
 * Where a stored version stands: the latest; passed (the pointer was at it and moved on, or an
 * earlier netpolc retired it); or never made latest (its publish stopped before the move, or
 * its conditions failed there).
 */
export function placeOf(header: Item, pointer: Item | null): 'latest' | 'passed' | 'unpublished' {
  const version = String(header.version);
  if (pointer && pointer.version === version) return 'latest';
  if (typeof header.seq === 'number' || (pointer && retireList(pointer).includes(version))) return 'passed';
  if (isLegacyHeader(header) && header[TTL_ATTRIBUTE] !== undefined) return 'passed';
  return 'unpublished';
}

/** The highest move number with an order item: where numbering resumes on a pointer written by an earlier netpolc. */
async function lastOrderSeq(ctx: StoreContext, cluster: string): Promise<number> {
  const { items } = await ctx.backend.queryPage(clusterPk(cluster), { skPrefix: ORDER_SK_PREFIX, limit: 1, descending: true });
  return items.length > 0 && typeof items[0]!.seq === 'number' ? items[0]!.seq : 0;
}

/** The order item and the header's `seq` of the pointer's move (both idempotent; the header's `seq` only grows). */
async function recordOrder(ctx: StoreContext, cluster: string, pointer: Item): Promise<void> {
  const seq = seqOf(pointer);
  if (seq === null) return;
  // Independent and idempotent: written at once.
  await Promise.all([
    ctx.backend.putItems([{ ...orderKey(cluster, seq), version: pointer.version!, seq }]),
    ctx.backend.updateIfExists(headerKey(cluster, String(pointer.version)), { seq }, { attribute: 'seq', absentOrBelow: seq }),
  ]);
}

/** Finishes what the move to `pointer` left: order item, restored expiry, retirements; then marks it settled. */
export async function settle(ctx: StoreContext, cluster: string, pointer: Item): Promise<void> {
  const pending = retireList(pointer);
  const numbered = seqOf(pointer) !== null;
  if ((!numbered || pointer.settled === true) && pending.length === 0) return;
  const version = String(pointer.version);
  const settled: Record<string, AttrValue> = numbered ? { retire: '[]', settled: true } : { retire: '[]' };
  if (numbered) {
    // One pass, the pointer not read again: `settled` is a swap on the move number, so it lands
    // only if no move came since, i.e. every write here was made while this move stood and
    // each expiry matches it. If one came, the pass below sets each expiry by the pointer read.
    await Promise.all([
      recordOrder(ctx, cluster, pointer),
      pointer.restore === true ? unretireItems(ctx, cluster, version) : null,
      ...pending.map((v) => retireItems(ctx, cluster, v, retentionEnd(ctx))),
    ]);
    if (await ctx.backend.updateIfExists(pointerKey(cluster), settled, unchanged(pointer))) {
      ctx.pointers.remember(cluster, { ...pointer, ...settled });
      return;
    }
  }
  // Each step touches its own items and may run in any order (a stop between them is finished by
  // the next settle); only `settled` must come last.
  await Promise.all([
    recordOrder(ctx, cluster, pointer),
    // A version made latest again (rollback, or a publish that had failed its conditions): no expiry.
    pointer.restore === true ? reconcile(ctx, cluster, version, retentionEnd(ctx), version) : null,
    ...pending.map((v) => reconcile(ctx, cluster, v, retentionEnd(ctx), version)),
  ]);
  await ctx.backend.updateIfExists(pointerKey(cluster), settled, unchanged(pointer));
}

export type MoveResult =
  | { readonly latest: true; readonly previous: string | null }
  | { readonly latest: false; readonly current: string | null; readonly unmet: UnmetCondition }
  | { readonly latest: false; readonly current: string | null; readonly unmet: null };

/**
 * Moves the pointer to `version` unless `conditions` fail against the pointer it swaps (checked
 * on every attempt: the swap's condition makes the check and the move one step). `restore`: the
 * version may carry an expiry that its settling removes. `publish`: a publish, which moves the
 * pointer only to a version never latest before (unmet: null when another writer made it latest
 * and moved on while this one waited). `read`: the pointer as just read. `settleLater`: the move
 * is settled after the answer (after-answer.ts).
 */
export async function moveLatest(ctx: StoreContext, cluster: string, version: string, opts: { readonly conditions?: LatestConditions; readonly restore: boolean; readonly publish: boolean; readonly guessed?: boolean; readonly settleLater?: boolean }, read?: Item | null): Promise<MoveResult> {
  const key = pointerKey(cluster);
  let current = read === undefined ? await ctx.backend.getItem(key) : read;
  // `guessed`: `read` is the pointer as last seen here, not read now. A swap checks it, but an
  // unmet condition is answered without a swap: a guess is read again before that answer.
  let guessed = opts.guessed === true;
  for (let swap = 0; swap < MAX_POINTER_SWAPS; swap++, current = await ctx.backend.getItem(key), ctx.pointers.remember(cluster, current)) {
    if (current && current.version === version) {
      await settle(ctx, cluster, current);
      return { latest: true, previous: version };
    }
    if (swap > 0 && opts.publish) {
      const header = await ctx.backend.getItem(headerKey(cluster, version));
      if (header && placeOf(header, current) === 'passed') return { latest: false, current: current ? String(current.version) : null, unmet: null };
    }
    const unmet = unmetCondition(opts.conditions, current ? String(current.version) : null, version);
    if (unmet && guessed) {
      guessed = false;
      continue;
    }
    if (unmet) return { latest: false, current: current ? String(current.version) : null, unmet };
    // The move this one replaces gets its order item first, so no version it passes goes unlisted.
    if (current && current.settled !== true) await recordOrder(ctx, cluster, current);
    const seq = (current ? (seqOf(current) ?? (await lastOrderSeq(ctx, cluster))) : 0) + 1;
    const pending = current ? [String(current.version), ...retireList(current)].filter((v) => v !== version) : [];
    const next: Item = {
      ...key,
      version,
      seq,
      retire: JSON.stringify([...new Set(pending)]),
      ...(opts.restore ? { restore: true } : {}),
      // Headers of an earlier netpolc have no order items: the listing reads them after the rest.
      ...(current && (current.legacy === true || seqOf(current) === null) ? { legacy: true } : {}),
    };
    if (await ctx.backend.putIfUnchanged(next, current ? unchanged(current) : null)) {
      ctx.pointers.remember(cluster, next);
      const own = ctx.ownItems.get(cluster, version);
      if (own) own.seq = seq;
      if (opts.settleLater) ctx.afterAnswer.add(cluster, () => settle(ctx, cluster, next));
      else await settle(ctx, cluster, next);
      return { latest: true, previous: current ? String(current.version) : null };
    }
  }
  throw new Error(`the latest pointer of cluster ${cluster} kept moving during ${MAX_POINTER_SWAPS} attempts`);
}
