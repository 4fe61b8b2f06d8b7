// Reads. Everything starts at a header (or the pointer to one): a version without a header, or
// whose TTL has passed, does not exist, whatever else of it is stored.
import type { IrSet, RuleTable } from '../../core/sets/index.js';
import { readBlobs } from './blob.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { asSet, asTable, contentHash, decodeManifest, decodeManifestShard, decodeNodes, decodeSet, decodeTable, type Manifest } from './codec.js';
import { readManifest } from './manifest-read.js';
import { decodeGroup, decodeGroupIndex, decodeLegacyObjects } from './objects.js';
import type { StoreContext } from './context.js';
import { isExpired, packIndexOf, summaryFromItem } from './header.js';
import type { Item } from './backend.js';
import { checkName, checkPackIndexId, checkSetContentId, checkTableId, headerKey, manifestPk, manifestShardPk, nodesPk, objectGroupPk, objectsPk, packIndexPk, packPk, pointerKey, setPk, shardOf, tablePk } from './keys.js';
import { decodePack, decodePackIndex } from './packs.js';
import { StoreCorruptionError, type NodeTables, type VersionHeader, type VersionSummary } from './types.js';

async function visibleHeaderItem(ctx: StoreContext, cluster: string, version: string): Promise<Item | null> {
  checkName('cluster', cluster);
  checkName('version', version);
  const item = await ctx.backend.getItem(headerKey(cluster, version));
  return item && !isExpired(item, ctx.nowSeconds()) ? item : null;
}

/** The header alone (small): what listings, agent polls and existence checks need. */
async function visibleSummary(ctx: StoreContext, cluster: string, version: string): Promise<VersionSummary | null> {
  const item = await visibleHeaderItem(ctx, cluster, version);
  return item ? summaryFromItem(cluster, item) : null;
}

export async function getHeader(ctx: StoreContext, cluster: string, version: string): Promise<VersionHeader | null> {
  const summary = await visibleSummary(ctx, cluster, version);
  if (!summary) return null;
  const pk = nodesPk(cluster, version, summary.snapshotHash);
  const list = (await readBlobs(ctx, [pk])).complete.get(pk);
  // Written before the header; gone only if its TTL deleted it after the header was read.
  return list ? { ...summary, nodes: decodeNodes(list.bytes) } : null;
}

export async function latest(ctx: StoreContext, cluster: string): Promise<VersionSummary | null> {
  const version = await latestVersion(ctx, cluster);
  return version === null ? null : visibleSummary(ctx, cluster, version);
}

/** The version the pointer names (one read; its header is not looked at). The pointer is kept as the next move's first guess. */
export async function latestVersion(ctx: StoreContext, cluster: string): Promise<string | null> {
  checkName('cluster', cluster);
  const pointer = await ctx.backend.getItem(pointerKey(cluster));
  ctx.pointers.remember(cluster, pointer);
  return pointer ? String(pointer.version) : null;
}

/** The header without the node list: one read. */
export function getSummary(ctx: StoreContext, cluster: string, version: string): Promise<VersionSummary | null> {
  return visibleSummary(ctx, cluster, version);
}

export async function getNodeTables(ctx: StoreContext, cluster: string, version: string, node: string): Promise<NodeTables | null> {
  checkName('node', node);
  const header = await visibleHeaderItem(ctx, cluster, version);
  if (!header) return null;
  const snapshotHash = String(header.snapshotHash);
  const found = typeof header.manifestShards === 'number' ? await sharedManifest(ctx, cluster, version, snapshotHash, header.manifestShards, node) : await ownManifest(ctx, cluster, version, snapshotHash, node);
  // No manifest under a visible header: the node is not part of this version.
  if (!found) return null;
  const { manifest, hash } = found;
  const packIndex = packIndexOf(header);
  return { cluster, version, node, addresses: manifest.addresses, pods: manifest.pods, sets: manifest.sets, tableIds: manifest.tables, hash, ...(packIndex !== undefined ? { packIndex } : {}) };
}

