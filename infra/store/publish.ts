// publish: tables → manifests, node list and snapshot objects → header → pointer. Until the header is written nothing of the
// version is reachable (reads start at the header, manifests are keyed by the header's snapshot
// hash), so a crash anywhere leaves at most unreferenced items, and a retry writes what is missing.
import { canonicalRules, idOfCanonical, type Sha256Hex } from '../../core/compile/table-id.js';
import { writeBlobs, HEAD_SK } from './blob.js';
import { contentHash, encodeManifest, encodeNodes, encodeObjects, manifestOf, manifestTableIds, utf8, type HeaderBody } from './codec.js';
import type { StoreContext } from './context.js';
import { headerItem, isExpired, summaryFromItem } from './header.js';
import { checkName, headerKey, manifestPk, nodesPk, objectsPk, tablePk } from './keys.js';
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

  const tables = collectTables(snap, ctx.sha256Hex);
  await writeMissingTables(ctx, tables);
  const objectsHash = await writeManifests(ctx, cluster, version, snap);

  const body: HeaderBody = {
    nodeCount: Object.keys(snap.nodes).length,
    objects: snap.objects,
    compile: snap.compile,
    tableCount: tables.size,
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
  return { status, header: { ...summary, nodes: Object.keys(snap.nodes).sort() }, latest };
}

/**
 * Every distinct table of the snapshot, each checked against its content address, in its
 * canonical form: what the id hashes is what is stored (encoded once).
 */
function collectTables(snap: CompiledSnapshot, sha256Hex: Sha256Hex): Map<string, string> {
  const tables = new Map<string, string>();
  for (const [node, ir] of Object.entries(snap.nodes)) {
    checkName('node', node);
    for (const [id, rules] of Object.entries(ir.tables)) {
      if (tables.has(id)) continue;
      // A wrong id would poison every version sharing it: refuse rather than store.
      const canonical = canonicalRules(rules);
      const actual = idOfCanonical(canonical, sha256Hex);
      if (actual !== id) throw new StoreInputError('table', `table ${id} on node ${node} does not hash to its id (${actual})`);
      tables.set(id, canonical);
    }
    for (const id of manifestTableIds(manifestOf(ir))) {
      if (!(id in ir.tables)) throw new StoreInputError('table', `node ${node} refers to table ${id} that it does not carry`);
    }
  }
  return tables;
}

/** Tables are immutable and shared: only ids whose head is not stored yet are written. */
async function writeMissingTables(ctx: StoreContext, tables: ReadonlyMap<string, string>): Promise<void> {
  const ids = [...tables.keys()];
  const stored = await ctx.backend.getItems(
    ids.map((id) => ({ pk: tablePk(id), sk: HEAD_SK })),
    { attributes: [], consistent: true },
  );
  const present = new Set(stored.map((i) => i.pk));
  const missing = ids.filter((id) => !present.has(tablePk(id)));
  await writeBlobs(
    ctx.backend,
    missing.map((id) => ({ pk: tablePk(id), bytes: utf8(tables.get(id)!) })),
    ctx.chunkBytes,
  );
}

/**
 * One manifest per node, the node list and the snapshot objects, all keyed by the snapshot hash
 * (see keys.ts). Returns the objects' content hash, which the header records.
 */
async function writeManifests(ctx: StoreContext, cluster: string, version: string, snap: CompiledSnapshot): Promise<string> {
  const objects = encodeObjects(snap.items);
  await writeBlobs(
    ctx.backend,
    [
      ...Object.entries(snap.nodes).map(([node, ir]) => ({ pk: manifestPk(cluster, version, snap.snapshotHash, node), bytes: encodeManifest(manifestOf(ir)) })),
      { pk: nodesPk(cluster, version, snap.snapshotHash), bytes: encodeNodes(Object.keys(snap.nodes).sort()) },
      { pk: objectsPk(cluster, version, snap.snapshotHash), bytes: objects },
    ],
    ctx.chunkBytes,
  );
  return contentHash(objects);
}
