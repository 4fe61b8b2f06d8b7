// A version's node manifests as they are written: each node's content hash (its shard entry and
// ETag), the manifests to store whole, and, from changes, the ones to store as patches on the
// node's manifest of the version before (manifest-patch.ts says when and why).
import type { SetFormChange, SetNode } from '../../core/sets/index.js';
import type { LayeredMap, Lookup } from '../../core/layered-map.js';
import { sharesAny } from '../../core/sorted.js';
import { HEAD_SK, storedForm, writeBlobs } from './blob.js';
import type { Item } from './backend.js';
import { nodeManifestText, utf8 } from './codec.js';
import { nodeDigest } from './manifest-hash.js';
import type { PublishedForm, StoreContext } from './context.js';
import { hashOfManifestPk, manifestBodyPk } from './keys.js';
import { manifestPatch, MAX_CHAIN, patchText } from './manifest-patch.js';
import { needsRefresh, WRITTEN_AT } from './content-age.js';
import { mapLimit } from './concurrency.js';
import { LINK_ATTRIBUTES, linksOfHead } from './manifest-links.js';
import { own } from '../../core/names-record.js';

/** A version's manifests: by node, and what of them is new. */
export interface VersionManifests {
  /** Node → content hash of its manifest in this version. */
  readonly hashes: Map<string, string>;
  /** New manifests stored whole, by hash, encoded when written. */
  readonly wholes: Map<string, () => string>;
  /** New manifests stored as patches, by hash (each fits one item). */
  readonly patches: Map<string, Uint8Array>;
}

/**
 * From changes, a node keeps its stored manifest unless its record is new or it names a set whose
 * body is new (a set's content id changes with its members); a new one is a patch on the node's
 * manifest before when that is known here and the patch is small enough.
 */
/** A version's set content ids: to read (a plain map when there is one), and the published form's map, which names the version. */
export interface ContentIds {
  readonly lookup: Lookup<string, string>;
  readonly form: LayeredMap<string, string>;
}

export function versionManifests(ctx: StoreContext, nodes: Readonly<Record<string, SetNode>>, ids: ContentIds, earlier: { form: PublishedForm; change: SetFormChange } | null): VersionManifests {
  const setContentIds = ids.lookup;
  const entries = new Map<string, string>();
  const out: VersionManifests = { hashes: new Map(), wholes: new Map(), patches: new Map() };
  const newNodes = new Set(earlier?.change.nodes);
  const newSets = earlier ? [...earlier.change.sets].sort() : [];
  for (const node of Object.keys(nodes).sort()) {
    const n = nodes[node]!;
    const kept = earlier && !newNodes.has(node) && !sharesAny(n.sets, newSets) ? earlier.form.manifests.get(node) : undefined;
    if (kept !== undefined) {
      out.hashes.set(node, kept);
      // Its digest holds for this version too: the next one starts from it.
      const cached = ctx.manifests.get(n);
      if (cached?.form === earlier!.form.setContentIds) ctx.manifests.set(n, { ...cached, form: ids.form });
      continue;
    }
    const encoded = encodedManifest(ctx, node, n, ids, earlier, newSets, entries);
    out.hashes.set(node, encoded.hash);
    const patch = earlier ? patchOnEarlier(ctx, node, n, setContentIds, earlier, newSets, encoded) : null;
    if (patch) out.patches.set(encoded.hash, patch);
    else {
      out.wholes.set(encoded.hash, encoded.bytes);
      ctx.chains.set(encoded.hash, { base: [], patchBytes: 0 });
    }
  }
  return out;
}

/**
 * The node's manifest as a patch on its manifest in the earlier version, or null when that one's
 * chain is not known here, is MAX_CHAIN long already, or the patches would add up to more than
 * half the whole manifest (a cold read then costs at most 1.5× the whole), or to more than one item.
 */
function patchOnEarlier(ctx: StoreContext, node: string, n: SetNode, setContentIds: Lookup<string, string>, earlier: { form: PublishedForm; change: SetFormChange }, newSets: readonly string[], encoded: { hash: string; size: number }): Uint8Array | null {
  const before = own(earlier.change.from.nodes, node);
  const prevHash = earlier.form.manifests.get(node);
  const prev = prevHash === undefined ? undefined : ctx.chains.get(prevHash);
  if (!before || prevHash === undefined || !prev || prev.base.length >= MAX_CHAIN || prevHash === encoded.hash) return null;
  const patch = manifestPatch([prevHash, ...prev.base], { node: before, contentIds: earlier.form.setContentIds }, { node: n, contentIds: setContentIds }, newSets);
  const bytes = utf8(patchText(patch));
  const patchBytes = prev.patchBytes + bytes.length;
  if (bytes.length > ctx.chunkBytes || patchBytes > encoded.size / 2) return null;
  ctx.chains.set(encoded.hash, { base: patch.base, patchBytes });
  return bytes;
}

