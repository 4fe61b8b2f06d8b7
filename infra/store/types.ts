// The store port: what routes need to keep compiled snapshots per (cluster, resourceVersion)
// and serve node agents. Plain TypeScript, no AWS types: DynamoDB and memory both implement it.
import type { IrSet, RuleTable, SetFormChange, SetIr, SetPod } from '../../core/sets/index.js';
import type { HashedObjects, RunTexts } from '../../core/snapshot/index.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import type { AttrValue } from './backend.js';

/** Figures of the compile run kept in the header (the compiler's stats, plus timing when the route has it). */
export interface CompileFigures {
  readonly pods: number;
  readonly groups: number;
  readonly tables: number;
  readonly rules: number;
  readonly sets?: number;
  readonly members?: number;
  readonly durationMs?: number;
}

/** A blob's body in the form it is stored in (blob.ts storedForm): deflated or not, and what its head says of that. */
export interface StoredBody {
  readonly stored: Uint8Array;
  readonly encoding: Readonly<Record<string, AttrValue>>;
}

/** Object groups in their stored form by the run of objects they hold, as the snapshot hash wrote them (objects.ts). */
export interface ObjectGroupEncoder {
  /** For the snapshot hash (hashObjects): each run whose objects' text it wrote, encoded and deflated then. */
  readonly onTexts: RunTexts;
  readonly encoded: ReadonlyMap<readonly SnapshotObject[], StoredBody>;
}

/** What a route hands to publish: the set form (core/sets) and the header figures. */
export interface CompiledSnapshot {
  /**
   * Identity of the snapshot's content (e.g. SHA-256 of the canonical snapshot). Equal hash for
   * the same version → idempotent re-publish; a different hash → VersionConflictError.
   * Printable ASCII without '#', at most 256 characters.
   */
  readonly snapshotHash: string;
  /**
   * The same content's hash as an earlier netpolc computed it, asked for only when a stored
   * version's hash differs: a version stored then, sent again unchanged, is the same version.
   */
  readonly formerSnapshotHash?: () => string;
  /** The runs `snapshotHash` hashed (core/snapshot/hash.ts): the store keeps objects in the same runs. Cut here when absent. */
  readonly hashed?: HashedObjects;
  /** Object groups already in their stored form, by run (`hashed.runs`): from the store's objectGroupEncoder. */
  readonly encodedRuns?: ReadonlyMap<readonly SnapshotObject[], StoredBody>;
  /** Object counts by kind (Pod, Namespace, NetworkPolicy, ...). */
  readonly objects: Readonly<Record<string, number>>;
  readonly compile: CompileFigures;
  /** compileSets(cluster).ir: every set and table once, per node what its pods need. */
  readonly ir: SetIr;
  /**
   * The validated snapshot objects (parseSnapshot's output), kept so a stored version can
   * answer verdicts, matrices and questions without the client sending the snapshot again.
   */
  readonly items: readonly SnapshotObject[];
  /**
   * Objects of kinds policy evaluation does not read, by kind (parseSnapshot's `ignored`): kept
   * so a stored version warns about them as the snapshot did (other engines' policies above all).
   */
  readonly ignored?: Readonly<Record<string, number>>;
  /**
   * Set when `ir` was compiled from an earlier version's set form (a version from changes): what
   * is new in it. When this store published `change.from`, it writes and encodes only that.
   */
  readonly change?: SetFormChange;
}

/** The per (cluster, version) header, without the node list (what a listing shows). */
export interface VersionSummary {
  readonly cluster: string;
  readonly version: string;
  readonly snapshotHash: string;
  readonly nodeCount: number;
  /** Distinct tables across all nodes of this version. */
  readonly tableCount: number;
  /** Distinct sets across all nodes of this version (absent for versions stored before sets). */
  readonly setCount?: number;
  readonly objects: Readonly<Record<string, number>>;
  /** Objects of kinds not read, by kind, when the snapshot had any (CompiledSnapshot.ignored). */
  readonly ignored?: Readonly<Record<string, number>>;
  readonly compile: CompileFigures;
  /** ISO 8601, when the header was written (the version was stored). */
  readonly publishedAt: string;
  /** ISO 8601 once the version stopped being latest (its items then expire); null while it may be latest. */
  readonly expiresAt: string | null;
}

export interface VersionHeader extends VersionSummary {
  /** Sorted node names. */
  readonly nodes: readonly string[];
}

export interface PublishResult {
  /** 'created' for the one call that wrote the header; 'unchanged' when the same content was already there. */
  readonly status: 'created' | 'unchanged';
  readonly header: VersionHeader;
  /** Whether this version is the cluster's latest after the call. */
  readonly latest: boolean;
}

