// Tables and set bodies already read, by content id: content-addressed items never change
// (their id is the hash of what they hold, checked when first read), so a node agent's next
// fetch, and every other node's fetch of the same shared sets, costs no store read. Bounded by
// the bytes of the stored form; the least recently used go first.
export class ContentCache {
  private readonly entries = new Map<string, { readonly value: unknown; readonly bytes: number }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get<T>(key: string): T | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    // Map order is the recency order.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit.value as T;
  }

  /** Frozen on the way in: a value shared by every later reader must not be changed by one. */
  set(key: string, value: unknown, bytes: number): void {
    if (bytes > this.maxBytes / 4) return;
    deepFreeze(value);
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    this.entries.set(key, { value, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= e.bytes;
    }
  }
}

function deepFreeze(value: unknown): void {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const x of Object.values(v)) stack.push(x);
  }
}
