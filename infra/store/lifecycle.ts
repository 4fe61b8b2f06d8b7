// After a header is written: move the latest pointer forward and give versions that can never be
// latest again their expiry. The pointer moves by compare-and-swap on the version it was read
// at, so every move knows exactly which version it replaced; that version is recorded on the
// pointer ("retire") until its items carry a TTL, so a crash between the move and the expiry is
// finished by a retry of that publish or carried along by the next move of the pointer.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { HEAD_SK, chunkCount, readBlobs } from './blob.js';
import { mapLimit } from './concurrency.js';
import { decodeNodes } from './codec.js';
import type { StoreContext } from './context.js';
import { headerKey, manifestPk, manifestShardPk, nodesPk, objectsPk, pointerKey, versionKey } from './keys.js';
import { StoreCorruptionError } from './types.js';

// Each failed swap means another publisher moved the pointer forward; more than this many in a
// row is not contention but a bug.
const MAX_POINTER_SWAPS = 50;

/** Makes `version` latest unless a newer one already is; true when it is latest afterwards. */
export async function settleLatest(ctx: StoreContext, cluster: string, version: string): Promise<boolean> {
  const key = pointerKey(cluster);
  const mine = versionKey(version);
  for (let swap = 0; swap < MAX_POINTER_SWAPS; swap++) {
    const current = await ctx.backend.getItem(key);
    if (current && current.version === version) {
      await finishRetirements(ctx, cluster, current);
      return true;
    }
    if (current && String(current.vkey) > mine) {
      // Never latest (again): it expires like any version the pointer has passed.
      await retire(ctx, cluster, [version]);
      return false;
    }
    const pending = current ? [String(current.version), ...retireList(current)] : [];
    const next: Item = { ...key, version, vkey: mine, retire: JSON.stringify(pending) };
    if (await ctx.backend.putIfUnchanged(next, current ? { attribute: 'vkey', equals: current.vkey! } : null)) {
      await finishRetirements(ctx, cluster, next);
      return true;
    }
  }
  throw new Error(`the latest pointer of cluster ${cluster} kept moving during ${MAX_POINTER_SWAPS} attempts`);
}

function retireList(pointer: Item): string[] {
  const raw = pointer.retire;
  if (raw === undefined) return [];
  const list: unknown = JSON.parse(String(raw));
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new StoreCorruptionError(`malformed latest pointer ${pointer.pk}`);
  return list;
}

async function finishRetirements(ctx: StoreContext, cluster: string, pointer: Item): Promise<void> {
  const pending = retireList(pointer);
  if (pending.length === 0) return;
  await retire(ctx, cluster, pending);
  await ctx.backend.updateIfExists(pointerKey(cluster), { retire: '[]' }, { attribute: 'version', equals: pointer.version! });
}

/**
 * Sets the TTL on a version's own items (manifest shards, node list, object group index; the
 * manifests themselves for versions written before they were shared), every chunk, then on its
 * header. Content-addressed items are shared with other versions and never expire. Idempotent.
 */
export async function retire(ctx: StoreContext, cluster: string, versions: readonly string[]): Promise<void> {
  const expiresAt = ctx.nowSeconds() + ctx.retentionSeconds;
  for (const version of versions) {
    const header = await ctx.backend.getItem(headerKey(cluster, version));
    if (!header) continue;
    const snapshotHash = String(header.snapshotHash);
    const listPk = nodesPk(cluster, version, snapshotHash);
    const shards = typeof header.manifestShards === 'number' ? header.manifestShards : null;
    // Versions written before manifests were shared name their own manifests by node: the list
    // says which. It precedes the header, so it is missing only if an earlier TTL already removed
    // it: then its manifests cannot be found (and expire by that same TTL); the header still gets one.
    const list = shards === null ? (await readBlobs(ctx.backend, [listPk])).complete.get(listPk) : undefined;
    const own = shards !== null ? Array.from({ length: shards }, (_, i) => manifestShardPk(cluster, version, snapshotHash, i)) : (list ? decodeNodes(list.bytes) : []).map((node) => manifestPk(cluster, version, snapshotHash, node));
    const heads = await ctx.backend.getItems(
      [listPk, objectsPk(cluster, version, snapshotHash), ...own].map((pk) => ({ pk, sk: HEAD_SK })),
      { attributes: ['chunks'], consistent: true },
    );
    const keys = heads.flatMap((h) => Array.from({ length: chunkCount(h) }, (_, i) => ({ pk: h.pk, sk: String(i) })));
    await mapLimit(keys, ctx.concurrency, (k) => ctx.backend.updateIfExists(k, { [TTL_ATTRIBUTE]: expiresAt }));
    // Header last: while it has no TTL the version is fully readable, manifests included.
    await ctx.backend.updateIfExists(headerKey(cluster, version), { [TTL_ATTRIBUTE]: expiresAt }, { attribute: 'snapshotHash', equals: snapshotHash });
  }
}
