// publish: tables, set bodies, manifests and object groups (content-addressed: only those not
// stored yet are written) → manifest shards, node list and group index → header → pointer (the
// version published last is latest: pointer.ts). Until the header is written nothing of the
// version is reachable (reads start at the header, the version's own items are keyed by its
// snapshot hash), so a crash anywhere leaves at most unreferenced items, and a retry writes what
// is missing. A version from a small change writes its few new tables, sets, manifests and
// groups and its small index items, not the cluster again.
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/index.js';
import type { SetFormChange } from '../../core/sets/index.js';
import { writeBlobs, HEAD_SK, type BlobWrite } from './blob.js';
import { contentHash, encodeManifestShard, encodeNodes, type HeaderBody } from './codec.js';
import { versionManifests, writePatches, type ContentIds, type VersionManifests } from './manifest-write.js';
import type { PublishedForm, StoreContext } from './context.js';
import { TTL_ATTRIBUTE } from './backend.js';
import { headerItem, isExpired, summaryFromItem } from './header.js';
import { checkName, headerKey, pointerKey, manifestBodyPk, manifestShardCount, manifestShardPk, nodesPk, objectGroupPk, objectsPk, packIndexPk, packPk, setPk, shardOf, tablePk } from './keys.js';
import { encodeGroupIndex, groupBody, objectGroups, type ObjectGroup } from './objects.js';
import { carriedContent, changedContent, collectContent } from './content.js';
import { packedIfBroad } from './change-packs.js';
import { reconcile, retentionEnd, unretireItems } from './lifecycle.js';
import { mapLimit } from './concurrency.js';
import { isFresh, needsRefresh, WRITTEN_AT } from './content-age.js';
import { moveLatest, placeOf, settle as settlePointer } from './pointer.js';
import { LatestConditionError, VersionConflictError, type CompiledSnapshot, type PublishOptions, type PublishResult, type StoredBody } from './types.js';
import type { Item } from './backend.js';

export async function publish(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, opts: PublishOptions = {}): Promise<PublishResult> {
  checkName('cluster', cluster);
  checkName('version', version);
  checkName('snapshotHash', snap.snapshotHash);

  // A header that is already there decides alone: same content → finish (a retry after a crash
  // between header and pointer lands here), different content → 409, without rewriting anything.
  const existing = opts.headerAbsent ? null : await ctx.backend.getItem(headerKey(cluster, version));
  if (existing && !isExpired(existing, ctx.nowSeconds())) return settle(ctx, cluster, version, snap, existing, 'unchanged', opts);

  const sha256Hex = ctx.sha256Hex ?? portableSha256Hex;
  // A version compiled from one this store published: only what the compile made anew.
  // Relied on while it was stored recently (content-age.ts): else a whole publish checks it all again.
  const earlier = snap.change ? ctx.published.get(snap.change.from) : undefined;
  const from = earlier && isFresh(earlier.storedAt, ctx.nowSeconds()) ? earlier : undefined;
  const carried = !from && opts.base !== undefined ? await carriedContent(ctx, cluster, opts.base, snap, sha256Hex) : null;
  const content = await packedIfBroad(ctx, snap, from ? changedContent(ctx, snap, snap.change!, from, sha256Hex) : (carried ?? collectContent(ctx, snap, sha256Hex)), sha256Hex);
  const { objectsHash, manifestShards, manifests, groups, own } = versionItems(ctx, cluster, version, snap, { lookup: content.read ?? content.setContentIds, form: content.setContentIds }, from && snap.change ? { form: from, change: snap.change } : null, sha256Hex);
  // Everything before the header is unreachable until the header is written: written at once.
  const [ownItems] = await Promise.all([
    writeMissing(ctx, [
      { blobs: content.tables, pkOf: tablePk },
      { blobs: content.sets, pkOf: setPk },
      { blobs: content.packs?.packs ?? new Map(), pkOf: packPk },
      { blobs: content.packs ? new Map([[content.packs.index.id, content.packs.index.text]]) : new Map(), pkOf: packIndexPk },
      { blobs: manifests.wholes, pkOf: manifestBodyPk },
      { blobs: new Map(groups.map((g, i) => [g.id, encodedGroup(snap, i) ?? (() => groupBody(g))])), pkOf: objectGroupPk },
    ], own),
    writePatches(ctx, manifests.patches),
  ]);

  const body: HeaderBody = {
    nodeCount: manifests.hashes.size,
    objects: snap.objects,
    ...(snap.ignored && Object.keys(snap.ignored).length > 0 ? { ignored: snap.ignored } : {}),
    compile: snap.compile,
    tableCount: content.tableCount,
    setCount: content.setCount,
    publishedAt: ctx.nowIso(),
  };
  const packIndex = content.packs?.index.id ?? content.packIndex;
  const item = headerItem(cluster, version, snap.snapshotHash, body, { objectsHash, manifestShards, ...(packIndex !== undefined ? { packIndex } : {}) });
  // Conditional: exactly one of several concurrent publishes of this version writes the header.
  const raced = await ctx.backend.putIfAbsent(item, ctx.nowSeconds());
  // Its retirement, when the pointer passes it, then needs no reads (hints.ts).
  if (!raced) ctx.ownItems.remember(cluster, version, { snapshotHash: snap.snapshotHash, items: ownItems });
  // Every item of this set form is stored now: the next version may start from it.
  ctx.published.set(snap.ir, { setContentIds: content.setContentIds, manifests: manifests.hashes, storedAt: ctx.nowSeconds(), ...(packIndex !== undefined ? { packIndex } : {}) });
  return raced ? settle(ctx, cluster, version, snap, raced, 'unchanged', opts) : settle(ctx, cluster, version, snap, item, 'created', opts);
}

