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

  private constructor(order: readonly string[], bodies: Lookup<string, T>) {
    this.#order = order;
    this.#bodies = bodies;
  }

  /** From ids in any order with their bodies. */
  static of<T>(entries: Iterable<readonly [string, T]>): IdRecord<T> {
    const bodies = new Map<string, T>(entries);
    return new IdRecord([...bodies.keys()].sort(), bodies);
  }

  /** From a plain record (JSON as it is sent). */
  static fromObject<T>(record: Readonly<Record<string, T>>): IdRecord<T> {
    return IdRecord.of(Object.entries(record));
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
    const bodies = layerOver(this.#bodies);
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

  toJSON(): Record<string, T> {
    const out: Record<string, T> = {};
    for (const id of this.#order) out[id] = this.#bodies.get(id)!;
    return out;
  }
}

