// A version's cluster objects from the previous version's when only Node objects changed
// (added, deleted, relabelled, readdressed: what an autoscaler does), without indexing every pod
// again. Pods and namespaces do not read nodes; what does is made again from the new nodes and
// the same pods: the node list, address ownership (nodes own their addresses before any pod)
// and the warnings about shared addresses and pods on missing nodes, each in the place
// buildClusterObjects gives it. Equal to buildClusterObjects over the same objects (property-tested).
import type { Node } from '../../schemas/k8s/core.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import type { ClusterWarning } from '../warnings.js';
import { addressOwners, byName, missingNodeWarnings, nodeInfos, type ClusterObjects } from './cluster.js';

/** The warnings buildClusterObjects makes from nodes and addresses; theirs come after namespaces', before finished and host-network pods'. */
const ADDRESS_CODES: ReadonlySet<string> = new Set(['address-shared']);
const MISSING_NODE_CODES: ReadonlySet<string> = new Set(['pod-on-missing-node']);
const AFTER_ADDRESSES: ReadonlySet<string> = new Set(['finished-pods-left-out', 'host-network-pods']);

/** `warnings`: what buildClusterObjects said of the base; `objects`: every object of the new version. */
export function replaceNodes(base: ClusterObjects, warnings: readonly ClusterWarning[], objects: readonly SnapshotObject[]): ClusterObjects {
  const { nodes, nodeByName } = nodeInfos(byName(objects.filter((o): o is Node => o.kind === 'Node')));
  const owners = addressOwners(nodes, base.pods);
  const kept = warnings.filter((w) => !ADDRESS_CODES.has(w.code) && !MISSING_NODE_CODES.has(w.code));
  let at = kept.findIndex((w) => AFTER_ADDRESSES.has(w.code));
  if (at < 0) at = kept.length;
  const next = [...kept.slice(0, at), ...owners.warnings, ...kept.slice(at), ...missingNodeWarnings({ nodes, nodeByName }, base.pods)];
  return { ...base, nodes, nodeByName, ipOwners: owners.ipOwners, sharedAddresses: owners.sharedAddresses, warnings: next };
}