async function settle(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, header: Item, status: PublishResult['status'], opts: PublishOptions): Promise<PublishResult> {
  const stored = summaryFromItem(cluster, header);
  if (stored.snapshotHash !== snap.snapshotHash && stored.snapshotHash !== snap.formerSnapshotHash?.()) throw new VersionConflictError(cluster, version, stored.snapshotHash, snap.snapshotHash);
  const latest = await makeLatest(ctx, cluster, version, header, status === 'created', opts);
  // Re-read only when the TTL may just have been set or removed, so the result shows it.
  const summary = latest && header[TTL_ATTRIBUTE] === undefined ? stored : summaryFromItem(cluster, (await ctx.backend.getItem(headerKey(cluster, version))) ?? header);
  // Same snapshot hash, same nodes: the stored node list need not be read back.
  return { status, header: { ...summary, nodes: Object.keys(snap.ir.nodes).sort() }, latest };
}

/**
 * The pointer after a header is stored (or found stored with the same content): already latest,
 * or passed since (a late retry: left where it is), stays as it is; otherwise the version is
 * the last published and the pointer moves to it, if the conditions hold at the move. When they
 * do not, the version stays stored, not latest, and expires like a version the pointer passed.
 */
async function makeLatest(ctx: StoreContext, cluster: string, version: string, header: Item, created: boolean, opts: PublishOptions): Promise<boolean> {
  // This process's previous move of the cluster is settled first (after-answer.ts): its settled
  // pointer is the guess below, and two moves never settle at once.
  await ctx.afterAnswer.done(cluster);
  // A version just created is unpublished whatever the pointer says: the pointer as last seen
  // here is only the move's first guess (its compare-and-swap reads it again when stale).
  const guess = created ? ctx.pointers.guess(cluster) : undefined;
  const pointer = guess !== undefined ? guess : await ctx.backend.getItem(pointerKey(cluster));
  const place = created ? 'unpublished' : placeOf(header, pointer);
  if (place !== 'unpublished') {
    if (pointer) await settlePointer(ctx, cluster, pointer);
    return place === 'latest';
  }
  // Stored with an expiry (its conditions failed before): readable without one before it can be latest.
  const restore = header[TTL_ATTRIBUTE] !== undefined;
  if (restore) await unretireItems(ctx, cluster, version);
  const moved = await moveLatest(ctx, cluster, version, { ...(opts.conditions ? { conditions: opts.conditions } : {}), restore, publish: true, guessed: guess !== undefined, settleLater: opts.settleLater === true && !restore }, pointer);
  if (moved.latest) return true;
  // Made latest by a concurrent publish of the same version and passed since: as for a late retry.
  if (moved.unmet === null) return false;
  await reconcile(ctx, cluster, version, retentionEnd(ctx));
  throw new LatestConditionError(cluster, version, moved.unmet, moved.current, true);
}

// Up to this many unknown ids are written without asking which are stored (one batch write):
// a small change's few new items are almost always new, and a round trip costs more than
// writing an immutable item twice.
const BLIND_WRITES = 25;

