// Set bodies packed many to an item. A whole publish at L writes ~10⁵ bodies of ~300 bytes (43%
// of them sets with no members), and the embedded store, like DynamoDB's write units, charges
// per item: 20,000 bodies of 300 B took 1.7–2.1 s one per item and 0.11–0.14 s a hundred to an
// item (bench/item-cost.ts). Packs are cut content-defined over the sorted content ids (a body
// ends a pack when its id hashes to 0 mod PACK_SPAN), so a whole publish after a small change
// makes the same packs but those holding a changed body. An index, named by the version's
// header, lists each pack's content ids; versions from changes carry their base's index and
// write their new bodies as single items (e#), which readers find when the index lacks them.
import type { Sha256Hex } from '../../core/compile/index.js';
import { fnv1a } from '../../core/fnv1a.js';
import { contentId, type IrSet } from '../../core/sets/index.js';
import { byText } from '../../core/sorted.js';
import { asSet, fromUtf8, isObject, isStrings } from './codec.js';
import { StoreCorruptionError } from './types.js';

const PACK_FORMAT = 'netpolc.set-pack/1';
const INDEX_FORMAT = 'netpolc.set-pack-index/1';

/** Bodies per pack, on average. */
export const PACK_SPAN = 128;

export interface SetPacks {
  /** Pack id (`k` + 16 hex digits of the SHA-256 of its text) → its text. */
  readonly packs: ReadonlyMap<string, string>;
  /** The index (`l` + 16 hex digits of the SHA-256 of its text): pack id → the content ids it holds. */
  readonly index: { readonly id: string; readonly text: string };
}

/** Bodies by content id (their stored text) as packs and the index of them. */
export function packSets(bodies: ReadonlyMap<string, string>, sha256Hex: Sha256Hex): SetPacks {
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
  const text = JSON.stringify({ format: INDEX_FORMAT, packs: members });
  return { packs, index: { id: contentId('l', text, sha256Hex), text } };
}

/** A stored index, checked against its id: content id → pack id. */
export function decodePackIndex(id: string, bytes: Uint8Array, sha256Hex: Sha256Hex): ReadonlyMap<string, string> {
  const text = fromUtf8(bytes);
  const actual = contentId('l', text, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`set-pack index ${id}: stored content hashes to ${actual}`);
  const o: unknown = JSON.parse(text);
  if (!isObject(o) || o.format !== INDEX_FORMAT || !isObject(o.packs)) throw new StoreCorruptionError(`set-pack index ${id} not in the ${INDEX_FORMAT} format`);
  const packOf = new Map<string, string>();
  for (const [pack, held] of Object.entries(o.packs)) {
    if (!/^k[0-9a-f]{16}$/.test(pack) || !isStrings(held)) throw new StoreCorruptionError(`set-pack index ${id}: malformed entry ${JSON.stringify(pack)}`);
    for (const body of held) packOf.set(body, pack);
  }
  return packOf;
}

/** A stored pack, checked against its id: content id → set body. */
export function decodePack(id: string, bytes: Uint8Array, sha256Hex: Sha256Hex): ReadonlyMap<string, IrSet> {
  const text = fromUtf8(bytes);
  const actual = contentId('k', text, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`set pack ${id}: stored content hashes to ${actual}`);
  const o: unknown = JSON.parse(text);
  if (!isObject(o) || o.format !== PACK_FORMAT || !isObject(o.bodies)) throw new StoreCorruptionError(`set pack ${id} not in the ${PACK_FORMAT} format`);
  return new Map(Object.entries(o.bodies).map(([body, set]) => [body, asSet(body, set)]));
}