/** The node's shard names its manifest's content hash; the manifest (whole or from patches) is checked against it. */
async function sharedManifest(ctx: StoreContext, cluster: string, version: string, snapshotHash: string, shards: number, node: string): Promise<{ manifest: Manifest; hash: string } | null> {
  const shardPk = manifestShardPk(cluster, version, snapshotHash, shardOf(node, shards));
  const shard = (await readBlobs(ctx, [shardPk])).complete.get(shardPk);
  const hash = shard ? decodeManifestShard(shard.bytes).get(node) : undefined;
  if (hash === undefined) return null;
  const manifest = await readManifest(ctx, hash);
  if (!manifest) throw new StoreCorruptionError(`manifest ${hash} of node ${node} (${cluster} ${version}) is missing`);
  return { manifest, hash };
}

/** Versions written before manifests were shared: one manifest per node and version. */
async function ownManifest(ctx: StoreContext, cluster: string, version: string, snapshotHash: string, node: string): Promise<{ manifest: Manifest; hash: string } | null> {
  const pk = manifestPk(cluster, version, snapshotHash, node);
  const blob = (await readBlobs(ctx, [pk])).complete.get(pk);
  return blob ? { manifest: decodeManifest(blob.bytes), hash: contentHash(blob.bytes, ctx.sha256Hex) } : null;
}

/** Content-addressed items by id; ids not stored are absent. Heads are written after their chunks: a gap is corruption. */
async function readContent<T>(ctx: StoreContext, kind: string, ids: readonly string[], check: (id: string) => string, pkOf: (id: string) => string, decode: (id: string, bytes: Uint8Array) => T): Promise<ReadonlyMap<string, T>> {
  const unique = [...new Set(ids.map(check))];
  const out = new Map<string, T>();
  const missing: string[] = [];
  for (const id of unique) {
    const hit = ctx.content.get<T>(pkOf(id));
    if (hit === undefined) missing.push(id);
    else out.set(id, hit);
  }
  if (missing.length === 0) return out;
  const { complete, incomplete } = await readBlobs(ctx, missing.map(pkOf));
  if (incomplete.length > 0) throw new StoreCorruptionError(`${kind} with missing chunks: ${incomplete.join(', ')}`);
  for (const id of missing) {
    const blob = complete.get(pkOf(id));
    if (!blob) continue;
    const value = decode(id, blob.bytes);
    ctx.content.set(pkOf(id), value, blob.bytes.length);
    out.set(id, value);
  }
  return out;
}

/** Tables by id: from the version's packs (`packIndex`, NodeTables.packIndex) where its index lists them, the others each from its own item. */
export const getTables = (ctx: StoreContext, ids: readonly string[], packIndex?: string): Promise<ReadonlyMap<string, RuleTable>> =>
  readPacked(ctx, 'tables', 'table', ids, packIndex, checkTableId, tablePk, (id, bytes) => decodeTable(id, bytes, ctx.sha256Hex), asTable);

/** Set bodies by content id: from the version's packs where its index lists them, the others (new in a version from changes) each from its own item. */
export const getSets = (ctx: StoreContext, ids: readonly string[], packIndex?: string): Promise<ReadonlyMap<string, IrSet>> =>
  readPacked(ctx, 'sets', 'set body', ids, packIndex, checkSetContentId, setPk, (id, bytes) => decodeSet(id, bytes, ctx.sha256Hex), asSet);

/** A pack index (packs.ts): content id → the pack holding it; null when it is not stored. */
export async function getPackIndex(ctx: StoreContext, id: string): Promise<ReadonlyMap<string, string> | null> {
  return (await readContent(ctx, 'pack index', [id], checkPackIndexId, packIndexPk, (i, bytes) => decodePackIndex(i, bytes, ctx.sha256Hex))).get(id) ?? null;
}

/** Bodies of cached packs whose shape was checked, per shape check (a table's, a set body's). */
const shapedBy = new Map<(id: string, parsed: unknown) => unknown, WeakSet<object>>();