/** A group as the snapshot hash encoded it (CompiledSnapshot.encodedRuns): the groups are cut from its runs, one for one. */
const encodedGroup = (snap: CompiledSnapshot, i: number): StoredBody | undefined => (snap.encodedRuns && snap.hashed ? snap.encodedRuns.get(snap.hashed.runs[i]!.objects) : undefined);

/** Content-addressed blobs of one kind, by id, encoded only when written (or already in their stored form). */
interface SharedBlobs {
  readonly blobs: ReadonlyMap<string, string | (() => Uint8Array | string) | StoredBody>;
  readonly pkOf: (id: string) => string;
}

/**
 * Writes the shared blobs whose head is not stored yet (content-addressed items are immutable and
 * shared) and the version's own blobs, in one batch; shared ones found stored with an old stamp
 * are stamped again (content-age.ts). Returns the version's own items as written.
 */
async function writeMissing(ctx: StoreContext, shared: readonly SharedBlobs[], own: readonly BlobWrite[]): Promise<Item[]> {
  const now = ctx.nowSeconds();
  // Ids this process wrote or saw stored a short while ago need no read: content-addressed items never change.
  const unknown = shared.map(({ blobs, pkOf }) => [...blobs.keys()].filter((id) => !ctx.known.has(pkOf, id, now)));
  const count = unknown.reduce((n, ids) => n + ids.length, 0);
  const keys = shared.flatMap(({ pkOf }, i) => unknown[i]!.map((id) => ({ pk: pkOf(id), sk: HEAD_SK })));
  const stored = count <= BLIND_WRITES ? [] : await ctx.backend.getItems(keys, { attributes: [WRITTEN_AT], consistent: true });
  const present = new Set(stored.map((i) => i.pk));
  // Stamped again before the header names them; one collected meanwhile is written whole.
  const old = stored.filter((i) => needsRefresh(i, now));
  const refreshed = await mapLimit(old, ctx.concurrency, (i) => ctx.backend.updateIfExists({ pk: i.pk, sk: HEAD_SK }, { [WRITTEN_AT]: now }));
  old.forEach((i, k) => refreshed[k] || present.delete(i.pk));
  const writes: BlobWrite[] = [];
  shared.forEach(({ blobs, pkOf }, i) => {
    for (const id of unknown[i]!) {
      const pk = pkOf(id);
      if (present.has(pk)) continue;
      const blob = blobs.get(id)!;
      // Encoded when its batch is written (writeBlobs), not all at once.
      writes.push({ pk, bytes: blob, every: { [WRITTEN_AT]: now } });
    }
  });
  const ownPks = new Set(own.map((b) => b.pk));
  const written = await writeBlobs(ctx, [...writes, ...own], ctx.chunkBytes, (pk) => ownPks.has(pk));
  shared.forEach(({ pkOf }, i) => unknown[i]!.forEach((id) => ctx.known.add(pkOf, id, now)));
  return written;
}

/**
 * Manifests and object groups (shared, to write when missing), and the version's own items, all
 * keyed by the snapshot hash (see keys.ts): manifest shards, node list and group index. With what
 * the header records.
 */
function versionItems(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, setContentIds: ContentIds, earlier: { form: PublishedForm; change: SetFormChange } | null, sha256Hex: Sha256Hex): { objectsHash: string; manifestShards: number; manifests: VersionManifests; groups: ObjectGroup[]; own: BlobWrite[] } {
  const manifests = versionManifests(ctx, snap.ir.nodes, setContentIds, earlier);
  const shardCount = manifestShardCount(manifests.hashes.size);
  const shards: Map<string, string>[] = Array.from({ length: shardCount }, () => new Map());
  for (const [node, hash] of manifests.hashes) shards[shardOf(node, shardCount)]!.set(node, hash);
  const groups = objectGroups(snap.items, sha256Hex, snap.hashed);
  const index = encodeGroupIndex(groups);
  const own: BlobWrite[] = [
    ...shards.map((shard, i) => ({ pk: manifestShardPk(cluster, version, snap.snapshotHash, i), bytes: encodeManifestShard(shard) })),
    { pk: nodesPk(cluster, version, snap.snapshotHash), bytes: encodeNodes([...manifests.hashes.keys()]) },
    { pk: objectsPk(cluster, version, snap.snapshotHash), bytes: index },
  ];
  return { objectsHash: contentHash(index, sha256Hex), manifestShards: shardCount, manifests, groups, own };
}