/**
 * Patches are written only where nothing is stored under their key: a manifest stored whole (by
 * any publish) stays whole unless another publish stores it in the moment between this read and
 * write. A few (a one-pod change) are conditional writes, all at once: one round trip. More (at L
 * a rolling update writes ~10³) are one batch read of which are stored, then one batch write of
 * the others: one conditional write each cost ~1 s in the embedded store. One found stored with
 * an old stamp is stamped again (content-age.ts), or written if it is gone by then; its own links
 * are remembered: a later patch on it names those, not the ones this process would have written.
 *
 * Why no chain can lead back to itself, although two publishes may race on one key: a patch
 * stored under H links to the manifest before it, H', which was stored before the read that found
 * H absent; so H' was first stored before H was. Along any chain of links that order strictly
 * decreases, so it ends (at a whole manifest; a reader's link bound still guards the store).
 */
export async function writePatches(ctx: StoreContext, patches: ReadonlyMap<string, Uint8Array>, conditionalUpTo = CONDITIONAL_PATCHES): Promise<void> {
  const now = ctx.nowSeconds();
  const unknown = [...patches].filter(([hash]) => !ctx.known.has(manifestBodyPk, hash, now));
  if (unknown.length === 0) return;
  if (unknown.length <= conditionalUpTo) await mapLimit(unknown, ctx.concurrency, ([hash, raw]) => writePatchIfAbsent(ctx, hash, raw, now));
  else {
    const stored = await ctx.backend.getItems(unknown.map(([hash]) => ({ pk: manifestBodyPk(hash), sk: HEAD_SK })), { attributes: [WRITTEN_AT, ...LINK_ATTRIBUTES], consistent: true });
    const present = new Set(stored.map((i) => i.pk));
    for (const head of stored) await adoptLinks(ctx, hashOfManifestPk(head.pk), head);
    const old = stored.filter((i) => needsRefresh(i, now));
    const refreshed = await mapLimit(old, ctx.concurrency, (i) => ctx.backend.updateIfExists({ pk: i.pk, sk: HEAD_SK }, { [WRITTEN_AT]: now }));
    old.forEach((i, k) => refreshed[k] || present.delete(i.pk));
    await writeBlobs(ctx, unknown.filter(([hash]) => !present.has(manifestBodyPk(hash))).map(([hash, bytes]) => ({ pk: manifestBodyPk(hash), bytes, every: { [WRITTEN_AT]: now } })), ctx.chunkBytes);
  }
  for (const [hash] of unknown) ctx.known.add(manifestBodyPk, hash, now);
}

/** Patches a publish writes as conditional writes, at most; more are read first and written in a batch. */
export const CONDITIONAL_PATCHES = 16;

async function writePatchIfAbsent(ctx: StoreContext, hash: string, raw: Uint8Array, now: number): Promise<void> {
  const { stored, encoding } = await storedForm(ctx.compression, raw);
  const item = { pk: manifestBodyPk(hash), sk: HEAD_SK, chunks: 1, body: stored, ...encoding, [WRITTEN_AT]: now };
  // A stored one may be collected between the two calls: then it is written after all.
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await ctx.backend.putIfAbsent(item, now);
    if (!existing) return;
    await adoptLinks(ctx, hash, existing);
    if (!needsRefresh(existing, now) || (await ctx.backend.updateIfExists(item, { [WRITTEN_AT]: now }))) return;
  }
  throw new Error(`manifest ${hash} kept disappearing while it was written`);
}

/** A manifest found stored: a later patch on it names its own links. */
async function adoptLinks(ctx: StoreContext, hash: string, head: Item): Promise<void> {
  const links = await linksOfHead(ctx.compression, head);
  if (links.length > 0 || ctx.chains.get(hash)?.base.length) ctx.chains.set(hash, { base: links, patchBytes: links.length > 0 ? Number.MAX_SAFE_INTEGER : 0 });
}

/**
 * A node's manifest hash and size (manifest-hash.ts), made from its digest in the version before
 * where this process published it: a node carried along whose sets got new bodies hashes only
 * the buckets of those sets. Its bytes are encoded only to be stored whole: a manifest stored as
 * a patch is only hashed, and nothing keeps the text once written.
 */
function encodedManifest(ctx: StoreContext, name: string, node: SetNode, ids: ContentIds, earlier: { form: PublishedForm; change: SetFormChange } | null, changed: readonly string[], entries: Map<string, string>): { hash: string; size: number; bytes: () => string } {
  const cached = ctx.manifests.get(node);
  let digest = cached?.form === ids.form ? cached.digest : undefined;
  if (!digest) {
    const before = earlier ? (cached ?? ctx.manifests.get(own(earlier.change.from.nodes, name) ?? {})) : undefined;
    const from = before && before.form === earlier!.form.setContentIds ? { node: before.node, digest: before.digest, changed } : undefined;
    digest = nodeDigest(node, ids.lookup, ctx.sha256Hex, from, entries);
    ctx.manifests.set(node, { node, digest, form: ids.form });
  }
  return { hash: digest.hash, size: digest.size, bytes: () => nodeManifestText(node, ids.lookup, entries) };
}