/**
 * Content by id, from the packs of `packIndex` where it lists an id (packs.ts: the pack's id
 * checks its whole text, each body's shape is checked here), else from the id's own item;
 * without an index (versions stored before packs, or none given), every id from its own item.
 * A listed id whose pack is no longer stored is read from its own item: a version from changes
 * names its base's index and writes a body new to it as its own item, and the index may list
 * that body in a pack a collection removed while no live version read it (needed.ts keeps both).
 */
async function readPacked<T>(ctx: StoreContext, kind: string, noun: string, ids: readonly string[], packIndex: string | undefined, check: (id: string) => string, pkOf: (id: string) => string, decode: (id: string, bytes: Uint8Array) => T, shape: (id: string, parsed: unknown) => T): Promise<ReadonlyMap<string, T>> {
  for (const id of ids) check(id);
  if (packIndex === undefined) return readContent(ctx, kind, ids, check, pkOf, decode);
  const packOf = await getPackIndex(ctx, packIndex);
  if (!packOf) throw new StoreCorruptionError(`pack index ${packIndex} is missing`);
  const listed = ids.filter((id) => packOf.has(id));
  const packs = await readContent(ctx, 'packs', [...new Set(listed.map((id) => packOf.get(id)!))], (id) => id, packPk, (id, bytes) => decodePack(id, bytes, ctx.sha256Hex));
  const packed = listed.filter((id) => packs.has(packOf.get(id)!));
  const unpacked = listed.filter((id) => !packs.has(packOf.get(id)!));
  const out = new Map(await readContent(ctx, kind, [...ids.filter((id) => !packOf.has(id)), ...unpacked], check, pkOf, decode));
  for (const id of unpacked) if (!out.has(id)) throw new StoreCorruptionError(`${noun} ${id} is missing: neither its pack ${packOf.get(id)!} nor its own item is stored`);
  const shaped = shapedBy.get(shape) ?? shapedBy.set(shape, new WeakSet()).get(shape)!;
  for (const id of packed) {
    const pack = packOf.get(id)!;
    const parsed = packs.get(pack)!.get(id);
    if (parsed === undefined) throw new StoreCorruptionError(`${noun} ${id} is missing: its pack ${pack} does not hold it`);
    // A cached pack's bodies are the same frozen objects on every read: each shape is checked once.
    if (!shaped.has(parsed as object)) {
      shape(id, parsed);
      shaped.add(parsed as object);
    }
    out.set(id, parsed as T);
  }
  return out;
}

export async function getSnapshotObjects(ctx: StoreContext, cluster: string, version: string): Promise<readonly SnapshotObject[] | null> {
  const header = await visibleHeaderItem(ctx, cluster, version);
  // Versions published before objects were kept have no hash to check against: nothing to answer from.
  if (!header || typeof header.objectsHash !== 'string') return null;
  const pk = objectsPk(cluster, version, String(header.snapshotHash));
  const blob = (await readBlobs(ctx, [pk])).complete.get(pk);
  // Written before the header; gone only if its TTL deleted it after the header was read.
  if (!blob) return null;
  if (contentHash(blob.bytes, ctx.sha256Hex) !== header.objectsHash) throw new StoreCorruptionError(`snapshot objects of ${cluster} ${version} do not match their hash ${header.objectsHash}`);
  if (typeof header.manifestShards !== 'number') return decodeLegacyObjects(blob.bytes);
  const ids = decodeGroupIndex(blob.bytes);
  const { complete } = await readBlobs(ctx, ids.map(objectGroupPk));
  const out: SnapshotObject[] = [];
  for (const id of ids) {
    const group = complete.get(objectGroupPk(id));
    if (!group) throw new StoreCorruptionError(`object group ${id} of ${cluster} ${version} is missing`);
    for (const o of decodeGroup(id, group.bytes, ctx.sha256Hex)) out.push(o);
  }
  return out;
}
