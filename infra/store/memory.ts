// STORE=memory: the shared snapshot store over a Map-backed ItemBackend. Same chunking, publish
// order, conditions and expiry as DynamoDB; only the item primitives differ. Items are copied in
// and out so callers can never alias stored bytes.
import { TTL_ATTRIBUTE, conditionList, type AttrValue, type Conditions, type Item, type ItemBackend, type QueryPage, type ScanOptions, type ScanPage } from './backend.js';
import type { SnapshotStoreOptions } from './context.js';
import type { ItemKey } from './keys.js';
import { createSnapshotStore } from './snapshot-store.js';
import type { SnapshotStore } from './types.js';

const copyValue = (v: AttrValue): AttrValue => (v instanceof Uint8Array ? v.slice() : v);
const copyItem = (item: Item): Item => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, copyValue(v)])) as unknown as Item;

function project(item: Item, attributes: readonly string[] | undefined): Item {
  if (!attributes) return copyItem(item);
  const out: Record<string, AttrValue> = { pk: item.pk, sk: item.sk };
  for (const a of attributes) if (item[a] !== undefined) out[a] = copyValue(item[a]);
  return out as Item;
}

/** DynamoDB's reading of the conditions: a number compares only with a number. */
function holds(item: Item, onlyIf: Conditions | undefined): boolean {
  return conditionList(onlyIf).every((c) => {
    const v = item[c.attribute];
    if ('equals' in c) return v !== undefined && v === c.equals;
    if (v === undefined) return true;
    return typeof v === 'number' && ('absentOrBelow' in c ? v < c.absentOrBelow : v > c.absentOrAbove);
  });
}

export class MemoryBackend implements ItemBackend {
  private readonly partitions = new Map<string, Map<string, Item>>();

  private read(key: ItemKey): Item | undefined {
    return this.partitions.get(key.pk)?.get(key.sk);
  }

  private write(item: Item): void {
    let p = this.partitions.get(item.pk);
    if (!p) this.partitions.set(item.pk, (p = new Map()));
    p.set(item.sk, copyItem(item));
  }

  /** Every item, in key order: what a test compares between two stores. */
  dump(): Item[] {
    return [...this.partitions.keys()].sort().flatMap((pk) => [...this.partitions.get(pk)!.keys()].sort().map((sk) => copyItem(this.partitions.get(pk)!.get(sk)!)));
  }

  async putItems(items: readonly Item[]): Promise<void> {
    for (const item of items) this.write(item);
  }

  async getItems(keys: readonly ItemKey[], opts: { readonly attributes?: readonly string[] } = {}): Promise<Item[]> {
    return keys.flatMap((k) => {
      const item = this.read(k);
      return item ? [project(item, opts.attributes)] : [];
    });
  }

  async getItem(key: ItemKey): Promise<Item | null> {
    const item = this.read(key);
    return item ? copyItem(item) : null;
  }

  async putIfAbsent(item: Item, nowSeconds: number): Promise<Item | null> {
    const existing = this.read(item);
    const at = existing?.[TTL_ATTRIBUTE];
    if (existing && !(typeof at === 'number' && at <= nowSeconds)) return copyItem(existing);
    this.write(item);
    return null;
  }

  async putIfUnchanged(item: Item, expect: { readonly attribute: string; readonly equals: AttrValue } | null): Promise<boolean> {
    const existing = this.read(item);
    if (expect === null ? existing !== undefined : existing?.[expect.attribute] !== expect.equals) return false;
    this.write(item);
    return true;
  }

  async updateIfExists(key: ItemKey, set: Readonly<Record<string, AttrValue>>, onlyIf?: Conditions): Promise<boolean> {
    const existing = this.read(key);
    if (!existing || !holds(existing, onlyIf)) return false;
    this.write({ ...existing, ...set });
    return true;
  }

  async removeIfExists(key: ItemKey, attributes: readonly string[], onlyIf?: Conditions): Promise<boolean> {
    const existing = this.read(key);
    if (!existing || !holds(existing, onlyIf)) return false;
    const kept: Record<string, AttrValue> = { ...existing };
    for (const a of attributes) if (a !== 'pk' && a !== 'sk') delete kept[a];
    this.write(kept as Item);
    return true;
  }

  async queryPage(pk: string, opts: { readonly skPrefix: string; readonly limit: number; readonly descending: boolean; readonly startAfterSk?: string | null }): Promise<QueryPage> {
    const sks = [...(this.partitions.get(pk)?.keys() ?? [])].filter((sk) => sk.startsWith(opts.skPrefix)).sort();
    if (opts.descending) sks.reverse();
    const after = opts.startAfterSk;
    const rest = after == null ? sks : sks.filter((sk) => (opts.descending ? sk < after : sk > after));
    const page = rest.slice(0, opts.limit);
    return { items: page.map((sk) => copyItem(this.partitions.get(pk)!.get(sk)!)), lastSk: rest.length > opts.limit ? page[page.length - 1]! : null };
  }

  /** In key order; like DynamoDB, `limit` counts items read before the filter, so pages may come back empty. */
  async scanPage(opts: ScanOptions): Promise<ScanPage> {
    const keys = [...this.partitions.keys()].sort().flatMap((pk) => [...this.partitions.get(pk)!.keys()].sort().map((sk) => ({ pk, sk })));
    const after = opts.startAfter;
    const rest = after ? keys.filter((k) => k.pk > after.pk || (k.pk === after.pk && k.sk > after.sk)) : keys;
    const read = rest.slice(0, opts.limit);
    const items = read
      .filter((k) => opts.pkPrefixes.some((p) => k.pk.startsWith(p)) && (opts.sk === undefined || k.sk === opts.sk))
      .map((k) => project(this.read(k)!, opts.attributes));
    return { items, last: rest.length > opts.limit ? read[read.length - 1]! : null };
  }

  async deleteIf(key: ItemKey, onlyIf?: Conditions): Promise<Item | null> {
    const existing = this.read(key);
    if (!existing || !holds(existing, onlyIf)) return null;
    this.partitions.get(key.pk)!.delete(key.sk);
    if (this.partitions.get(key.pk)!.size === 0) this.partitions.delete(key.pk);
    return copyItem(existing);
  }
}

export function createMemoryStore(opts: SnapshotStoreOptions = {}): SnapshotStore {
  return createSnapshotStore(new MemoryBackend(), opts);
}
