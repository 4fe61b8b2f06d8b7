// A version from changes writes the tables and set bodies new to it one per item while they are
// few (a one-pod change: a handful) and names its base's pack index for the rest (content.ts). A
// broad change writes them packed instead, as a whole publish does: an AdminNetworkPolicy edit
// whose subjects are on nearly every node makes ~2.8·10⁴ new bodies at L, and one item each took
// 26 s on the embedded store (DynamoDB, too, charges a write request per item). Its index is new
// and lists every body the version reads, the new ones in the new packs and the rest in the
// packs its base's index names them in; only those read are listed, so indexes do not grow with
// bodies no version reads any more. Writing that index costs about what 1/INDEX_SHARE of its
// entries written one per item would, so a change packs only when it is at least that broad.
import type { Sha256Hex } from '../../core/compile/index.js';
import type { Lookup } from '../../core/layered-map.js';
import { byText } from '../../core/sorted.js';
import type { Content } from './content.js';
import type { StoreContext } from './context.js';
import { cutPacks, packIndex } from './packs.js';
import { getPackIndex } from './read.js';
import { StoreCorruptionError, type CompiledSnapshot } from './types.js';

/** A change packs when its new bodies are at least 1/INDEX_SHARE of the bodies its version reads. */
const INDEX_SHARE = 32;

/** `content` of a version from changes (or carried from a stored base) with its new bodies packed when they are many; else as it is. */
export async function packedIfBroad(ctx: StoreContext, snap: CompiledSnapshot, content: Content, sha256Hex: Sha256Hex): Promise<Content> {
  if (content.packs) return content;
  const fresh = content.tables.size + content.sets.size;
  if (fresh === 0 || fresh < ctx.changePackMinBodies || fresh * INDEX_SHARE < snap.ir.tables.size + snap.ir.sets.size) return content;
  let base: Lookup<string, string> | null = null;
  if (content.packIndex !== undefined) {
    try {
      base = await getPackIndex(ctx, content.packIndex);
    } catch (e) {
      if (!(e instanceof StoreCorruptionError)) throw e;
    }
    // The base's index does not read back: where it lists a body cannot be told, so the change
    // names that index as it would and writes its bodies one per item.
    if (!base) return content;
  }
  const { packs, members } = cutPacks(new Map([...content.tables, ...content.sets]), sha256Hex);
  const listed = new Map<string, string[]>(Object.entries(members));
  const list = (id: string) => {
    if (content.tables.has(id) || content.sets.has(id)) return;
    const pack = base?.get(id);
    if (pack === undefined) return;
    const ids = listed.get(pack);
    if (ids) ids.push(id);
    else listed.set(pack, [id]);
  };
  for (const id of snap.ir.tables.ids()) list(id);
  for (const id of snap.ir.sets.ids()) list(content.setContentIds.get(id)!);
  const index: Record<string, string[]> = {};
  for (const pack of [...listed.keys()].sort(byText)) index[pack] = listed.get(pack)!.sort(byText);
  return { ...content, tables: new Map(), sets: new Map(), packs: { packs, index: packIndex(index, sha256Hex) } };
}
