// The one SnapshotStore implementation, over any ItemBackend (DynamoDB or memory).
import type { ItemBackend } from './backend.js';
import { deleteVersion, setLatest } from './admin.js';
import { collect } from './collect.js';
import { storeContext, type SnapshotStoreOptions } from './context.js';
import { listVersions } from './list.js';
import { publish } from './publish.js';
import { objectGroupEncoder } from './objects.js';
import { getHeader, getNodeTables, getSets, getSnapshotObjects, getSummary, getTables, latest, latestVersion } from './read.js';
import type { SnapshotStore } from './types.js';

export function createSnapshotStore(backend: ItemBackend, opts: SnapshotStoreOptions = {}): SnapshotStore {
  const ctx = storeContext(backend, opts);
  return {
    publish: (cluster, version, snapshot, o) => publish(ctx, cluster, version, snapshot, o),
    objectGroupEncoder: () => (ctx.compression.compressSync ? objectGroupEncoder(ctx.compression.compressSync) : null),
    setLatest: (cluster, version) => setLatest(ctx, cluster, version),
    deleteVersion: (cluster, version) => deleteVersion(ctx, cluster, version),
    getHeader: (cluster, version) => getHeader(ctx, cluster, version),
    getSummary: (cluster, version) => getSummary(ctx, cluster, version),
    latest: (cluster) => latest(ctx, cluster),
    latestVersion: (cluster) => latestVersion(ctx, cluster),
    listVersions: (cluster, o) => listVersions(ctx, cluster, o),
    getNodeTables: (cluster, version, node) => getNodeTables(ctx, cluster, version, node),
    getTables: (ids, packIndex) => getTables(ctx, ids, packIndex),
    getSets: (ids, packIndex) => getSets(ctx, ids, packIndex),
    getSnapshotObjects: (cluster, version) => getSnapshotObjects(ctx, cluster, version),
    collect: (o) => collect(ctx, o),
    settled: () => ctx.afterAnswer.done(),
  };
}
