// A map as a few entries over an earlier map: a version from changes differs from the one before
// in a handful of pods or sets, and copying a map of 10⁵ entries per version would cost more
// than the change. Reads walk the layers (newest first); past MAX_DEPTH layers they are merged
// into one (or, once they hold a 1/MERGE_SHARE share of the map, flattened into a copy), so a
// read never walks far and copying is amortised over many versions.
// Lookups only (get, has): nothing iterates these maps.
const MAX_DEPTH = 4;
const MERGE_SHARE = 8;
const GONE = Symbol('deleted');

/** What readers of a layered (or plain) map may do. */
export interface Lookup<K, V> {
  get(key: K): V | undefined;
  has(key: K): boolean;
}

export class LayeredMap<K, V> implements Lookup<K, V> {
  private readonly own = new Map<K, V | typeof GONE>();

  private constructor(
    private readonly below: LayeredMap<K, V> | ReadonlyMap<K, V> | null,
    private readonly depth: number,
  ) {}

  /** A first layer over a plain map, which is read, never copied or changed. */
  static over<K, V>(map: ReadonlyMap<K, V>): LayeredMap<K, V> {
    return new LayeredMap(map, 1);
  }

  /** A new layer over this one (this one stays as it is: an earlier version may still read it). */
  layer(): LayeredMap<K, V> {
    if (this.depth < MAX_DEPTH) return new LayeredMap(this, this.depth + 1);
    const chain: LayeredMap<K, V>[] = [];
    let bottom: ReadonlyMap<K, V> | null = null;
    for (let m: LayeredMap<K, V> | ReadonlyMap<K, V> | null = this; m; ) {
      if (m instanceof LayeredMap) {
        chain.push(m);
        m = m.below;
      } else {
        bottom = m;
        m = null;
      }
    }
    const base = bottom ?? new Map<K, V>();
    let changed = 0;
    for (const m of chain) changed += m.own.size;
    // A few changes over a large map: the layers merge into one over the same bottom, which is
    // copied only once they are a fair share of it (copying is amortised over that many changes).
    if (changed * MERGE_SHARE < base.size) {
      const merged = new LayeredMap<K, V>(base, 1);
      for (let i = chain.length - 1; i >= 0; i--) for (const [k, v] of chain[i]!.own) merged.own.set(k, v);
      return new LayeredMap(merged, 2);
    }
    const flat = new Map<K, V>(base);
    for (let i = chain.length - 1; i >= 0; i--) {
      for (const [k, v] of chain[i]!.own) {
        if (v === GONE) flat.delete(k);
        else flat.set(k, v);
      }
    }
    return new LayeredMap(flat, 1);
  }

  get(key: K): V | undefined {
    for (let m: LayeredMap<K, V> | ReadonlyMap<K, V> | null = this; m; ) {
      if (!(m instanceof LayeredMap)) return m.get(key);
      const v = m.own.get(key);
      if (v === GONE) return undefined;
      if (v !== undefined) return v;
      m = m.below;
    }
    return undefined;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V): this {
    this.own.set(key, value);
    return this;
  }

  delete(key: K): void {
    this.own.set(key, GONE);
  }
}

/** A layer over any lookup: a layered map's next layer, or a first layer over a plain map. */
export function layerOver<K, V>(m: Lookup<K, V>): LayeredMap<K, V> {
  if (m instanceof LayeredMap) return m.layer();
  if (m instanceof Map) return LayeredMap.over(m);
  throw new Error('layerOver: neither a Map nor a LayeredMap');
}
