// Sets and tables of a set form, by id, in id order. A version from changes differs from the one
// before in a few set bodies and a few ids: it shares the earlier id list when no id came or went
// and reads bodies through a layer over the earlier ones (core/layered-map.ts), instead of
// copying a record of 10⁵ entries per version. JSON is the plain object in id order, as always.
import { layerOver, type Lookup } from '../layered-map.js';

/** What changed between two records: bodies of ids that came or changed, ids that went. */
export interface IdRecordChange<T> {
  readonly set: ReadonlyMap<string, T>;
  readonly dropped: ReadonlySet<string>;
}

export class IdRecord<T> {
  // Private fields (#): Object.keys or for…in over a record is empty, never its internals.
  readonly #order: readonly string[];
  readonly #bodies: Lookup<string, T>;
  /** The record it was made from, when that one's keys were already in id order: its JSON form as it is. */
  readonly #plain: Readonly<Record<string, T>> | null;

  private constructor(order: readonly string[], bodies: Lookup<string, T>, plain: Readonly<Record<string, T>> | null = null) {
    this.#order = order;
    this.#bodies = bodies;
    this.#plain = plain;
  }

  /** From ids in any order with their bodies. */
  static of<T>(entries: Iterable<readonly [string, T]>): IdRecord<T> {
    const bodies = new Map<string, T>(entries);
    return new IdRecord([...bodies.keys()].sort(), bodies);
  }

  /**
   * From a plain record (JSON as it is sent). A record already in id order (a stored node's
   * slice: 16,000 tables for a crowded node) is kept, not copied, and is its own JSON form: it
   * must not be changed afterwards.
   */
  static fromObject<T>(record: Readonly<Record<string, T>>): IdRecord<T> {
    const keys = Object.keys(record);
    for (let i = 1; i < keys.length; i++) if (keys[i]! <= keys[i - 1]!) return IdRecord.of(Object.entries(record));
    return new IdRecord(keys, { get: (id) => (Object.hasOwn(record, id) ? record[id] : undefined), has: (id) => Object.hasOwn(record, id) }, record);
  }

  get size(): number {
    return this.#order.length;
  }

  get(id: string): T | undefined {
    return this.#bodies.get(id);
  }

  has(id: string): boolean {
    return this.#bodies.has(id);
  }

  /** Ids in order. */
  ids(): readonly string[] {
    return this.#order;
  }

  *entries(): IterableIterator<[string, T]> {
    for (const id of this.#order) yield [id, this.#bodies.get(id)!];
  }

  /**
   * This record with `change` (this one stays as it is: an earlier version may still read it).
   * The id list is shared when no id came or went, else merged in order (no sort of every id).
   */
  after(change: IdRecordChange<T>): IdRecord<T> {
    if (change.set.size === 0 && change.dropped.size === 0) return this;
    // A record kept as it was given (fromObject) becomes a map the first time it changes.
    const bodies = layerOver(this.#plain ? new Map(Object.entries(this.#plain)) : this.#bodies);
    const added: string[] = [];
    for (const [id, body] of change.set) {
      if (!this.#bodies.has(id)) added.push(id);
      bodies.set(id, body);
    }
    for (const id of change.dropped) bodies.delete(id);
    if (added.length === 0 && change.dropped.size === 0) return new IdRecord(this.#order, bodies);
    added.sort();
    const order: string[] = [];
    let a = 0;
    for (const id of this.#order) {
      for (; a < added.length && added[a]! < id; a++) order.push(added[a]!);
      if (!change.dropped.has(id)) order.push(id);
    }
    for (; a < added.length; a++) order.push(added[a]!);
    return new IdRecord(order, bodies);
  }

  toJSON(): Readonly<Record<string, T>> {
    if (this.#plain) return this.#plain;
    const out: Record<string, T> = {};
    for (const id of this.#order) out[id] = this.#bodies.get(id)!;
    return out;
  }
}

