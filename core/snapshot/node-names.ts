// The nodes a snapshot names: its Node objects and every nodeName a pod is scheduled on (a
// snapshot may hold pods without their Node). Compiled forms have an entry for each of them.
import type { ClusterObjects } from './cluster.js';

/** Every node name, sorted. */
export function clusterNodeNames(cluster: ClusterObjects): string[] {
  const names = new Set<string>(cluster.podsByNode.keys());
  for (const n of cluster.nodes) names.add(n.name);
  return [...names].sort();
}

/**
 * Of the names asked for (a compile's `nodes`), those the snapshot does not name, with their
 * index and why: a node asked for and left out of the answer would read as a node with nothing.
 */
export function unknownNodes(cluster: ClusterObjects, asked: readonly string[]): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  let known: string[] | undefined;
  asked.forEach((name, index) => {
    if (cluster.nodeByName.has(name) || cluster.podsByNode.has(name)) return;
    known ??= clusterNodeNames(cluster);
    const listed = known.length === 0 ? 'it names no node' : `it names ${known.length}: ${known.slice(0, 5).join(', ')}${known.length > 5 ? ', …' : ''}`;
    out.push({ index, message: `no node ${JSON.stringify(name)} in the snapshot (${listed})` });
  });
  return out;
}
