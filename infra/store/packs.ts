// Rule tables and set bodies packed many to an item. A whole publish at L writes ~10⁵ set bodies
// of ~300 bytes (43% of them sets with no members) and ~3.6·10⁴ tables, and the embedded store,
// like DynamoDB's write units, charges per item: 20,000 bodies of 300 B took 1.7–2.1 s one per
// item and 0.11–0.14 s a hundred to an item (bench/item-cost.ts). Packs are cut content-defined
// over the sorted ids (table ids `r…`, set content ids `e…`: a body ends a pack when its id
// hashes to 0 mod PACK_SPAN), so a whole publish after a small change makes the same packs but
// those holding a changed body. An index, named by the version's header, lists each pack's ids;
// versions from changes carry their base's index and write their new tables and bodies as single
// items (t#, e#), which readers find when the index lacks them, unless they are many: then they
// are packed too, under a new index (change-packs.ts).
import type { Sha256Hex } from '../../core/compile/index.js';
import { fnv1a } from '../../core/fnv1a.js';
import { contentId } from '../../core/sets/index.js';
import { byText } from '../../core/sorted.js';
import { fromUtf8, isObject, isStrings } from './codec.js';
import { StoreCorruptionError } from './types.js';

const PACK_FORMAT = 'netpolc.pack/1';
const INDEX_FORMAT = 'netpolc.pack-index/1';

/** Bodies per pack, on average. */
export const PACK_SPAN = 128;

/** New bodies a version from changes writes one per item at most, by default (change-packs.ts): two packs' worth. */
export const DEFAULT_CHANGE_PACK_MIN_BODIES = 2 * PACK_SPAN;

export interface Packs {
  /** Pack id (`k` + 16 hex digits of the SHA-256 of its text) → its text. */
  readonly packs: ReadonlyMap<string, string>;
  /** The index (`l` + 16 hex digits of the SHA-256 of its text): pack id → the content ids it holds. */
  readonly index: { readonly id: string; readonly text: string };
}

/** Tables and set bodies by id (their stored text, as their ids hash it) as packs and the index of them. */
export function packBodies(bodies: ReadonlyMap<string, string>, sha256Hex: Sha256Hex): Packs {
  const { packs, members } = cutPacks(bodies, sha256Hex);
  return { packs, index: packIndex(members, sha256Hex) };
}

/** Bodies cut into packs over their sorted ids: pack id → text, and pack id → the ids it holds. */
export function cutPacks(bodies: ReadonlyMap<string, string>, sha256Hex: Sha256Hex): { packs: Map<string, string>; members: Record<string, string[]> } {
  const ids = [...bodies.keys()].sort(byText);
  const packs = new Map<string, string>();
  const members: Record<string, string[]> = {};
  let start = 0;
  for (let i = 0; i < ids.length; i++) {
    if (i < ids.length - 1 && fnv1a(ids[i]!) % PACK_SPAN !== 0) continue;
    const held = ids.slice(start, i + 1);
    // The bodies' own text, as their content ids hash it: a reader checks the pack's id over all of it.
    const text = `{"format":${JSON.stringify(PACK_FORMAT)},"bodies":{${held.map((id) => `${JSON.stringify(id)}:${bodies.get(id)!}`).join(',')}}}`;
    const id = contentId('k', text, sha256Hex);
    packs.set(id, text);
    members[id] = held;
    start = i + 1;
  }
  return { packs, members };
}

/** The index of packs (pack id → the ids a reader finds in it): its id and text. */
export function packIndex(members: Readonly<Record<string, readonly string[]>>, sha256Hex: Sha256Hex): Packs['index'] {
  const text = JSON.stringify({ format: INDEX_FORMAT, packs: members });
  return { id: contentId('l', text, sha256Hex), text };
}

/** A stored index, checked against its id: content id → pack id. */
export function decodePackIndex(id: string, bytes: Uint8Array, sha256Hex: Sha256Hex): ReadonlyMap<string, string> {
  const text = fromUtf8(bytes);
  const actual = contentId('l', text, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`pack index ${id}: stored content hashes to ${actual}`);
  const o: unknown = JSON.parse(text);
  if (!isObject(o) || o.format !== INDEX_FORMAT || !isObject(o.packs)) throw new StoreCorruptionError(`pack index ${id} not in the ${INDEX_FORMAT} format`);
  const packOf = new Map<string, string>();
  for (const [pack, held] of Object.entries(o.packs)) {
    if (!/^k[0-9a-f]{16}$/.test(pack) || !isStrings(held)) throw new StoreCorruptionError(`pack index ${id}: malformed entry ${JSON.stringify(pack)}`);
    for (const body of held) packOf.set(body, pack);
  }
  return packOf;
}

/** A stored pack, checked against its id: id → the parsed table or set body (its reader checks its shape). */
export function decodePack(id: string, bytes: Uint8Array, sha256Hex: Sha256Hex): ReadonlyMap<string, unknown> {
  const text = fromUtf8(bytes);
  const actual = contentId('k', text, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`pack ${id}: stored content hashes to ${actual}`);
  const o: unknown = JSON.parse(text);
  if (!isObject(o) || o.format !== PACK_FORMAT || !isObject(o.bodies)) throw new StoreCorruptionError(`pack ${id} not in the ${PACK_FORMAT} format`);
  return new Map(Object.entries(o.bodies));
}
