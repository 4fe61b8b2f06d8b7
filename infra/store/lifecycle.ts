// Expiry of a version's own items. A version the pointer has passed expires (retire); one made
// latest again loses its expiry (unretire, the reverse). Which of the two a version needs is
// read from the pointer, and read again after writing: a publish that moved the pointer
// meanwhile may have changed it, and then the writes are done again (reconcile), so concurrent
// moves, rollbacks and retirements end with the latest version never expiring.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { HEAD_SK, chunkCount, readBlobs } from './blob.js';
import { mapLimit } from './concurrency.js';
import { decodeNodes } from './codec.js';
import type { StoreContext } from './context.js';
import type { ItemKey } from './keys.js';
import { headerKey, manifestPk, manifestShardPk, nodesPk, objectsPk, orderKey, pointerKey } from './keys.js';

/** The version's own items, every chunk (manifest shards, node list, object group index; per-node manifests of the earlier layout). */
async function ownChunkKeys(ctx: StoreContext, cluster: string, version: string, header: Item): Promise<ItemKey[]> {
  const snapshotHash = String(header.snapshotHash);
  const listPk = nodesPk(cluster, version, snapshotHash);
  const shards = typeof header.manifestShards === 'number' ? header.manifestShards : null;
  // Versions written before manifests were shared name their own manifests by node: the list
  // says which. It precedes the header, so it is missing only if an earlier TTL already removed
  // it: then its manifests cannot be found (and expire by that same TTL).
  const list = shards === null ? (await readBlobs(ctx, [listPk])).complete.get(listPk) : undefined;
  const own = shards !== null ? Array.from({ length: shards }, (_, i) => manifestShardPk(cluster, version, snapshotHash, i)) : (list ? decodeNodes(list.bytes) : []).map((node) => manifestPk(cluster, version, snapshotHash, node));
  const heads = await ctx.backend.getItems(
    [listPk, objectsPk(cluster, version, snapshotHash), ...own].map((pk) => ({ pk, sk: HEAD_SK })),
    { attributes: ['chunks'], consistent: true },
  );
  return heads.flatMap((h) => Array.from({ length: chunkCount(h) }, (_, i) => ({ pk: h.pk, sk: String(i) })));
}

/**
 * Sets the TTL `expiresAt` on a version's own items, its order item, then its header; an earlier
 * expiry one of them already has is kept (a deleted version stays deleted). Content-addressed
 * items are shared with other versions and never expire. Idempotent.
 */
export async function retireItems(ctx: StoreContext, cluster: string, version: string, expiresAt: number): Promise<void> {
  if (await retireKnownItems(ctx, cluster, version, expiresAt)) return;
  const header = await ctx.backend.getItem(headerKey(cluster, version));
  if (!header) return;
  const notLater = { attribute: TTL_ATTRIBUTE, absentOrAbove: expiresAt };
  const keys = await ownChunkKeys(ctx, cluster, version, header);
  if (typeof header.seq === 'number') keys.push(orderKey(cluster, header.seq));
  await mapLimit(keys, ctx.concurrency, (k) => ctx.backend.updateIfExists(k, { [TTL_ATTRIBUTE]: expiresAt }, notLater));
  // Header last: while it has no TTL the version is fully readable, manifests included.
  await ctx.backend.updateIfExists(headerKey(cluster, version), { [TTL_ATTRIBUTE]: expiresAt }, [{ attribute: 'snapshotHash', equals: header.snapshotHash! }, notLater]);
}

// An expiry at least this far ahead is nowhere near its deletion: the items and the header may
// get it in any order (nothing is deleted while the writes are made, and a stop between them is
// finished by the next settle, which still lists the version).
const AHEAD_SECONDS = 60;

/**
 * retireItems for a version this process published and made latest, from its own item keys as
 * written (hints.ts), with no reads: all at once, the header's write conditioned on its snapshot
 * hash. false when that write did not apply (the version is gone, already expiring, or stored
 * again by another writer): the caller reads what to retire from the store.
 */
async function retireKnownItems(ctx: StoreContext, cluster: string, version: string, expiresAt: number): Promise<boolean> {
  const own = ctx.ownItems.get(cluster, version);
  if (own?.seq === undefined || expiresAt - ctx.nowSeconds() < AHEAD_SECONDS) return false;
  const notLater = { attribute: TTL_ATTRIBUTE, absentOrAbove: expiresAt };
  // The own items are keyed by the snapshot hash, so no other content is ever under their keys:
  // written again with the expiry in one batch (a conditional update each was a round trip each
  // in the embedded store). Unlike the updates they may lengthen an earlier expiry (a deletion's):
  // harmless, the header keeps its own and hides the version.
  const [applied] = await Promise.all([
    ctx.backend.updateIfExists(headerKey(cluster, version), { [TTL_ATTRIBUTE]: expiresAt }, [{ attribute: 'snapshotHash', equals: own.snapshotHash }, notLater]),
    ctx.backend.updateIfExists(orderKey(cluster, own.seq), { [TTL_ATTRIBUTE]: expiresAt }, notLater),
    ctx.backend.putItems(own.items.map((item) => ({ ...item, [TTL_ATTRIBUTE]: expiresAt }))),
  ]);
  // Retired once: a later retirement (a deletion, a shorter expiry) reads the store.
  ctx.ownItems.forget(cluster, version);
  return applied;
}

/**
 * The reverse of retireItems: removes the TTL from a version's own items, then from its header
 * (last, so a crash leaves items that do not expire, never a header whose items do). Its older
 * order items keep theirs: the next pointer move writes a new one. Idempotent.
 */
export async function unretireItems(ctx: StoreContext, cluster: string, version: string): Promise<void> {
  const header = await ctx.backend.getItem(headerKey(cluster, version));
  if (!header) return;
  const keys = await ownChunkKeys(ctx, cluster, version, header);
  await mapLimit(keys, ctx.concurrency, (k) => ctx.backend.removeIfExists(k, [TTL_ATTRIBUTE]));
  await ctx.backend.removeIfExists(headerKey(cluster, version), [TTL_ATTRIBUTE], { attribute: 'snapshotHash', equals: header.snapshotHash! });
}

const pointerVersion = async (ctx: StoreContext, cluster: string): Promise<string | null> => {
  const p = await ctx.backend.getItem(pointerKey(cluster));
  return p ? String(p.version) : null;
};

// A pointer that moves on between every write and its check is contention with more moves in a
// row than any real publisher makes.
const MAX_ROUNDS = 20;

/**
 * Gives a version the expiry its place asks for: none while the pointer names it, else
 * `expiresAt` (retention, or now for a deletion). `latest`: the pointer's version if the caller
 * has just read it. True when the version is latest (and so does not expire) afterwards.
 * Every round re-reads the pointer after its writes: whichever call writes last has read the
 * pointer after the last move, so the items end as the last move asks.
 */
export async function reconcile(ctx: StoreContext, cluster: string, version: string, expiresAt: number, latest?: string | null): Promise<boolean> {
  let current = latest === undefined ? await pointerVersion(ctx, cluster) : latest;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const live = current === version;
    await (live ? unretireItems(ctx, cluster, version) : retireItems(ctx, cluster, version, expiresAt));
    current = await pointerVersion(ctx, cluster);
    if ((current === version) === live) return live;
  }
  throw new Error(`the latest pointer of cluster ${cluster} kept moving to and from ${version} during ${MAX_ROUNDS} rounds`);
}

export const retentionEnd = (ctx: StoreContext): number => ctx.nowSeconds() + ctx.retentionSeconds;
