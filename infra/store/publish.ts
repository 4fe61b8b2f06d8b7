// publish: tables and set bodies → manifests, node list and snapshot objects → header → pointer. Until the header is written nothing of the
// version is reachable (reads start at the header, manifests are keyed by the header's snapshot
// hash), so a crash anywhere leaves at most unreferenced items, and a retry writes what is missing.
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/table-id.js';
import { contentId } from '../../core/sets/ids.js';
import { writeBlobs, HEAD_SK } from './blob.js';
import { contentHash, encodeManifest, encodeNodes, encodeObjects, manifestOf, setContentId, utf8, type HeaderBody } from './codec.js';
import type { StoreContext } from './context.js';
import { headerItem, isExpired, summaryFromItem } from './header.js';
import { checkName, headerKey, manifestPk, nodesPk, objectsPk, setPk, tablePk } from './keys.js';
import { settleLatest } from './lifecycle.js';
import { StoreInputError, VersionConflictError, type CompiledSnapshot, type PublishResult } from './types.js';
import type { Item } from './backend.js';

export async function publish(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot): Promise<PublishResult> {
  checkName('cluster', cluster);
  checkName('version', version);
  checkName('snapshotHash', snap.snapshotHash);

  // A header that is already there decides alone: same content → finish (a retry after a crash
  // between header and pointer lands here), different content → 409, without rewriting anything.
  const existing = await ctx.backend.getItem(headerKey(cluster, version));
  if (existing && !isExpired(existing, ctx.nowSeconds())) return settle(ctx, cluster, version, snap, existing, 'unchanged');

  const { tables, sets, setContentIds } = collectContent(snap, ctx.sha256Hex ?? portableSha256Hex);
  await writeMissing(ctx, tables, tablePk);
  await writeMissing(ctx, sets, setPk);
  const objectsHash = await writeManifests(ctx, cluster, version, snap, setContentIds);

  const body: HeaderBody = {
    nodeCount: Object.keys(snap.ir.nodes).length,
    objects: snap.objects,
    compile: snap.compile,
    tableCount: tables.size,
    setCount: setContentIds.size,
    publishedAt: ctx.nowIso(),
  };
  const item = headerItem(cluster, version, snap.snapshotHash, body, objectsHash);
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
function collectContent(snap: CompiledSnapshot, sha256Hex: Sha256Hex): { tables: Map<string, string>; sets: Map<string, string>; setContentIds: Map<string, string> } {
  const tables = new Map<string, string>();
  for (const [id, table] of Object.entries(snap.ir.tables)) {
    // A wrong id would poison every version sharing it: refuse rather than store.
    const text = JSON.stringify(table);
    const actual = contentId('r', text, sha256Hex);
    if (actual !== id) throw new StoreInputError('table', `table ${id} does not hash to its id (${actual})`);
    tables.set(id, text);
  }
  const sets = new Map<string, string>();
  const setContentIds = new Map<string, string>();
  for (const [id, set] of Object.entries(snap.ir.sets)) {
    const actual = contentId('s', JSON.stringify(set.definition), sha256Hex);
    if (actual !== id) throw new StoreInputError('set', `set ${id} does not hash to its id (${actual})`);
    const text = JSON.stringify(set);
    const content = setContentId(text, sha256Hex);
    sets.set(content, text);
    setContentIds.set(id, content);
  }
  for (const [node, n] of Object.entries(snap.ir.nodes)) {
    checkName('node', node);
    for (const id of n.tables) if (!tables.has(id)) throw new StoreInputError('table', `node ${node} refers to table ${id} that the snapshot does not carry`);
    for (const id of n.sets) if (!setContentIds.has(id)) throw new StoreInputError('set', `node ${node} refers to set ${id} that the snapshot does not carry`);
  }
  return { tables, sets, setContentIds };
}

/** Content-addressed items are immutable and shared: only ids whose head is not stored yet are written. */
async function writeMissing(ctx: StoreContext, blobs: ReadonlyMap<string, string>, pkOf: (id: string) => string): Promise<void> {
  const ids = [...blobs.keys()];
  const stored = await ctx.backend.getItems(
    ids.map((id) => ({ pk: pkOf(id), sk: HEAD_SK })),
    { attributes: [], consistent: true },
  );
  const present = new Set(stored.map((i) => i.pk));
  const missing = ids.filter((id) => !present.has(pkOf(id)));
  await writeBlobs(
    ctx.backend,
    missing.map((id) => ({ pk: pkOf(id), bytes: utf8(blobs.get(id)!) })),
    ctx.chunkBytes,
  );
}

/**
 * One manifest per node, the node list and the snapshot objects, all keyed by the snapshot hash
 * (see keys.ts). Returns the objects' content hash, which the header records.
 */
async function writeManifests(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot, setContentIds: ReadonlyMap<string, string>): Promise<string> {
  const objects = encodeObjects(snap.items);
  await writeBlobs(
    ctx.backend,
    [
      ...Object.entries(snap.ir.nodes).map(([node, n]) => ({ pk: manifestPk(cluster, version, snap.snapshotHash, node), bytes: encodeManifest(manifestOf(n, setContentIds)) })),
      { pk: nodesPk(cluster, version, snap.snapshotHash), bytes: encodeNodes(Object.keys(snap.ir.nodes).sort()) },
      { pk: objectsPk(cluster, version, snap.snapshotHash), bytes: objects },
    ],
    ctx.chunkBytes,
  );
  return contentHash(objects);
}
