// The use cases behind the routes, built once per app from its dependencies and set on every
// request's context (functions/context.ts): routes read the request, call these, and shape the
// answer. Stateless questions (verdicts, matrix, compile, lint, previews) need only `sha256Hex`
// and `metrics`; stored clusters need the store, and answer 503 without one.
import type { Sha256Hex } from '../../core/compile/index.js';
import type { SnapshotStore } from '../../infra/store/types.js';
import type { AccessPolicy } from '../access/check.js';
import { CompiledVersions } from '../compiled-versions.js';
import type { Metrics } from '../ops/metrics.js';
import { PollIndex } from '../poll-index.js';
import { NodeTablesReader } from './node-tables.js';
import { Publisher } from './publish.js';
import { StoredClusters } from './stored-clusters.js';
import { StoredVersions } from './stored-versions.js';

export interface Services {
  /** Who may use stored clusters. */
  readonly access: AccessPolicy;
  readonly metrics: Metrics;
  /** SHA-256 for table ids; the portable one when undefined. */
  readonly sha256Hex: Sha256Hex | undefined;
  /** The store as /readyz reads it; undefined when none is configured. */
  readonly store: SnapshotStore | undefined;
  /** Stored versions as clusters to ask about (cached), and their flat tables. */
  readonly clusters: StoredClusters;
  /** Writes a version: a whole snapshot or changes on the latest. */
  readonly publisher: Publisher;
  /** Listing, headers, removal, rollback, collection. */
  readonly versions: StoredVersions;
  /** A node's tables as agents poll them. */
  readonly nodeTables: NodeTablesReader;
  /** Node polls' view of stored clusters (null without a store). */
  readonly polls: PollIndex | null;
}

export interface ServiceDeps {
  readonly access: AccessPolicy;
  readonly metrics: Metrics;
  readonly sha256Hex: Sha256Hex | undefined;
  readonly store: SnapshotStore | undefined;
  readonly warmStateObjects: number | undefined;
  readonly settleAfterAnswer: boolean;
}

export function createServices(deps: ServiceDeps): Services {
  const { store, sha256Hex, metrics } = deps;
  const polls = store ? new PollIndex(store) : null;
  const warm = new CompiledVersions(deps.warmStateObjects);
  const clusters = new StoredClusters(store, sha256Hex);
  return {
    access: deps.access,
    metrics,
    sha256Hex,
    store,
    clusters,
    publisher: new Publisher({ store, sha256Hex, metrics, warm, polls, settleAfterAnswer: deps.settleAfterAnswer }),
    versions: new StoredVersions(store, warm, polls),
    nodeTables: new NodeTablesReader(store, polls, clusters),
    polls,
  };
}

