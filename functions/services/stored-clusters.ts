// A stored version as a Cluster the evaluator reads: the version's snapshot objects from the
// store, built once and kept for the next questions about the same version (a chat bot asks
// several in a row; building an S-sized cluster again each time would dominate). Also the store
// itself as every stored-cluster use case reaches it: a 503 when the deployment has none.
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { compile, type IrNode, type Sha256Hex } from '../../core/compile/index.js';
import { LimitError } from '../../core/limits.js';
import { own } from '../../core/names-record.js';
import { StoreInputError, VersionConflictError, type SnapshotStore } from '../../infra/store/types.js';
import { ApiError, invalid } from '../errors.js';

export interface StoredCluster {
  readonly version: string;
  readonly cluster: Cluster;
}

/** Store errors a client caused, as API errors; the rest are ours. */
export function storeErrors<T>(p: Promise<T>): Promise<T> {
  return p.catch((e: unknown) => {
    if (e instanceof VersionConflictError) throw new ApiError('conflict', e.message);
    if (e instanceof StoreInputError) throw invalid([{ path: `$.${e.field}`, message: e.message }]);
    throw e;
  });
}

/** The deployment's store; a 503 without one. */
export function requireStore(store: SnapshotStore | undefined): SnapshotStore {
  if (!store) throw new ApiError('unavailable', 'no snapshot store is configured for this deployment');
  return store;
}

export class StoredClusters {
  // Keyed by the content hash too: a version that expired and was stored again with other content is another cluster.
  private readonly cache = new Map<string, Cluster>();
  /** Flat tables are derived on read, per node asked for, and kept with the loaded cluster: never stale. */
  /** Per stored cluster: each node's flat tables as derived, or the limit it is past. */
  private readonly flatByCluster = new WeakMap<Cluster, Map<string, IrNode | LimitError>>();

  constructor(
    private readonly store: SnapshotStore | undefined,
    private readonly sha256Hex: Sha256Hex | undefined,
    private readonly cacheSize = 2,
  ) {}

  /** A version (the latest when `requested` is undefined); 404 when it is not stored, 503 without a store. */
  async load(name: string, requested: string | undefined): Promise<StoredCluster> {
    const store = requireStore(this.store);
    const summary = requested === undefined ? await storeErrors(store.latest(name)) : await storeErrors(store.getHeader(name, requested));
    if (!summary) throw new ApiError('not_found', requested === undefined ? `no snapshot stored for cluster ${name}` : `version ${requested} of cluster ${name} is not stored (or expired)`);
    const key = `${name}\n${summary.version}\n${summary.snapshotHash}`;
    let cluster = this.cache.get(key);
    if (cluster) {
      this.cache.delete(key); // re-inserted below: Map order is the recency order
    } else {
      const objects = await storeErrors(store.getSnapshotObjects(name, summary.version));
      if (!objects) throw new ApiError('not_found', `version ${summary.version} of cluster ${name} was stored without its snapshot objects (published by an older netpolc); publish it again`);
      // The kinds it did not read, as published: the same warnings as for the snapshot sent along.
      cluster = buildCluster({ objects: [...objects], ignored: { ...(summary.ignored ?? {}) }, resourceVersion: summary.version, paths: new Map() });
    }
    this.cache.set(key, cluster);
    while (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return { version: summary.version, cluster };
  }

  /** One node's flat tables (ir-flat) of a stored version (the store keeps the set form). */
  async flatNode(name: string, version: string, node: string): Promise<IrNode> {
    const stored = await this.load(name, version);
    const nodes = this.flatByCluster.get(stored.cluster) ?? this.flatByCluster.set(stored.cluster, new Map()).get(stored.cluster)!;
    let flat = nodes.get(node);
    if (!flat) {
      try {
        flat = own(compile(stored.cluster, { nodes: [node], ...(this.sha256Hex ? { sha256Hex: this.sha256Hex } : {}) }).ir.nodes, node);
      } catch (e) {
        // A version's node past the flat limits stays past them: refused again without the work.
        if (e instanceof LimitError) nodes.set(node, e);
        throw e;
      }
      if (!flat) throw new ApiError('not_found', `node ${node} is not part of version ${stored.version} of cluster ${name}`);
      nodes.set(node, flat);
    }
    if (flat instanceof LimitError) throw flat;
    return flat;
  }
}
