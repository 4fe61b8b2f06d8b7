// What a publish stores of a set form (publish.ts writes it): every table and set body checked
// against its content address, then either packed (a whole publish: packs.ts), or only what is
// new written one per item while the packs of an earlier version are relied on: one this
// process published (a version from changes), or one read back from the store (a whole publish
// of a version compiled from a stored base, as a new server's first change is). What is new is
// packed after all when it is much (change-packs.ts).
import type { Sha256Hex } from '../../core/compile/index.js';
import { LayeredMap, type Lookup } from '../../core/layered-map.js';
import { definitionId, setText, tableId, tableText, type IrSet, type RuleTable, type SetFormChange, type SetNode } from '../../core/sets/index.js';
import { HEAD_SK } from './blob.js';
import { setContentId } from './codec.js';
import { mapLimit } from './concurrency.js';
import { needsRefresh, WRITTEN_AT } from './content-age.js';
import type { PublishedForm, StoreContext } from './context.js';
import { isExpired, packIndexOf } from './header.js';
import { checkName, headerKey, packIndexPk, packPk } from './keys.js';
import { packBodies } from './packs.js';
import { getPackIndex } from './read.js';
import { StoreCorruptionError, StoreInputError, type CompiledSnapshot } from './types.js';
import { own } from '../../core/names-record.js';
import { isSorted, sortedDiff } from '../../core/sorted.js';

/**
 * A set form's content to store: tables and set bodies packed (a whole publish), or the new ones
 * by id and content id (from changes), every set's content id, counts.
 */
export interface Content {
  readonly tables: Map<string, string>;
  readonly sets: Map<string, string>;
  /** A whole publish's tables and set bodies, packed (packs.ts). */
  readonly packs?: ReturnType<typeof packBodies>;
  /** From changes, or carried from a stored base: the index of packs the version relies on. */
  readonly packIndex?: string;
  readonly setContentIds: LayeredMap<string, string>;
  /** The same ids as a plain map, when there is one (a whole publish: 10⁷ lookups at L, one map each). */
  readonly read?: Lookup<string, string>;
  readonly tableCount: number;
  readonly setCount: number;
}


/**
 * Every table and set body of the snapshot in the form that is stored, each checked against its
 * content address: what the id hashes is what is stored (encoded once). A set's body gets its own
 * content id (its set id names only the definition, and members change between versions).
 */
function checkedContent(ctx: StoreContext, snap: CompiledSnapshot, sha256Hex: Sha256Hex): { tables: Map<string, string>; sets: Map<string, string>; setContentIds: Map<string, string> } {
  const tables = new Map<string, string>();
  for (const [id, table] of snap.ir.tables.entries()) tables.set(id, checkedTable(id, table, sha256Hex));
  const sets = new Map<string, string>();
  const setContentIds = new Map<string, string>();
  for (const [id, set] of snap.ir.sets.entries()) {
    const { text, content } = checkedSet(ctx, id, set, sha256Hex);
    sets.set(content, text);
    setContentIds.set(id, content);
  }
  for (const [node, n] of Object.entries(snap.ir.nodes)) checkNode(node, n, (id) => tables.has(id), (id) => setContentIds.has(id));
  return { tables, sets, setContentIds };
}

/** The whole set form, packed (packs.ts). */
export function collectContent(ctx: StoreContext, snap: CompiledSnapshot, sha256Hex: Sha256Hex): Content {
  const { tables, sets, setContentIds } = checkedContent(ctx, snap, sha256Hex);
  return { tables: new Map(), sets: new Map(), packs: packBodies(new Map([...tables, ...sets]), sha256Hex), setContentIds: LayeredMap.over(setContentIds), read: setContentIds, tableCount: tables.size, setCount: setContentIds.size };
}

/**
 * The content of a set form compiled from `from` (published by this store, every item stored):
 * its new tables and set bodies, checked and encoded, and the set content ids as a layer over
 * the earlier ones. Nodes whose record is new are checked; the others were when `from` was.
 */
export function changedContent(ctx: StoreContext, snap: CompiledSnapshot, change: SetFormChange, from: PublishedForm, sha256Hex: Sha256Hex): Content {
  const tables = new Map<string, string>();
  for (const id of change.tables) {
    const table = snap.ir.tables.get(id);
    if (table) tables.set(id, checkedTable(id, table, sha256Hex));
  }
  const sets = new Map<string, string>();
  const setContentIds = from.setContentIds.layer();
  for (const id of change.sets) {
    const set = snap.ir.sets.get(id);
    if (!set) continue;
    const { text, content } = checkedSet(ctx, id, set, sha256Hex);
    sets.set(content, text);
    setContentIds.set(id, content);
  }
  for (const node of change.nodes) {
    const n = own(snap.ir.nodes, node);
    if (!n) continue;
    // Lists the node had in `from` (the same arrays) were checked then, and so were the ids of a
    // new list that the node's list in `from` holds: a broad change (a set added to every node's
    // list) checks the ids it added, not 10³ nodes × 10³ sets again at L.
    const before = own(change.from.nodes, node);
    checkName('node', node);
    checkIds(node, 'table', newIds(before?.tables, n.tables), (id) => snap.ir.tables.has(id));
    checkIds(node, 'set', newIds(before?.sets, n.sets), (id) => snap.ir.sets.has(id) && setContentIds.has(id));
  }
  return { tables, sets, ...(from.packIndex !== undefined ? { packIndex: from.packIndex } : {}), setContentIds, tableCount: snap.compile.tables, setCount: snap.compile.sets ?? snap.ir.sets.size };
}

