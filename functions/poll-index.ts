// What a node agent's poll reads, kept in memory: a cluster's latest version for a moment, and
// each (version, node)'s manifest — which tables and sets it names, and the hash its ETag is
// made of. Hundreds of agents polling every second then cost no store read when nothing
// changed (a 304 from memory); concurrent polls of one cluster share one read of the pointer.
//
// How fresh: a write through this process (publish, rollback, delete) forgets the cluster at
// once; a write by another process (another server, a Lambda) is seen within `ttlMs`, or, when
// the pointer was read less than 2 × `ttlMs` ago, once the read that replaces it answers: until
// then polls are answered from the pointer read before (a store read under load, e.g. the
// embedded store while the serving thread writes a crowded node's answer, took 80–140 ms, and
// every poll of the cluster waited for it). A
// manifest is content-addressed under its version and snapshot hash, so it never changes while
// the version it was read under is the same version; entries read for an explicit `version=`
// are re-read after `ttlMs`, since a version deleted elsewhere may be published again with other
// content.
import type { NodeTables, SnapshotStore, VersionSummary } from '../infra/store/types.js';

interface LatestEntry {
  readonly value: Promise<VersionSummary | null>;
  readonly at: number;
  /** Whether `value` has answered: only an answered pointer is served while a newer one is read. */
  settled: boolean;
  /** Whether a read that will replace this entry is under way. */
  refreshing: boolean;
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
  private readonly latests = new Map<string, LatestEntry>();
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
    const age = hit ? this.now() - hit.at : Infinity;
    if (hit && age < this.ttlMs) return hit.value;
    if (hit?.settled && age < 2 * this.ttlMs) {
      if (!hit.refreshing) this.refresh(cluster, hit);
      return hit.value;
    }
    return this.read(cluster).value;
  }

  /** A read of the pointer that every poll of the cluster waits for. */
  private read(cluster: string): LatestEntry {
    const entry: LatestEntry = { value: this.store.latest(cluster), at: this.now(), settled: false, refreshing: false };
    this.latests.set(cluster, entry);
    // A failed read is not kept: the next poll asks the store again.
    entry.value.then(
      () => (entry.settled = true),
      () => this.latests.get(cluster) === entry && this.latests.delete(cluster),
    );
    return entry;
  }

  /**
   * A read that replaces `stale` when it answers, unless the cluster was forgotten meanwhile (a
   * write through this process: a pointer read before it must not be kept). A failed one leaves
   * `stale` in place for the next poll to try again, until 2 × ttlMs make polls wait for a read.
   */
  private refresh(cluster: string, stale: LatestEntry): void {
    stale.refreshing = true;
    const entry: LatestEntry = { value: this.store.latest(cluster), at: this.now(), settled: false, refreshing: false };
    entry.value.then(
      () => {
        entry.settled = true;
        if (this.latests.get(cluster) === stale) this.latests.set(cluster, entry);
      },
      () => (stale.refreshing = false),
    );
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
