// publish: tables, set bodies, manifests and object groups (content-addressed: only those not
// stored yet are written) → manifest shards, node list and group index → header → pointer. Until
// the header is written nothing of the version is reachable (reads start at the header, the
// version's own items are keyed by its snapshot hash), so a crash anywhere leaves at most
// unreferenced items, and a retry writes what is missing. A version from a small change writes
// its few new tables, sets, manifests and groups and its small index items, not the cluster again.
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/table-id.js';
import { contentId } from '../../core/sets/ids.js';
import { writeBlobs, HEAD_SK } from './blob.js';
import { contentHash, encodeManifest, encodeManifestShard, encodeNodes, manifestOf, setContentId, utf8, type HeaderBody } from './codec.js';
import type { StoreContext } from './context.js';
import { headerItem, isExpired, summaryFromItem } from './header.js';
import { checkName, headerKey, manifestBodyPk, manifestShardCount, manifestShardPk, nodesPk, objectGroupPk, objectsPk, setPk, shardOf, tablePk } from './keys.js';
import { encodeGroup, encodeGroupIndex, objectGroups } from './objects.js';
import { settleLatest } from './lifecycle.js';
import { StoreInputError, VersionConflictError, type CompiledSnapshot, type PublishResult } from './types.js';
import type { Item } from './backend.js';
import type { SetNode } from '../../core/sets/ir.js';

export async function publish(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot): Promise<PublishResult> {
  checkName('cluster', cluster);
  checkName('version', version);
  checkName('snapshotHash', snap.snapshotHash);

  // A header that is already there decides alone: same content → finish (a retry after a crash
  // between header and pointer lands here), different content → 409, without rewriting anything.
  const existing = await ctx.backend.getItem(headerKey(cluster, version));
  if (existing && !isExpired(existing, ctx.nowSeconds())) return settle(ctx, cluster, version, snap, existing, 'unchanged');

  const sha256Hex = ctx.sha256Hex ?? portableSha256Hex;
  const { tables, sets, setContentIds } = collectContent(ctx, snap, sha256Hex);
  await writeMissing(ctx, tables, tablePk);
  await writeMissing(ctx, sets, setPk);
  const { objectsHash, manifestShards } = await writeVersionItems(ctx, cluster, version, snap, setContentIds, sha256Hex);

  const body: HeaderBody = {
    nodeCount: Object.keys(snap.ir.nodes).length,
    objects: snap.objects,
    compile: snap.compile,
    tableCount: tables.size,
    setCount: setContentIds.size,
    publishedAt: ctx.nowIso(),
  };
  const item = headerItem(cluster, version, snap.snapshotHash, body, { objectsHash, manifestShards });
  // Conditional: exactly one of several concurrent publishes of this version writes the header.
  const raced = await ctx.backend.putIfAbsent(item, ctx.nowSeconds());
  return raced ? settle(ctx, cluster, version, snap, raced, 'unchanged') : settle(ctx, cluster, version, snap, item, 'created');
}

async function settle(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, header: Item, status: PublishResult['status']): Promise<PublishResult> {
  const stored = summaryFromItem(cluster, header);
  if (stored.snapshotHash !== snap.snapshotHash) throw new VersionConflictError(cluster, version, stored.snapshotHash, snap.snapshotHash);
  const latest = await settleLatest(ctx, cluster, version);
  // Re-read only when retire may just have set the TTL, so the result shows it.
  const summary = latest ? stored : summaryFromItem(cluster, (await ctx.backend.getItem(headerKey(cluster, version))) ?? header);
  // Same snapshot hash, same nodes: the stored node list need not be read back.
  return { status, header: { ...summary, nodes: Object.keys(snap.ir.nodes).sort() }, latest };
}

/**
 * Every table and set body of the snapshot in the form that is stored, each checked against its
 * content address: what the id hashes is what is stored (encoded once). A set's body gets its own
 * content id (its set id names only the definition, and members change between versions).
 */