/** One node's manifest in one version: its pods' bindings and what of the set form it needs. */
export interface NodeTables {
  readonly cluster: string;
  readonly version: string;
  readonly node: string;
  /** The node's own addresses (node-local traffic). */
  readonly addresses: readonly string[];
  readonly pods: Readonly<Record<string, SetPod>>;
  /** Set id → content id of the set's stored body (definition and members) in this version. */
  readonly sets: Readonly<Record<string, string>>;
  /** Every table id the node's pods use, sorted. */
  readonly tableIds: readonly string[];
  /** The index of the packs holding the version's tables and set bodies, for getTables and getSets; absent: each is its own item. */
  readonly packIndex?: string;
  /**
   * Content hash of the manifest (bindings, the sets' content ids, table ids). Equal across
   * versions exactly when nothing changed for the node, members of its sets included: an ETag.
   */
  readonly hash: string;
}

export interface ListVersionsOptions {
  /** Page size, 1..100 (default 20). */
  readonly limit?: number;
  /** The cursor of the previous page. */
  readonly cursor?: string | null;
}

export interface VersionPage {
  /**
   * The latest first, then the versions the pointer moved to before, most recent move first
   * (publish order, never a comparison of versions: order.ts); then versions stored by an
   * earlier netpolc that kept no publish order. A page may hold fewer than `limit` versions
   * while a cursor follows (a page reads a bounded number of items).
   */
  readonly versions: readonly VersionSummary[];
  /** Pass back for the next page; null when there is none. */
  readonly cursor: string | null;
}

/**
 * Guards on moving the latest pointer (HTTP If-Match / If-None-Match on the cluster's latest
 * version, and `?order=numeric`), checked atomically with the move (order.ts unmetCondition).
 */
export interface LatestConditions {
  /** The latest must be one of these versions; '*': the cluster must have a version. */
  readonly ifMatch?: readonly string[] | '*';
  /** The latest must be none of these; '*': the cluster must have no version yet. */
  readonly ifNoneMatch?: readonly string[] | '*';
  /** This version and the latest must be canonical integers, this one greater (etcd revisions). */
  readonly numeric?: boolean;
}

export interface PublishOptions {
  readonly conditions?: LatestConditions;
  /**
   * The caller has just read this version's header and found none: the publish does not read it
   * again (a header another writer stores meanwhile is still found by the header's conditional write).
   */
  readonly headerAbsent?: boolean;
  /**
   * Answer once the pointer names the version: the move's settling (order item, the replaced
   * versions' expiry) is done after (after-answer.ts; SnapshotStore.settled waits for it). For a
   * process that outlives its answers (the Node server), not for one frozen after each (Lambda).
   */
  readonly settleLater?: boolean;
  /**
   * The stored version this one was compiled from (a version from changes). When the publish
   * cannot start from what this process published of it, it relies on the base's stored packs
   * for the tables and set bodies they hold (content.ts carriedContent) instead of packing all.
   */
  readonly base?: string;
}

export interface SetLatestResult {
  readonly cluster: string;
  readonly latest: string;
  /** The version it replaced (the same version when it already was latest; null for a cluster without one). */
  readonly previous: string | null;
  readonly moved: boolean;
}

export interface SnapshotStore {
  /**
   * Stores tables → manifests → header, then moves the latest pointer to the version (it is the
   * last published); visible only once complete. A version stored before: latest → unchanged;
   * passed by the pointer since → unchanged and not latest; stored but never made latest (an
   * interrupted publish, a refused condition) → the pointer moves to it now. Throws
   * LatestConditionError when `opts.conditions` do not hold at the move.
   */
  publish(cluster: string, version: string, snapshot: CompiledSnapshot, opts?: PublishOptions): Promise<PublishResult>;
  /**
   * For a whole snapshot about to be published: its object groups encoded as the snapshot hash
   * writes their text (hashObjects' onTexts), then handed to publish as `encodedRuns`. Null where
   * the store's deflate is not synchronous (the web streams'): publish encodes them itself.
   */
  objectGroupEncoder?(): ObjectGroupEncoder | null;
  /**
   * Makes a stored version latest on purpose (a rollback): its items must all read back
   * (VersionIncompleteError otherwise), their expiry is removed, the version it replaces expires.
   * null when the version is not stored (or expired).
   */
  setLatest(cluster: string, version: string): Promise<SetLatestResult | null>;
  /**
   * Expires a version that is not latest at once (VersionIsLatestError if it is): hidden from
   * reads and listings from now on, its items deleted by the TTL. false when not stored.
   */
  deleteVersion(cluster: string, version: string): Promise<boolean>;
  /** The header without its node list (one read); null when unknown or expired. */
  getSummary(cluster: string, version: string): Promise<VersionSummary | null>;
  /** null when unknown, incomplete or expired. */
  getHeader(cluster: string, version: string): Promise<VersionHeader | null>;
  /**
   * The version published last (the pointer moves by publish order, not by comparing
   * versions); null for an unknown cluster.
   * A summary, without the node list: agents poll through it, getHeader has the nodes.
   */
  latest(cluster: string): Promise<VersionSummary | null>;
  /** The version the latest pointer names (one read, its header not checked); null for an unknown cluster. */
  latestVersion(cluster: string): Promise<string | null>;
  listVersions(cluster: string, opts?: ListVersionsOptions): Promise<VersionPage>;
  /** null when the version is not visible or the node is not part of it. */
  getNodeTables(cluster: string, version: string, node: string): Promise<NodeTables | null>;
  /** Tables by id, from the version's packs (NodeTables.packIndex) where it has them; ids that are not stored are absent. */
  getTables(ids: readonly string[], packIndex?: string): Promise<ReadonlyMap<string, RuleTable>>;
  /**
   * Set bodies by content id (NodeTables.sets values), from the version's packs (NodeTables.packIndex)
   * where it has them; ids that are not stored are absent.
   */
  getSets(contentIds: readonly string[], packIndex?: string): Promise<ReadonlyMap<string, IrSet>>;
  /**
   * The version's snapshot objects as published (parsed and validated then, so trusted now);
   * null when the version is not visible, or was stored before objects were kept.
   */
  getSnapshotObjects(cluster: string, version: string): Promise<readonly SnapshotObject[] | null>;
  /**
   * Deletes content items (tables, set bodies, manifests, object groups) that no unexpired
   * version reads and that no publish stamped within the grace (collect.ts). Scans the whole
   * table: an operator's or a schedule's call, never a request's.
   */
  collect(opts?: CollectOptions): Promise<CollectResult>;
  /** Resolves once the work publishes left for after their answers (PublishOptions.settleLater) is done. */
  settled(): Promise<void>;
}

