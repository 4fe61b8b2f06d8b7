// Reading node manifests by content hash, whole or as patches on earlier ones (manifest-patch.ts):
// the chain is read in one batch after the head, the result is checked against the hash it is
// stored under, and kept in the content cache (a node's next poll, and its delta from the
// version before, read it from memory).
import { readBlobs } from './blob.js';
import type { Manifest } from './codec.js';
import { isManifestOf } from './manifest-hash.js';
import type { StoreContext } from './context.js';
import { manifestBodyPk } from './keys.js';
import { decodeStoredManifest, resolveManifest, type ManifestPatch, type StoredManifest } from './manifest-patch.js';
import { StoreCorruptionError } from './types.js';

/** The manifest stored under `hash`, or null when nothing is. */
export async function readManifest(ctx: StoreContext, hash: string): Promise<Manifest | null> {
  const cached = ctx.content.get<Manifest>(manifestBodyPk(hash));
  if (cached !== undefined) return cached;
  const pk = manifestBodyPk(hash);
  const blob = (await readBlobs(ctx, [pk])).complete.get(pk);
  if (!blob) return null;
  const head = decodeStoredManifest(blob.bytes);
  const manifest = 'whole' in head ? head.whole : await fromPatches(ctx, hash, head.patch);
  if (!isManifestOf(hash, manifest, ctx.sha256Hex)) throw new StoreCorruptionError(`manifest ${hash}${'whole' in head ? '' : ', made from its patches,'} is not what its hash says`);
  ctx.content.set(pk, manifest, blob.bytes.length);
  return manifest;
}

/**
 * A manifest from its patch and the links it names: those not known here are read in one batch
 * (a link known whole, from the cache, ends the chain); a link leading elsewhere than the head
 * said (another publish's patch under the same hash) is followed with one more read.
 */
async function fromPatches(ctx: StoreContext, hash: string, head: ManifestPatch): Promise<Manifest> {
  const items = new Map<string, StoredManifest>([[hash, { patch: head }]]);
  let toRead = linksToRead(ctx, head.base, items);
  for (;;) {
    if (toRead.length > 0) {
      const { complete, incomplete } = await readBlobs(ctx, toRead.map(manifestBodyPk));
      if (incomplete.length > 0) throw new StoreCorruptionError(`manifests with missing chunks: ${incomplete.join(', ')}`);
      for (const link of toRead) {
        const blob = complete.get(manifestBodyPk(link));
        if (!blob) throw new StoreCorruptionError(`manifest ${link}, a link of manifest ${hash}, is missing`);
        items.set(link, decodeStoredManifest(blob.bytes));
      }
    }
    const resolved = resolveManifest(hash, items);
    if ('manifest' in resolved) return resolved.manifest;
    const stuck = [...items.values()].find((i) => 'patch' in i && i.patch.base[0] === resolved.need);
    const known = items.size;
    toRead = linksToRead(ctx, stuck && 'patch' in stuck ? stuck.patch.base : [resolved.need], items);
    // Nothing to read and nothing found in the cache either (a cached link is resolved on the next turn).
    if (toRead.length === 0 && items.size === known) throw new StoreCorruptionError(`manifest ${hash}: cannot read its link ${resolved.need}`);
  }
}

/** Of a chain's links, the ones to read: up to the first known whole (cached), skipping those read. */
function linksToRead(ctx: StoreContext, links: readonly string[], items: Map<string, StoredManifest>): string[] {
  const out: string[] = [];
  for (const link of links) {
    if (items.has(link)) continue;
    const known = ctx.content.get<Manifest>(manifestBodyPk(link));
    if (known !== undefined) {
      items.set(link, { whole: known });
      break;
    }
    out.push(link);
  }
  return out;
}
