// A version's node manifests as they are written: each node's content hash (its shard entry and
// ETag), the manifests to store whole, and, from changes, the ones to store as patches on the
// node's manifest of the version before (manifest-patch.ts says when and why).
import type { SetFormChange } from '../../core/sets/compile.js';
import type { SetNode } from '../../core/sets/ir.js';
import type { Lookup } from '../../core/layered-map.js';
import { sharesAny } from '../../core/sorted.js';
import { HEAD_SK, storedForm } from './blob.js';
import { contentHashOfText, nodeManifestText, utf8 } from './codec.js';
import type { PublishedForm, StoreContext } from './context.js';
import { manifestBodyPk } from './keys.js';
import { manifestPatch, MAX_CHAIN, patchText } from './manifest-patch.js';
import { mapLimit } from './concurrency.js';
import { needsRefresh, WRITTEN_AT } from './content-age.js';
import { linksOfHead } from './manifest-links.js';

/** A version's manifests: by node, and what of them is new. */
export interface VersionManifests {
  /** Node → content hash of its manifest in this version. */
  readonly hashes: Map<string, string>;
  /** New manifests stored whole, by hash, encoded when written. */
  readonly wholes: Map<string, () => Uint8Array>;
  /** New manifests stored as patches, by hash (each fits one item). */
  readonly patches: Map<string, Uint8Array>;
}

/**
 * From changes, a node keeps its stored manifest unless its record is new or it names a set whose
 * body is new (a set's content id changes with its members); a new one is a patch on the node's
 * manifest before when that is known here and the patch is small enough.
 */
export function versionManifests(ctx: StoreContext, nodes: Readonly<Record<string, SetNode>>, setContentIds: Lookup<string, string>, earlier: { form: PublishedForm; change: SetFormChange } | null): VersionManifests {
  const out: VersionManifests = { hashes: new Map(), wholes: new Map(), patches: new Map() };
  const newNodes = new Set(earlier?.change.nodes);
  const newSets = earlier ? [...earlier.change.sets].sort() : [];
  for (const node of Object.keys(nodes).sort()) {
    const n = nodes[node]!;
    const kept = earlier && !newNodes.has(node) && !sharesAny(n.sets, newSets) ? earlier.form.manifests.get(node) : undefined;
    if (kept !== undefined) {
      out.hashes.set(node, kept);
      continue;
    }
    const encoded = encodedManifest(ctx, n, setContentIds);
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
  const before = earlier.change.from.nodes[node];
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
 * any publish) stays whole, so every chain ends at a whole one (manifest-patch.ts). One
 * conditional write each, at most `concurrency` at once, alongside the version's other items.
 * One found stored with an old stamp is stamped again (content-age.ts), and its own links are
 * remembered: a later patch on it names those, not the ones this process would have written.
 * Returns when the oldest knowledge relied on (a patch known stored) was learnt.
 */
export async function writePatches(ctx: StoreContext, patches: ReadonlyMap<string, Uint8Array>): Promise<number> {
  const now = ctx.nowSeconds();
  let vouched = now;
  const unknown = [...patches].filter(([hash]) => {
    const at = ctx.known.learnt(manifestBodyPk, hash, now);
    if (at !== undefined) vouched = Math.min(vouched, at);
    return at === undefined;
  });
  await mapLimit(unknown, ctx.concurrency, async ([hash, raw]) => {
    const { bytes, encoding } = await storedForm(ctx.compression, raw);
    const item = { pk: manifestBodyPk(hash), sk: HEAD_SK, chunks: 1, body: bytes, ...encoding, [WRITTEN_AT]: now };
    // A stored one may be collected between the two calls: then it is written after all.
    for (let attempt = 0; attempt < 3; attempt++) {
      const existing = await ctx.backend.putIfAbsent(item, now);
      if (!existing) return;
      const links = await linksOfHead(ctx.compression, existing);
      if (links.length > 0 || ctx.chains.get(hash)?.base.length) ctx.chains.set(hash, { base: links, patchBytes: links.length > 0 ? Number.MAX_SAFE_INTEGER : 0 });
      if (!needsRefresh(existing, now) || (await ctx.backend.updateIfExists(item, { [WRITTEN_AT]: now }))) return;
    }
    throw new Error(`manifest ${hash} kept disappearing while it was written`);
  });
  for (const [hash] of unknown) ctx.known.add(manifestBodyPk, hash, now);
  return vouched;
}

/**
 * A node's manifest hash and size, its text made once per node object while its sets' bodies
 * stay the same (a version from changes carries unchanged nodes along; a member change gives a
 * set a new body, and the node a new manifest). Its bytes are encoded only to be stored whole:
 * a manifest stored as a patch is only hashed (at L a rolling update changes ~10³ manifests of
 * ~400 KB), and nothing keeps the text once written.
 */
function encodedManifest(ctx: StoreContext, node: SetNode, setContentIds: Lookup<string, string>): { hash: string; size: number; bytes: () => Uint8Array } {
  const bodies = node.sets.map((id) => setContentIds.get(id)!);
  const cached = ctx.manifests.get(node);
  if (cached && cached.bodies.length === bodies.length && cached.bodies.every((b, i) => b === bodies[i])) return { hash: cached.hash, size: cached.size, bytes: () => utf8(nodeManifestText(node, setContentIds)) };
  const text = nodeManifestText(node, setContentIds);
  const hash = contentHashOfText(text, ctx.sha256Hex);
  ctx.manifests.set(node, { hash, size: text.length, bodies });
  return { hash, size: text.length, bytes: () => utf8(text) };
}
