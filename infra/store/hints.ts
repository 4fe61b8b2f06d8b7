// What this process learnt from its own reads and writes that saves a later publish a round trip.
// Both are guesses checked by the store itself, never trusted alone: a pointer guess feeds a
// compare-and-swap (a stale one fails the swap and is read again); a version's own item keys are
// used only with its header's snapshot hash as the write's condition (a version stored again by
// another writer since fails it, and the keys are then read from the store).
import type { Item } from './backend.js';

// Bounded: forgetting only costs a read.
const MAX_ENTRIES = 1024;

function bounded<V>(m: Map<string, V>, key: string, value: V): void {
  m.delete(key);
  if (m.size >= MAX_ENTRIES) m.delete(m.keys().next().value!);
  m.set(key, value);
}

/** The latest pointer of each cluster as last read or written here. */
export class PointerHints {
  private readonly byCluster = new Map<string, Item | null>();
  remember(cluster: string, pointer: Item | null): void {
    bounded(this.byCluster, cluster, pointer);
  }
  /** undefined when nothing is known (null: known to have no pointer). */
  guess(cluster: string): Item | null | undefined {
    return this.byCluster.get(cluster);
  }
}

/**
 * A version's own items (every chunk), as its publish wrote them, and its move number once it
 * was made latest. Kept whole (they are small: node shards, the node list, the object group
 * index): retiring the version writes them again with their expiry, in one batch.
 */
export interface OwnItems {
  readonly snapshotHash: string;
  readonly items: readonly Item[];
  seq?: number;
}

export class OwnItemsMemo {
  private readonly byVersion = new Map<string, OwnItems>();
  private static key = (cluster: string, version: string) => `${cluster}\n${version}`;
  remember(cluster: string, version: string, own: OwnItems): void {
    bounded(this.byVersion, OwnItemsMemo.key(cluster, version), own);
  }
  get(cluster: string, version: string): OwnItems | undefined {
    return this.byVersion.get(OwnItemsMemo.key(cluster, version));
  }
  forget(cluster: string, version: string): void {
    this.byVersion.delete(OwnItemsMemo.key(cluster, version));
  }
}