/** A table's stored text, checked against its id. */
function checkedTable(id: string, table: RuleTable, sha256Hex: Sha256Hex): string {
  // A wrong id would poison every version sharing it: refuse rather than store. The id of a
  // table's text is hashed once per table object and function (core/sets/texts.ts), so a version
  // from changes, carrying the earlier version's objects along, checks them without hashing.
  const actual = tableId(table, sha256Hex);
  if (actual !== id) throw new StoreInputError('table', `table ${id} does not hash to its id (${actual})`);
  return tableText(table);
}

/** A set body's stored text and content id, its id checked against its definition. */
function checkedSet(ctx: StoreContext, id: string, set: IrSet, sha256Hex: Sha256Hex): { text: string; content: string } {
  const actual = definitionId(set.definition, sha256Hex);
  if (actual !== id) throw new StoreInputError('set', `set ${id} does not hash to its id (${actual})`);
  const text = setText(set);
  // Its content id, once per set object. A record of one shape: an object keyed by the id
  // itself would make a hidden class per set (10⁵ at L), each lookup a megamorphic one.
  let known = ctx.contentIds.get(set);
  if (known?.sha256Hex !== sha256Hex) ctx.contentIds.set(set, (known = { sha256Hex, content: setContentId(text, sha256Hex) }));
  return { text, content: known.content };
}

function checkNode(node: string, n: SetNode, hasTable: (id: string) => boolean, hasSet: (id: string) => boolean): void {
  checkName('node', node);
  checkIds(node, 'table', n.tables, hasTable);
  checkIds(node, 'set', n.sets, hasSet);
}

function checkIds(node: string, kind: 'table' | 'set', ids: readonly string[], has: (id: string) => boolean): void {
  for (const id of ids) if (!has(id)) throw new StoreInputError(kind, `node ${node} refers to ${kind} ${id} that the snapshot does not carry`);
}

/** The ids of a node's list its list in the earlier version did not hold (both sorted, as compiled; all of them otherwise). */
function newIds(before: readonly string[] | undefined, after: readonly string[]): readonly string[] {
  if (before === after) return [];
  return before && isSorted(before) && isSorted(after) ? sortedDiff(before, after).add : after;
}

/**
 * A version compiled whole from a stored base this process did not publish (a new server's
 * first change on it, or a base published too long ago to rely on what this process learnt):
 * the tables and set bodies the base's packs hold are relied on, the rest written one per item,
 * as from changes. Packing all again would write the index (at L ~1.4·10⁵ ids) and every pack
 * holding a changed body, for a one-pod change. What is relied on is stamped again where its
 * stamp is old, before the header names it (content-age.ts), as a whole publish stamps what it
 * finds stored. Null when the base has no pack index, or the index or a pack it names is not
 * stored: then the caller packs everything.
 */
export async function carriedContent(ctx: StoreContext, cluster: string, base: string, snap: CompiledSnapshot, sha256Hex: Sha256Hex): Promise<Content | null> {
  const now = ctx.nowSeconds();
  const header = await ctx.backend.getItem(headerKey(cluster, base));
  const indexId = header && !isExpired(header, now) ? packIndexOf(header) : undefined;
  if (indexId === undefined) return null;
  let packOf: ReadonlyMap<string, string> | null;
  try {
    packOf = await getPackIndex(ctx, indexId);
  } catch (e) {
    if (e instanceof StoreCorruptionError) return null;
    throw e;
  }
  if (!packOf) return null;
  const whole = checkedContent(ctx, snap, sha256Hex);
  const tables = new Map<string, string>();
  const sets = new Map<string, string>();
  const relied = new Set<string>([packIndexPk(indexId)]);
  for (const [id, text] of whole.tables) {
    const pack = packOf.get(id);
    if (pack === undefined) tables.set(id, text);
    else relied.add(packPk(pack));
  }
  for (const [content, text] of whole.sets) {
    const pack = packOf.get(content);
    if (pack === undefined) sets.set(content, text);
    else relied.add(packPk(pack));
  }
  const heads = await ctx.backend.getItems([...relied].map((pk) => ({ pk, sk: HEAD_SK })), { attributes: [WRITTEN_AT], consistent: true });
  if (heads.length !== relied.size) return null;
  const old = heads.filter((h) => needsRefresh(h, now));
  const refreshed = await mapLimit(old, ctx.concurrency, (h) => ctx.backend.updateIfExists({ pk: h.pk, sk: HEAD_SK }, { [WRITTEN_AT]: now }));
  // One collected between the read and the stamp: nothing to rely on, pack everything.
  if (refreshed.some((ok) => !ok)) return null;
  return { tables, sets, packIndex: indexId, setContentIds: LayeredMap.over(whole.setContentIds), read: whole.setContentIds, tableCount: whole.tables.size, setCount: whole.setContentIds.size };
}
