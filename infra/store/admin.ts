// Moving latest on purpose and removing a version: what an operator does, not a publisher.
// Rollback makes any stored, unexpired version latest again (its expiry removed first, so a
// crash after the move never leaves a latest that expires); the version it replaces expires as
// after any move. Delete expires a version that is not latest at once.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { HEAD_SK, chunkCount } from './blob.js';
import type { StoreContext } from './context.js';
import { isExpired } from './header.js';
import { checkName, headerKey, pointerKey } from './keys.js';
import { reconcile, unretireItems } from './lifecycle.js';
import { versionNeeds } from './needed.js';
import { moveLatest, settle } from './pointer.js';
import { VersionIncompleteError, VersionIsLatestError, type SetLatestResult } from './types.js';

async function visibleHeader(ctx: StoreContext, cluster: string, version: string): Promise<Item | null> {
  checkName('cluster', cluster);
  checkName('version', version);
  const header = await ctx.backend.getItem(headerKey(cluster, version));
  return header && !isExpired(header, ctx.nowSeconds()) ? header : null;
}

export async function setLatest(ctx: StoreContext, cluster: string, version: string): Promise<SetLatestResult | null> {
  const header = await visibleHeader(ctx, cluster, version);
  if (!header) return null;
  const missing = await missingItems(ctx, cluster, version, header);
  if (missing.length > 0) throw new VersionIncompleteError(cluster, version, missing);
  const pointer = await ctx.backend.getItem(pointerKey(cluster));
  if (pointer && pointer.version === version) {
    await settle(ctx, cluster, pointer);
    return { cluster, latest: version, previous: version, moved: false };
  }
  await unretireItems(ctx, cluster, version);
  const moved = await moveLatest(ctx, cluster, version, { restore: true, publish: false }, pointer);
  // Without conditions every move ends at the version.
  return { cluster, latest: version, previous: moved.latest ? moved.previous : null, moved: true };
}

export async function deleteVersion(ctx: StoreContext, cluster: string, version: string): Promise<boolean> {
  const header = await visibleHeader(ctx, cluster, version);
  if (!header) return false;
  const pointer = await ctx.backend.getItem(pointerKey(cluster));
  const latest = pointer ? String(pointer.version) : null;
  if (latest === version) throw new VersionIsLatestError(cluster, version);
  // Expires now: the header is hidden from this second on; DynamoDB's TTL deletes the items.
  // A rollback to it that won the race keeps it (then this is a 409 after all).
  if (await reconcile(ctx, cluster, version, ctx.nowSeconds(), latest)) throw new VersionIsLatestError(cluster, version);
  return true;
}

/**
 * The items a version is read from that do not read back (or have expired): its own (manifest
 * shards, node list, object group index; per-node manifests of the earlier layout, every chunk)
 * and the shared ones they name (manifests, tables, set bodies, object groups: needed.ts).
 */
export async function missingItems(ctx: StoreContext, cluster: string, version: string, header: Item): Promise<string[]> {
  const needs = await versionNeeds(ctx, cluster, version, header);
  const gone = await absent(ctx, [...needs.shared]);
  // A pack that is gone is missing only where the bodies read from it are not each stored on their own.
  const packsGone = gone.filter((pk) => needs.packed.has(pk));
  const unpacked = new Set(await absent(ctx, packsGone.flatMap((pk) => [...needs.packed.get(pk)!])));
  const lost = new Set(packsGone.filter((pk) => [...needs.packed.get(pk)!].some((own) => unpacked.has(own))));
  return [...new Set([...needs.unreadable, ...gone.filter((pk) => !needs.packed.has(pk) || lost.has(pk))])];
}

/** Shared items are checked by key only (every chunk there), not read whole. */
async function absent(ctx: StoreContext, pks: readonly string[]): Promise<string[]> {
  if (pks.length === 0) return [];
  const now = ctx.nowSeconds();
  const heads = await ctx.backend.getItems(pks.map((pk) => ({ pk, sk: HEAD_SK })), { attributes: ['chunks', TTL_ATTRIBUTE], consistent: true });
  const tails = heads.flatMap((h) => Array.from({ length: chunkCount(h) - 1 }, (_, i) => ({ pk: h.pk, sk: String(i + 1) })));
  const found = tails.length > 0 ? await ctx.backend.getItems(tails, { attributes: [], consistent: true }) : [];
  const tailCount = new Map<string, number>();
  for (const t of found) tailCount.set(t.pk, (tailCount.get(t.pk) ?? 0) + 1);
  const whole = new Set(heads.filter((h) => !isExpired(h, now) && (tailCount.get(h.pk) ?? 0) === chunkCount(h) - 1).map((h) => h.pk));
  return pks.filter((pk) => !whole.has(pk));
}