function collectContent(ctx: StoreContext, snap: CompiledSnapshot, sha256Hex: Sha256Hex): { tables: Map<string, string>; sets: Map<string, string>; setContentIds: Map<string, string> } {
  const tables = new Map<string, string>();
  for (const id in snap.ir.tables) {
    const table = snap.ir.tables[id]!;
    // A wrong id would poison every version sharing it: refuse rather than store. Checked once
    // per table object (a version from changes carries the earlier version's objects along).
    let text = ctx.checked.get(table)?.[id];
    if (text === undefined) {
      text = JSON.stringify(table);
      const actual = contentId('r', text, sha256Hex);
      if (actual !== id) throw new StoreInputError('table', `table ${id} does not hash to its id (${actual})`);
      ctx.checked.set(table, { [id]: text });
    }
    tables.set(id, text);
  }
  const sets = new Map<string, string>();
  const setContentIds = new Map<string, string>();
  for (const id in snap.ir.sets) {
    const set = snap.ir.sets[id]!;
    let known = ctx.checked.get(set);
    if (!known || known[id] === undefined) {
      const actual = contentId('s', JSON.stringify(set.definition), sha256Hex);
      if (actual !== id) throw new StoreInputError('set', `set ${id} does not hash to its id (${actual})`);
      const text = JSON.stringify(set);
      ctx.checked.set(set, (known = { [id]: text, content: setContentId(text, sha256Hex) }));
    }
    sets.set(known.content!, known[id]!);
    setContentIds.set(id, known.content!);
  }
  for (const [node, n] of Object.entries(snap.ir.nodes)) {
    checkName('node', node);
    for (const id of n.tables) if (!tables.has(id)) throw new StoreInputError('table', `node ${node} refers to table ${id} that the snapshot does not carry`);
    for (const id of n.sets) if (!setContentIds.has(id)) throw new StoreInputError('set', `node ${node} refers to set ${id} that the snapshot does not carry`);
  }
  return { tables, sets, setContentIds };
}

/** Content-addressed items are immutable and shared: only ids whose head is not stored yet are written (encoded only then). */
async function writeMissing(ctx: StoreContext, blobs: ReadonlyMap<string, string | (() => Uint8Array)>, pkOf: (id: string) => string): Promise<void> {
  // Ids this process wrote or saw stored need no read: content-addressed items never change or expire.
  const ids: string[] = [];
  for (const id of blobs.keys()) if (!ctx.known.has(pkOf, id)) ids.push(id);
  const stored = ids.length === 0 ? [] : await ctx.backend.getItems(
    ids.map((id) => ({ pk: pkOf(id), sk: HEAD_SK })),
    { attributes: [], consistent: true },
  );
  const present = new Set(stored.map((i) => i.pk));
  const missing = ids.filter((id) => !present.has(pkOf(id)));
  await writeBlobs(
    ctx.backend,
    missing.map((id) => {
      const blob = blobs.get(id)!;
      return { pk: pkOf(id), bytes: typeof blob === 'string' ? utf8(blob) : blob() };
    }),
    ctx.chunkBytes,
  );
  for (const id of ids) ctx.known.add(pkOf, id);
}

/**
 * A node's manifest bytes and hash, encoded once per node object while its sets' bodies stay the
 * same (a version from changes carries unchanged nodes along; a member change gives a set a new
 * body, and the node a new manifest).
 */
function encodedManifest(ctx: StoreContext, node: SetNode, setContentIds: ReadonlyMap<string, string>): { bytes: Uint8Array; hash: string } {
  const bodies = node.sets.map((id) => setContentIds.get(id)!);
  const cached = ctx.manifests.get(node);
  if (cached && cached.bodies.length === bodies.length && cached.bodies.every((b, i) => b === bodies[i])) return cached;
  const bytes = encodeManifest(manifestOf(node, setContentIds));
  const encoded = { bytes, hash: contentHash(bytes), bodies };
  ctx.manifests.set(node, encoded);
  return encoded;
}

/**
 * Manifests and object groups (shared), then the version's own items, all keyed by the snapshot
 * hash (see keys.ts): manifest shards, node list and group index. Returns what the header records.
 */
async function writeVersionItems(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, setContentIds: ReadonlyMap<string, string>, sha256Hex: Sha256Hex): Promise<{ objectsHash: string; manifestShards: number }> {
  const nodes = Object.keys(snap.ir.nodes).sort();
  const manifests = new Map<string, Uint8Array>();
  const shardCount = manifestShardCount(nodes.length);
  const shards: Record<string, string>[] = Array.from({ length: shardCount }, () => ({}));
  for (const node of nodes) {
    const { bytes, hash } = encodedManifest(ctx, snap.ir.nodes[node]!, setContentIds);
    manifests.set(hash, bytes);
    shards[shardOf(node, shardCount)]![node] = hash;
  }
  await writeMissing(ctx, new Map([...manifests].map(([hash, bytes]) => [hash, () => bytes])), manifestBodyPk);
  const groups = objectGroups(snap.items, sha256Hex);
  await writeMissing(ctx, new Map(groups.map((g) => [g.id, () => encodeGroup(g)])), objectGroupPk);
  const index = encodeGroupIndex(groups);
  await writeBlobs(
    ctx.backend,
    [
      ...shards.map((shard, i) => ({ pk: manifestShardPk(cluster, version, snap.snapshotHash, i), bytes: encodeManifestShard(shard) })),
      { pk: nodesPk(cluster, version, snap.snapshotHash), bytes: encodeNodes(nodes) },
      { pk: objectsPk(cluster, version, snap.snapshotHash), bytes: index },
    ],
    ctx.chunkBytes,
  );
  return { objectsHash: contentHash(index), manifestShards: shardCount };
}
