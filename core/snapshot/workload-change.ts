// A version's cluster objects from the previous version's when workloads changed, with pods or
// without: a rollout as a live cluster's watcher sends it (a new ReplicaSet scaled up, the old
// one down, pods replaced, an old ReplicaSet past the revision history deleted), a Deployment's
// replicas. Workloads give the cluster two things (owners.ts, cluster.ts endpointFacts): each
// running pod's workload name, and an address-less endpoint for each workload with no running
// pod. Both are read again where a change can move them and must come out as the previous
// version's, with the pods that changed derived as derive-pods.ts derives them. It must equal
// buildClusterObjects over the same objects (property-tested); anything else (a pod's workload
// named otherwise, a workload's own endpoint appearing, going or changing, a Rollout that takes
// its template from another object) is null, and the caller builds afresh.
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { isWorkload } from '../../schemas/k8s/workload.js';
import type { ClusterWarning } from '../warnings.js';
import { isEndpoint, podKey, workloadEndpoint, workloadEndpointKey, type ClusterObjects, type EndpointFacts } from './cluster.js';
import { derivePods, type PodChanges } from './derive-pods.js';
import { indexOfKey } from './hash.js';
import { objectKey } from '../../schemas/object-key.js';
import { WorkloadReaders, type Owners } from './owners.js';

/** A change of workloads (and PodTemplates) and pods: the objects it takes out and puts in (a replaced one in both), and the pods among them. */
export interface WorkloadChanges {
  readonly removed: readonly SnapshotObject[];
  readonly added: readonly SnapshotObject[];
  readonly pods: PodChanges;
}

/** Where `key` is in, or would go into, objects in key order. */
function insertionPoint(objects: readonly SnapshotObject[], key: string): number {
  const at = indexOfKey(objects, key);
  return at >= 0 ? at : -1 - at;
}

/**
 * `base` as the objects `objects` give (in key order, as a compiled state keeps them), `before` its objects' workloads and `after` those of
 * `objects`; null where that takes more than reading some pods' workloads and some workloads'
 * own endpoints again. `warnings`: what buildClusterObjects said of the base.
 */
export function withWorkloads(base: ClusterObjects, warnings: readonly ClusterWarning[], before: Owners, after: Owners, objects: readonly SnapshotObject[], change: WorkloadChanges): ClusterObjects | null {
  // A Rollout's template by workloadRef makes other objects' changes its own (owners.ts templateOf): rare, built afresh.
  if (before.rolloutRefs > 0 || after.rolloutRefs > 0) return null;
  const changedWorkloads = [...change.removed, ...change.added].filter(isWorkload);
  // Pods that stay keep their workload (those the change brings are read by derivePods, under `after`).
  const readers = new WorkloadReaders(changedWorkloads);
  const gone = new Set(change.pods.removed);
  for (const ns of readers.namespaces()) {
    // A namespace's pods are one run of the objects in key order: from `Pod/ns/` up to `Pod/ns0` ('0' follows '/').
    const first = objectKey({ kind: 'Pod', namespace: ns, name: '' });
    const [from, to] = [insertionPoint(objects, first), insertionPoint(objects, `${first.slice(0, -1)}0`)];
    for (let i = from; i < to; i++) {
      const o = objects[i]!;
      if (o.kind !== 'Pod' || !readers.reaches(o) || !isEndpoint(o)) continue;
      const key = podKey(o);
      const info = gone.has(key) ? undefined : base.podByKey.get(key);
      if (info && (after.ownerOfPod(o) ?? undefined) !== info.workload) return null;
    }
  }
  const { removed, added } = change.pods;
  const derived = removed.length === 0 && added.length === 0 ? base : derivePods(base, warnings, after, change.pods);
  if (!derived) return null;
  // Workloads whose own endpoint may come, go or change: those changed. (derivePods refuses a
  // workload gaining its first running pod or losing its last; the other pods keep theirs.)
  for (const w of changedWorkloads) if (!sameOwnEndpoint(derived, after, workloadEndpointKey(w))) return null;
  return derived;
}

/** Whether the workload `namespace/kind/name` has its own endpoint in `objects` exactly when `owners` give it one, with the same facts (cluster.ts endpointFacts). */
function sameOwnEndpoint(objects: ClusterObjects, owners: Owners, key: string): boolean {
  const at = key.indexOf('/');
  const [namespace, name] = [key.slice(0, at), key.slice(at + 1)];
  const w = owners.named(namespace, name);
  // Represented by a running pod of it (a pod's name has no slash: never a workload's).
  const represented = (objects.podsByNamespace.get(namespace) ?? []).some((p) => p.workload === name && p.name !== name);
  const now = w && owners.standsAlone(w) && !represented ? workloadEndpoint(w, owners) : null;
  const held = objects.podByKey.get(key);
  const was = held && held.name === held.workload ? held : null;
  if (!now || !was) return !now && !was;
  return now.hostNetwork === was.hostNetwork && sameLabels(now.labels, was.labels) && JSON.stringify(now.namedPorts) === JSON.stringify(was.namedPorts) && sameFacts(now, was);
}

/** The rest of an endpoint's facts: a workload's own has no address and no node. */
const sameFacts = (a: EndpointFacts, b: EndpointFacts): boolean => a.key === b.key && a.namespace === b.namespace && a.ips.length === b.ips.length && a.nodeName === b.nodeName;

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}
