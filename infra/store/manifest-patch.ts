// A node manifest stored as a patch on the one before it. A rolling update changes the members
// of a few sets that most nodes use: every such node gets a new manifest, and a manifest names
// every set its node uses (thousands at L) with its body's content id. Written whole, that was
// 37 MiB for one 100-pod change at L; as patches it is what changed (the pods, the sets whose
// bodies changed, the table list's edits) per node — Antrea's AddressGroupPatch idea, applied
// to what is stored rather than to what is sent.
//
// A patch is stored under the content hash of the manifest it makes (the node's ETag and shard
// entry are unchanged), and lists every manifest down to one stored whole, nearest first, so a
// reader fetches the chain in one batch. Chains are short (MAX_CHAIN) and their patches small
// next to the whole (a cold read costs at most 1.5× the whole manifest). Patches are written
// only where nothing was stored under their key when the publish looked, so each links only to
// manifests stored before it and no chain can lead back to itself (manifest-write.ts
// writePatches says why).
import type { SetNode, SetPod } from '../../core/sets/index.js';
import { byText, includesSorted, sortedDiff, sortOnce } from '../../core/sorted.js';
import { fromUtf8, isObject, isStrings, manifestFromJson, type Manifest } from './codec.js';
import { StoreCorruptionError } from './types.js';

/** Patches in a chain at most (a cold read of a node reads this many items more than one). */
export const MAX_CHAIN = 8;

export interface ManifestPatch {
  /** The manifests this one is built on, nearest first; the last is stored whole. */
  readonly base: readonly string[];
  readonly addresses: readonly string[];
  /** Pods added or changed; null: removed. */
  readonly pods: Readonly<Record<string, SetPod | null>>;
  /** Sets added or with another body (content id); null: no longer used. */
  readonly sets: Readonly<Record<string, string | null>>;
  readonly tables: { readonly add: readonly string[]; readonly remove: readonly string[] };
}

export type StoredManifest = { readonly whole: Manifest } | { readonly patch: ManifestPatch };

/** A node as a publish sees it: its record and its sets' content ids in that version. */
export interface NodeForm {
  readonly node: SetNode;
  readonly contentIds: Pick<ReadonlyMap<string, string>, 'get'>;
}

/**
 * What takes `before` to `after`. `changedSets`: sorted ids of the sets whose bodies may differ
 * between the two versions; of the sets the node names in both, only those are compared.
 */
export function manifestPatch(base: readonly string[], before: NodeForm, after: NodeForm, changedSets: readonly string[]): ManifestPatch {
  const pods: Record<string, SetPod | null> = {};
  if (before.node.pods !== after.node.pods) {
    for (const [key, pod] of Object.entries(after.node.pods)) {
      const was = before.node.pods[key];
      if (was !== pod && (was === undefined || !samePod(was, pod))) pods[key] = pod;
    }
    for (const key of Object.keys(before.node.pods)) if (!(key in after.node.pods)) pods[key] = null;
  }
  const sets: Record<string, string | null> = {};
  const bodyChange = (id: string) => {
    const body = after.contentIds.get(id)!;
    if (before.contentIds.get(id) !== body) sets[id] = body;
  };
  if (before.node.sets === after.node.sets) {
    for (const id of changedSets) if (includesSorted(after.node.sets, id)) bodyChange(id);
  } else {
    const { add, remove, both } = sortedDiff(before.node.sets, after.node.sets);
    for (const id of add) sets[id] = after.contentIds.get(id)!;
    for (const id of remove) sets[id] = null;
    // Of the sets it kept, only one whose body is new can name another body (as above): at L a
    // broad change rewrites ~10³ nodes' lists of ~10³ sets each, and only a few bodies change.
    for (const id of changedSets) if (includesSorted(both, id)) bodyChange(id);
  }
  const { add, remove } = before.node.tables === after.node.tables ? { add: [], remove: [] } : sortedDiff(before.node.tables, after.node.tables);
  return { base, addresses: [...after.node.addresses], pods, sets, tables: { add, remove } };
}

/**
 * Whether two bindings write the same text (a SetPod is its addresses and two table ids): a
 * broad change binds every pod of ~10³ nodes again (10⁵ pods at L), mostly to the same tables.
 */
const samePod = (a: SetPod, b: SetPod): boolean => a.ingress === b.ingress && a.egress === b.egress && a.ips.length === b.ips.length && a.ips.every((ip, i) => ip === b.ips[i]);

export const patchText = (p: ManifestPatch): string => JSON.stringify({ base: p.base, addresses: p.addresses, pods: p.pods, sets: p.sets, tables: p.tables });

/** A stored manifest item: whole (manifestText) or a patch (patchText). */
export function decodeStoredManifest(bytes: Uint8Array): StoredManifest {
  const m = JSON.parse(fromUtf8(bytes)) as Record<string, unknown> | null;
  if (m && typeof m === 'object' && Array.isArray(m.base)) {
    const t = m.tables as ManifestPatch['tables'] | undefined;
    const ok = m.base.length > 0 && m.base.every((h) => typeof h === 'string' && /^h[0-9a-f]{32}$/.test(h)) && isStrings(m.addresses) && isObject(m.pods) && isObject(m.sets) && isObject(t) && isStrings(t.add) && isStrings(t.remove);
    if (!ok) throw new StoreCorruptionError('malformed node manifest patch');
    return { patch: m as unknown as ManifestPatch };
  }
  return { whole: manifestFromJson(m) };
}

/**
 * The manifest `hash` names, from its stored item and its links' (by hash): each patch applies to
 * the manifest its first base names (the rest of `base` is where that one leads, listed so a
 * reader fetches them at once). Null when a link it needs is not among `items` (read it, then
 * ask again): `need` says which.
 */
export function resolveManifest(hash: string, items: ReadonlyMap<string, StoredManifest>): { manifest: Manifest } | { need: string } {
  const patches: ManifestPatch[] = [];
  let at = hash;
  // Links only lead to manifests stored before them (manifest-write.ts writePatches), so this ends;
  // the bound is against a store that says otherwise.
  for (let item = items.get(at); ; item = items.get(at)) {
    if (!item) return { need: at };
    if ('whole' in item) {
      let m = item.whole;
      for (let i = patches.length - 1; i >= 0; i--) m = applyPatch(m, patches[i]!);
      return { manifest: m };
    }
    patches.push(item.patch);
    if (patches.length > MAX_LINKS) throw new StoreCorruptionError(`manifest ${hash}: no whole manifest within ${MAX_LINKS} links`);
    at = item.patch.base[0]!;
  }
}

/** Links followed at most from a manifest to a whole one. */
const MAX_LINKS = 8 * MAX_CHAIN;

/** A patch applied: records rebuilt in key order, as a whole manifest is stored (so its text hashes the same). */
export function applyPatch(m: Manifest, p: ManifestPatch): Manifest {
  const pods = new Map(Object.entries(m.pods));
  for (const [key, pod] of Object.entries(p.pods)) if (pod === null) pods.delete(key); else pods.set(key, pod);
  const sets = new Map(Object.entries(m.sets));
  for (const [id, body] of Object.entries(p.sets)) if (body === null) sets.delete(id); else sets.set(id, body);
  const removed = new Set(p.tables.remove);
  const tables = sortOnce([...m.tables.filter((t) => !removed.has(t)), ...p.tables.add], byText);
  return { addresses: p.addresses, pods: sortedRecord(pods), sets: sortedRecord(sets), tables };
}

function sortedRecord<T>(m: ReadonlyMap<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of sortOnce([...m.keys()], byText)) out[k] = m.get(k)!;
  return out;
}
