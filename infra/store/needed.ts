// What a version reads: its own items (manifest shards, node list, object group index; per-node
// manifests of the earlier layout) and the content-addressed items they name (manifests, the
// tables and set bodies those name, object groups). One enumeration for the checks before a
// rollback (admin.ts missingItems) and for what collect.ts keeps.
import type { Item } from './backend.js';
import { readBlobs } from './blob.js';
import { decodeManifest, decodeManifestShard, decodeNodes, type Manifest } from './codec.js';
import { mapLimit } from './concurrency.js';
import type { StoreContext } from './context.js';
import { isExpired, packIndexOf } from './header.js';
import { hashOfManifestPk, manifestBodyPk, manifestPk, manifestShardPk, nodesPk, objectGroupPk, objectsPk, packIndexPk, packPk, setPk, tablePk } from './keys.js';
import { decodePackIndex } from './packs.js';
import { readManifest } from './manifest-read.js';
import { decodeGroupIndex } from './objects.js';
import { StoreCorruptionError } from './types.js';

export interface VersionNeeds {
  /**
   * Partition keys of the content-addressed items the version reads: the manifests its shards
   * name (not the links of those stored as patches: manifest-links.ts), the tables and set
   * bodies the manifests name (their own items, and the packs holding them and their index where
   * the version has packs), its object groups.
   */
  readonly shared: ReadonlySet<string>;
  /**
   * Per pack in `shared`: the own items of the bodies the version reads from it, which a reader
   * reads instead once the pack is gone (read.ts readPacked), so they are kept too where stored.
   */
  readonly packed: ReadonlyMap<string, ReadonlySet<string>>;
  /** Own items and manifests that do not read back (or have expired): what is named by those is not in `shared`. */
  readonly unreadable: readonly string[];
}

export async function versionNeeds(ctx: StoreContext, cluster: string, version: string, header: Item): Promise<VersionNeeds> {
  const snapshotHash = String(header.snapshotHash);
  const now = ctx.nowSeconds();
  const shards = typeof header.manifestShards === 'number' ? header.manifestShards : null;
  const listPk = nodesPk(cluster, version, snapshotHash);
  const objects = typeof header.objectsHash === 'string' ? [objectsPk(cluster, version, snapshotHash)] : [];
  const shardPks = shards === null ? [] : Array.from({ length: shards }, (_, i) => manifestShardPk(cluster, version, snapshotHash, i));
  const own = await readLive([listPk, ...objects, ...shardPks]);
  const unreadable = own.missing;
  const list = own.complete.get(listPk);
  const manifestPks = shards === null
    ? (list ? decodeNodes(list).map((node) => manifestPk(cluster, version, snapshotHash, node)) : [])
    : [...new Set(shardPks.flatMap((pk) => own.complete.has(pk) ? [...decodeManifestShard(own.complete.get(pk)!).values()] : []))].map(manifestBodyPk);
  const shared = new Set<string>();
  const packOf = await packIndex();
  const packed = new Map<string, Set<string>>();
  const read = (pack: string | undefined, ownPk: string) => {
    if (pack === undefined) return shared.add(ownPk);
    const pk = packPk(pack);
    shared.add(pk);
    const own = packed.get(pk);
    if (own) own.add(ownPk);
    else packed.set(pk, new Set([ownPk]));
  };
  const use = (m: Manifest) => {
    for (const id of m.tables) read(packOf.get(id), tablePk(id));
    for (const id of Object.values(m.sets)) read(packOf.get(id), setPk(id));
  };
  if (shards === null) {
    const manifests = await readLive(manifestPks);
    unreadable.push(...manifests.missing);
    for (const bytes of manifests.complete.values()) use(decodeManifest(bytes));
  } else {
    for (const pk of manifestPks) shared.add(pk);
    unreadable.push(...(await sharedManifests(manifestPks, use)));
  }
  const index = objects.length > 0 && shards !== null ? own.complete.get(objects[0]!) : undefined;
  for (const id of index ? decodeGroupIndex(index) : []) shared.add(objectGroupPk(id));
  return { shared, packed, unreadable };

  /** Content id → pack, from the version's pack index (none without one; an unreadable one is reported). */
  async function packIndex(): Promise<ReadonlyMap<string, string>> {
    const id = packIndexOf(header);
    if (id === undefined) return new Map();
    const pk = packIndexPk(id);
    shared.add(pk);
    const { complete } = await readBlobs(ctx, [pk]);
    const blob = complete.get(pk);
    if (!blob) {
      unreadable.push(pk);
      return new Map();
    }
    try {
      return decodePackIndex(id, blob.bytes, ctx.sha256Hex);
    } catch (e) {
      if (!(e instanceof StoreCorruptionError)) throw e;
      unreadable.push(pk);
      return new Map();
    }
  }

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
    const failed: string[] = [];
    await mapLimit(pks, ctx.concurrency, async (pk) => {
      try {
        const m = await readManifest(ctx, hashOfManifestPk(pk));
        if (m) use(m);
        else failed.push(pk);
      } catch (e) {
        if (!(e instanceof StoreCorruptionError)) throw e;
        failed.push(pk);
      }
    });
    return failed;
  }
}
