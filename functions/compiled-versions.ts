// The warm server's compiled state: per cluster, the latest version it published, kept so the
// next version can be compiled from changes without reading and recompiling the base. Bounded by
// the objects it holds (WARM_STATE_OBJECTS), least recently used cluster evicted first. A cold
// server (restart, a new Lambda or Worker isolate) has none of it and loads the base from the store.
import type { CompiledState } from '../core/sets/index.js';

export interface WarmVersion {
  readonly version: string;
  /** The stored version's snapshot hash: the same version stored again with other content is another state. */
  readonly snapshotHash: string;
  readonly state: CompiledState;
}

/** Default bound: ten M-sized clusters (20k objects each) or one L-sized one. */
export const DEFAULT_WARM_STATE_OBJECTS = 200_000;

export class CompiledVersions {
  private readonly byCluster = new Map<string, WarmVersion>();
  private held = 0;

  constructor(private readonly maxObjects = DEFAULT_WARM_STATE_OBJECTS) {}

  /** The state of exactly this version, if it is the one kept. */
  get(cluster: string, version: string, snapshotHash: string): CompiledState | null {
    const warm = this.byCluster.get(cluster);
    if (!warm || warm.version !== version || warm.snapshotHash !== snapshotHash) return null;
    // Re-inserted: Map order is the recency order.
    this.byCluster.delete(cluster);
    this.byCluster.set(cluster, warm);
    return warm.state;
  }

  /** Keeps a cluster's latest version; a state larger than the whole bound is not kept. */
  set(cluster: string, warm: WarmVersion): void {
    this.drop(cluster);
    const size = warm.state.snapshot.objects.length;
    if (size > this.maxObjects) return;
    this.byCluster.set(cluster, warm);
    this.held += size;
    for (const oldest of this.byCluster.keys()) {
      if (this.held <= this.maxObjects) break;
      this.drop(oldest);
    }
  }

  drop(cluster: string): void {
    const warm = this.byCluster.get(cluster);
    if (!warm) return;
    this.byCluster.delete(cluster);
    this.held -= warm.state.snapshot.objects.length;
  }

  /** Objects held, for /metrics. */
  get objects(): number {
    return this.held;
  }
}