export interface CollectOptions {
  /**
   * Unreferenced content stamped (written or relied on by a publish) less than this long ago is
   * kept (seconds; default 3600, at least 3600: content-age.ts says why).
   */
  readonly graceSeconds?: number;
  /** Items read per scan page (default 1000). */
  readonly pageSize?: number;
}

/** What a collection found and did (collect.ts). */
export interface CollectResult {
  /** Versions whose items were marked (unexpired, or expired less than the grace ago). */
  readonly versions: number;
  /** Content items those versions read. */
  readonly marked: number;
  /** Content items found (their head items). */
  readonly scanned: number;
  readonly deleted: number;
  /** Body bytes of the deleted items, every chunk. */
  readonly bytesFreed: number;
  /** Scanned items kept because a version reads them. */
  readonly keptMarked: number;
  /** Scanned items no version reads, kept because they were stamped within the grace. */
  readonly keptYoung: number;
  /** Manifests kept only because a kept manifest names them as a link. */
  readonly keptLinked: number;
  /** Deletes that did not apply: a publish stamped the item meanwhile (or it was gone). */
  readonly raced: number;
  readonly graceSeconds: number;
  /** ISO 8601: unreferenced items stamped before this were deleted. */
  readonly cutoff: string;
}

/** Same version, different content: the route answers 409. */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly cluster: string,
    readonly version: string,
    readonly storedSnapshotHash: string,
    readonly offeredSnapshotHash: string,
  ) {
    super(`version ${version} of cluster ${cluster} is already stored with different content (snapshot ${storedSnapshotHash}, offered ${offeredSnapshotHash})`);
  }
}

/** The latest pointer did not satisfy the publish's conditions: the route answers 412 (409 for `numeric`). */
export class LatestConditionError extends Error {
  override readonly name = 'LatestConditionError';
  constructor(
    readonly cluster: string,
    readonly version: string,
    readonly unmet: 'if-match' | 'if-none-match' | 'numeric',
    /** The cluster's latest version when the condition was checked. */
    readonly latest: string | null,
    /** Whether this version is stored (not latest, expiring): the condition failed at the pointer move, after the write. */
    readonly stored: boolean,
  ) {
    super(`the latest version of cluster ${cluster} is ${latest ?? 'none'}: the ${unmet} condition for ${version} does not hold${stored ? `; ${version} is stored but not latest (it expires unless made latest)` : ''}`);
  }
}

/** A version that cannot be made latest because items it needs do not read back: the route answers 409. */
export class VersionIncompleteError extends Error {
  override readonly name = 'VersionIncompleteError';
  constructor(
    readonly cluster: string,
    readonly version: string,
    readonly missing: readonly string[],
  ) {
    super(`version ${version} of cluster ${cluster} cannot be made latest: ${missing.length} of its items do not read back (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''})`);
  }
}

/** The operation needs a version that is not latest: the route answers 409. */
export class VersionIsLatestError extends Error {
  override readonly name = 'VersionIsLatestError';
  constructor(
    readonly cluster: string,
    readonly version: string,
  ) {
    super(`version ${version} is the latest of cluster ${cluster}: roll back (PUT /v1/clusters/${cluster}/latest) or publish another version first`);
  }
}

/** A name the store cannot key (empty, too long, non-ASCII, contains '#'): the route answers 400/422. */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
  constructor(
    readonly field: 'cluster' | 'version' | 'node' | 'snapshotHash' | 'cursor' | 'limit' | 'table' | 'set' | 'packIndex' | 'grace',
    message: string,
  ) {
    super(message);
  }
}

/** Stored data that does not match its content address or shape: a bug or tampering, never the client's fault. */
export class StoreCorruptionError extends Error {
  override readonly name = 'StoreCorruptionError';
}
