// Moving latest on purpose and removing a version: what an operator does, not a publisher.
// Rollback makes any stored, unexpired version latest again (its expiry removed first, so a
// crash after the move never leaves a latest that expires); the version it replaces expires as
// after any move. Delete expires a version that is not latest at once.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { HEAD_SK, chunkCount, readBlobs } from './blob.js';
import { decodeManifest, decodeManifestShard, decodeNodes, type Manifest } from './codec.js';
import { readManifest } from './manifest-read.js';
import { mapLimit } from './concurrency.js';
import type { StoreContext } from './context.js';
import { isExpired } from './header.js';
import { checkName, hashOfManifestPk, headerKey, manifestBodyPk, manifestPk, manifestShardPk, nodesPk, objectGroupPk, objectsPk, pointerKey, setPk, tablePk } from './keys.js';
import { reconcile, unretireItems } from './lifecycle.js';
import { decodeGroupIndex } from './objects.js';
import { moveLatest, settle } from './pointer.js';
import { StoreCorruptionError, VersionIncompleteError, VersionIsLatestError, type SetLatestResult } from './types.js';

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
 * and the shared ones they name (manifests, tables, set bodies, object groups).
 */
export async function missingItems(ctx: StoreContext, cluster: string, version: string, header: Item): Promise<string[]> {
  const snapshotHash = String(header.snapshotHash);
  const now = ctx.nowSeconds();
  const shards = typeof header.manifestShards === 'number' ? header.manifestShards : null;
  const listPk = nodesPk(cluster, version, snapshotHash);
  const objects = typeof header.objectsHash === 'string' ? [objectsPk(cluster, version, snapshotHash)] : [];
  const shardPks = shards === null ? [] : Array.from({ length: shards }, (_, i) => manifestShardPk(cluster, version, snapshotHash, i));
  const own = await readLive([listPk, ...objects, ...shardPks]);
  const missing = own.missing;
  const list = own.complete.get(listPk);
  const manifestPks = shards === null
    ? (list ? decodeNodes(list).map((node) => manifestPk(cluster, version, snapshotHash, node)) : [])
    : [...new Set(shardPks.flatMap((pk) => Object.values(own.complete.has(pk) ? decodeManifestShard(own.complete.get(pk)!) : {})))].map(manifestBodyPk);
  const manifests = await readLive(manifestPks);
  missing.push(...manifests.missing);
  const shared = new Set<string>();
  const use = (m: Manifest) => {
    for (const id of m.tables) shared.add(tablePk(id));
    for (const id of Object.values(m.sets)) shared.add(setPk(id));
  };
  if (shards === null) for (const bytes of manifests.complete.values()) use(decodeManifest(bytes));
  else missing.push(...(await sharedManifests([...manifests.complete.keys()], use)));
  const index = objects.length > 0 && shards !== null ? own.complete.get(objects[0]!) : undefined;
  for (const id of index ? decodeGroupIndex(index) : []) shared.add(objectGroupPk(id));
  missing.push(...(await absent([...shared])));
  return missing;

  async function readLive(pks: readonly string[]): Promise<{ complete: Map<string, Uint8Array>; missing: string[] }> {
    const { complete } = await readBlobs(ctx, pks);
    const live = new Map<string, Uint8Array>();
    for (const [pk, blob] of complete) if (!isExpired(blob.head, now)) live.set(pk, blob.bytes);
    return { complete: live, missing: pks.filter((pk) => !live.has(pk)) };
  }

  /**
   * Shared manifests, whole or patches on earlier ones (manifest-patch.ts), read as a node poll
   * reads them (the chain's links included, the result checked against its hash). Returns those
   * that cannot be read.
   */
  async function sharedManifests(pks: readonly string[], use: (m: Manifest) => void): Promise<string[]> {
    const unreadable: string[] = [];
    await mapLimit(pks, ctx.concurrency, async (pk) => {
      try {
        const m = await readManifest(ctx, hashOfManifestPk(pk));
        if (m) use(m);
        else unreadable.push(pk);
      } catch (e) {
        if (!(e instanceof StoreCorruptionError)) throw e;
        unreadable.push(pk);
      }
    });
    return unreadable;
  }

  /** Shared items are checked by key only (every chunk there), not read whole. */
  async function absent(pks: readonly string[]): Promise<string[]> {
    if (pks.length === 0) return [];
    const heads = await ctx.backend.getItems(pks.map((pk) => ({ pk, sk: HEAD_SK })), { attributes: ['chunks', TTL_ATTRIBUTE], consistent: true });
    const tails = heads.flatMap((h) => Array.from({ length: chunkCount(h) - 1 }, (_, i) => ({ pk: h.pk, sk: String(i + 1) })));
    const found = tails.length > 0 ? await ctx.backend.getItems(tails, { attributes: [], consistent: true }) : [];
    const tailCount = new Map<string, number>();
    for (const t of found) tailCount.set(t.pk, (tailCount.get(t.pk) ?? 0) + 1);
    const whole = new Set(heads.filter((h) => !isExpired(h, now) && (tailCount.get(h.pk) ?? 0) === chunkCount(h) - 1).map((h) => h.pk));
    return pks.filter((pk) => !whole.has(pk));
  }
}
