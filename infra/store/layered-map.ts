// A map as a few entries over an earlier map: a version from changes differs from the one before
// in a handful of sets, and copying a map of 10⁵ entries per version would cost more than the
// change. Reads walk the layers (newest first); past MAX_DEPTH layers the map is flattened once,
// so a read never walks far and copying is amortised over that many versions.
const MAX_DEPTH = 16;

export class LayeredMap<K, V> {
  private readonly own = new Map<K, V>();

  private constructor(
    private readonly below: LayeredMap<K, V> | null,
    private readonly depth: number,
  ) {}

  static of<K, V>(entries: Iterable<readonly [K, V]>): LayeredMap<K, V> {
    const m = new LayeredMap<K, V>(null, 0);
    for (const [k, v] of entries) m.own.set(k, v);
    return m;
  }

  /** A new layer over this one (this one stays as it is: an earlier version may still read it). */
  layer(): LayeredMap<K, V> {
    if (this.depth < MAX_DEPTH) return new LayeredMap(this, this.depth + 1);
    const flat = new LayeredMap<K, V>(null, 0);
    const chain: LayeredMap<K, V>[] = [];
    for (let m: LayeredMap<K, V> | null = this; m; m = m.below) chain.push(m);
    for (let i = chain.length - 1; i >= 0; i--) for (const [k, v] of chain[i]!.own) flat.own.set(k, v);
    return new LayeredMap(flat, 1);
  }

  get(key: K): V | undefined {
    for (let m: LayeredMap<K, V> | null = this; m; m = m.below) {
      const v = m.own.get(key);
      if (v !== undefined) return v;
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
}
