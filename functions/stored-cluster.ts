// A stored version as a Cluster the evaluator reads: the version's snapshot objects from the
// store, built once and kept for the next questions about the same version (a chat bot asks
// several in a row; building an S-sized cluster again each time would dominate).
import { buildCluster, type Cluster } from '../core/cluster.js';
import { compile, type IrNode, type Sha256Hex } from '../core/compile/index.js';
import { StoreInputError, VersionConflictError, type SnapshotStore } from '../infra/store/types.js';
import { ApiError, invalid } from './errors.js';

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

export function storedClusters(store: SnapshotStore, cacheSize = 2): (cluster: string, version: string | undefined) => Promise<StoredCluster> {
  // Keyed by the content hash too: a version that expired and was stored again with other content is another cluster.
  const cache = new Map<string, Cluster>();
  return async (name, requested) => {
    const summary = requested === undefined ? await storeErrors(store.latest(name)) : await storeErrors(store.getHeader(name, requested));
    if (!summary) throw new ApiError('not_found', requested === undefined ? `no snapshot stored for cluster ${name}` : `version ${requested} of cluster ${name} is not stored (or expired)`);
    const key = `${name}\n${summary.version}\n${summary.snapshotHash}`;
    let cluster = cache.get(key);
    if (cluster) {
      cache.delete(key); // re-inserted below: Map order is the recency order
    } else {
      const objects = await storeErrors(store.getSnapshotObjects(name, summary.version));
      if (!objects) throw new ApiError('not_found', `version ${summary.version} of cluster ${name} was stored without its snapshot objects (published by an older netpolc); publish it again`);
      // The kinds it did not read, as published: the same warnings as for the snapshot sent along.
      cluster = buildCluster({ objects: [...objects], ignored: { ...(summary.ignored ?? {}) }, resourceVersion: summary.version, paths: new Map() });
    }
    cache.set(key, cluster);
    while (cache.size > cacheSize) cache.delete(cache.keys().next().value!);
    return { version: summary.version, cluster };
  };
}

/** One node's flat tables (ir-flat) of a stored version. */
export type FlatNodes = (cluster: string, version: string, node: string) => Promise<IrNode>;

/**
 * Flat tables are derived on read, for the node asked for, from the version's stored objects
 * (the store keeps the set form), and kept with the loaded cluster (storedClusters' small
 * cache): a version stored again with other content is another cluster object, never stale.
 */
export function storedFlatNodes(load: ReturnType<typeof storedClusters>, sha256Hex: Sha256Hex | undefined): FlatNodes {
  const byCluster = new WeakMap<Cluster, Map<string, IrNode>>();
  return async (name, version, node) => {
    const stored = await load(name, version);
    const nodes = byCluster.get(stored.cluster) ?? byCluster.set(stored.cluster, new Map()).get(stored.cluster)!;
    let flat = nodes.get(node);
    if (!flat) {
      flat = compile(stored.cluster, { nodes: [node], ...(sha256Hex ? { sha256Hex } : {}) }).ir.nodes[node];
      if (!flat) throw new ApiError('not_found', `node ${node} is not part of version ${stored.version} of cluster ${name}`);
      nodes.set(node, flat);
    }
    return flat;
  };
}
