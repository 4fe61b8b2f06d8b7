// What a node agent's poll reads, kept in memory: a cluster's latest version for a moment, and
// each (version, node)'s manifest — which tables and sets it names, and the hash its ETag is
// made of. Hundreds of agents polling every second then cost no store read when nothing
// changed (a 304 from memory); concurrent polls of one cluster share one read of the pointer.
//
// How fresh: a write through this process (publish, rollback, delete) forgets the cluster at
// once; a write by another process (another server, a Lambda) is seen within `ttlMs`. A
// manifest is content-addressed under its version and snapshot hash, so it never changes while
// the version it was read under is the same version; entries read for an explicit `version=`
// are re-read after `ttlMs`, since a version deleted elsewhere may be published again with other
// content.
import type { NodeTables, SnapshotStore, VersionSummary } from '../infra/store/types.js';

interface Timed<T> {
  readonly value: Promise<T>;
  readonly at: number;
}

interface NodeEntry {
  readonly tables: Promise<NodeTables | null>;
  /** The snapshot hash of the version when it was read as latest; null: read for an explicit version. */
  readonly snapshotHash: string | null;
  readonly at: number;
}

export interface PollIndexOptions {
  /** How long another process's writes may go unseen (default 1,000 ms). */
  readonly ttlMs?: number;
  /** Node entries kept (default 100,000); all are dropped at once past it. */
  readonly maxNodes?: number;
  readonly now?: () => number;
}

export class PollIndex {
  private readonly latests = new Map<string, Timed<VersionSummary | null>>();
  /** Per cluster, by version and node. */
  private readonly nodes = new Map<string, Map<string, NodeEntry>>();
  private nodeCount = 0;
  private readonly ttlMs: number;
  private readonly maxNodes: number;
  private readonly now: () => number;

  constructor(
    private readonly store: SnapshotStore,
    o: PollIndexOptions = {},
  ) {
    this.ttlMs = o.ttlMs ?? 1000;
    this.maxNodes = o.maxNodes ?? 100_000;
    this.now = o.now ?? (() => performance.now());
  }

  /** The cluster's latest version, read at most once per `ttlMs` however many poll. */
  latest(cluster: string): Promise<VersionSummary | null> {
    const hit = this.latests.get(cluster);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.value;
    const value = this.store.latest(cluster);
    this.latests.set(cluster, { value, at: this.now() });
    // A failed read is not kept: the next poll asks the store again.
    value.catch(() => this.latests.get(cluster)?.value === value && this.latests.delete(cluster));
    return value;
  }

  /** A node's manifest in `version`; `latest` is the summary the version came from, when it did. */
  nodeTables(cluster: string, version: string, node: string, latest: VersionSummary | null): Promise<NodeTables | null> {
    const key = `${version}\n${node}`;
    const snapshotHash = latest?.version === version ? latest.snapshotHash : null;
    let entries = this.nodes.get(cluster);
    const hit = entries?.get(key);
    if (hit && (snapshotHash !== null ? hit.snapshotHash === snapshotHash : this.now() - hit.at < this.ttlMs)) return hit.tables;
    if (this.nodeCount >= this.maxNodes) {
      this.nodes.clear();
      [this.nodeCount, entries] = [0, undefined];
    }
    if (!entries) this.nodes.set(cluster, (entries = new Map()));
    const tables = this.store.getNodeTables(cluster, version, node);
    if (!entries.has(key)) this.nodeCount++;
    entries.set(key, { tables, snapshotHash, at: this.now() });
    const mine = entries;
    tables.catch(() => mine.get(key)?.tables === tables && mine.delete(key));
    return tables;
  }

  /** After a write to the cluster through this process. */
  forget(cluster: string): void {
    this.latests.delete(cluster);
    this.nodeCount -= this.nodes.get(cluster)?.size ?? 0;
    this.nodes.delete(cluster);
  }
}
