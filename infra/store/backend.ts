// The few item operations the snapshot store is built from. DynamoDB and memory implement only
// these; chunking, publish order, conflict detection, expiry and pagination live once, in the
// shared store (snapshot-store.ts and its stages), so both backends behave the same.
import type { ItemKey } from './keys.js';

export type AttrValue = string | number | boolean | Uint8Array;

export interface Item extends ItemKey {
  readonly [attribute: string]: AttrValue;
}

/** Seconds since the epoch: DynamoDB's TTL attribute holds this. */
export const TTL_ATTRIBUTE = 'expiresAt';

/**
 * A condition on one attribute of the stored item: equal to a value, or (numbers) absent or
 * below / above one. Several conditions must all hold.
 */
export type Condition =
  | { readonly attribute: string; readonly equals: AttrValue }
  | { readonly attribute: string; readonly absentOrBelow: number }
  | { readonly attribute: string; readonly absentOrAbove: number };

export type Conditions = Condition | readonly Condition[];

export const conditionList = (c: Conditions | undefined): readonly Condition[] => (c === undefined ? [] : 'attribute' in c ? [c] : c);

export interface QueryPage {
  readonly items: readonly Item[];
  /** The sort key to continue after, or null when the partition is exhausted. */
  readonly lastSk: string | null;
}

export interface ScanPage {
  readonly items: readonly Item[];
  /**
   * The key to continue after, or null when the table is exhausted. A page may hold no items
   * and still name a key (DynamoDB filters after reading a page's worth of the table).
   */
  readonly last: ItemKey | null;
}

export interface ScanOptions {
  /** Items whose partition key starts with one of these. */
  readonly pkPrefixes: readonly string[];
  /** Only items with this sort key (a blob's head, HEAD_SK), when given. */
  readonly sk?: string;
  /** Items read per page at most (before the filter: a page may return fewer). */
  readonly limit: number;
  readonly startAfter?: ItemKey | null;
  /** What is read of each item (keys always). */
  readonly attributes?: readonly string[];
}

export interface ItemBackend {
  /** Unconditional writes of any number of items (batched and retried by the backend). Order among them is not guaranteed. */
  putItems(items: readonly Item[]): Promise<void>;
  /** Reads any number of keys; missing keys are absent from the result. `attributes` limits what is read (keys are always included). */
  getItems(keys: readonly ItemKey[], opts?: { readonly attributes?: readonly string[]; readonly consistent?: boolean }): Promise<Item[]>;
  /** A strongly consistent single read. */
  getItem(key: ItemKey): Promise<Item | null>;
  /**
   * Writes the item unless one with its key exists whose TTL attribute is absent or later than
   * `nowSeconds` (an expired item counts as absent: DynamoDB deletes them only eventually).
   * Returns null when written, else the existing item.
   */
  putIfAbsent(item: Item, nowSeconds: number): Promise<Item | null>;
  /**
   * Compare-and-swap: writes the item only if the stored one is absent (`expect` null) or has
   * `expect.attribute` equal to `expect.equals`. False when the condition failed.
   */
  putIfUnchanged(item: Item, expect: { readonly attribute: string; readonly equals: AttrValue } | null): Promise<boolean>;
  /** Sets attributes on an existing item (never creates one), only if `onlyIf` holds; false when it did not apply. */
  updateIfExists(key: ItemKey, set: Readonly<Record<string, AttrValue>>, onlyIf?: Conditions): Promise<boolean>;
  /** Removes attributes from an existing item (never creates one), only if `onlyIf` holds; false when it did not apply. */
  removeIfExists(key: ItemKey, attributes: readonly string[], onlyIf?: Conditions): Promise<boolean>;
  /** Items of one partition whose sort key starts with `skPrefix`, ascending or descending, after `startAfterSk`. */
  queryPage(pk: string, opts: { readonly skPrefix: string; readonly limit: number; readonly descending: boolean; readonly startAfterSk?: string | null }): Promise<QueryPage>;
  /**
   * One page of a scan of the whole table (strongly consistent), in no particular order but
   * resumable after `last`. Only for maintenance (collect.ts): it reads every item of the table.
   */
  scanPage(opts: ScanOptions): Promise<ScanPage>;
  /** Deletes the item only if it exists and `onlyIf` holds; returns the item as it was, or null when nothing was deleted. */
  deleteIf(key: ItemKey, onlyIf?: Conditions): Promise<Item | null>;
}
