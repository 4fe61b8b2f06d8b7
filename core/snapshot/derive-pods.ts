// A version's cluster objects from the previous version's when pods were added, deleted or
// replaced (a rolling update, a scale, a pod rescheduled under a new name), without building
// them again. Pods keep their parsed facts; those whose position in `pods` moved (between the
// first change and the last, or to the end when more came than went) get new PodInfo objects
// with their new idx, and the indexes holding PodInfo objects point at those. It must equal
// buildClusterObjects over the same objects (property-tested), so it applies only where
// nothing else can move: no warning buildClusterObjects gives can appear, go or change
// (finished, host-network and address-sharing pods, pods on nodes the snapshot lacks,
// namespaces without a Namespace object appearing or going), and no workload object gains its
// first running pod or loses its last (without one, the workload is an endpoint itself).
// Anything else: null, and the caller builds afresh.
import type { Pod } from '../../schemas/k8s/core.js';
import { layerOver } from '../layered-map.js';
import type { ClusterWarning } from '../warnings.js';
import { byText, joinRuns } from '../sorted.js';
import type { Owners } from './owners.js';
import { ipKey, isEndpoint, onMissingNode, ownerPod, podEndpoint, podInfo, type ClusterObjects, type EndpointFacts, type PodInfo } from './cluster.js';

/** Pods a change took away and brought. */
export interface PodChanges {
  /** Keys ("namespace/name") of the previous version's pods that go: deleted, or replaced by one in `added`. */
  readonly removed: readonly string[];
  /** Pod objects that come: under new keys, or replacing one in `removed` (one per key). */
  readonly added: readonly Pod[];
}

/** `warnings`: what buildClusterObjects said of the base (a cluster's own list holds more); `owners`: the base's workloads. */
export function derivePods(base: ClusterObjects, warnings: readonly ClusterWarning[], owners: Owners, change: PodChanges): ClusterObjects | null {
  const gone = new Map<string, PodInfo>();
  for (const key of change.removed) {
    const old = base.podByKey.get(key);
    // Absent: a finished pod (counted in a warning). Host-network pods and pods on missing nodes are named in one.
    if (!old || gone.has(key) || old.hostNetwork || onMissingNode(base, old.nodeName)) return null;
    // So is every address it shares.
    for (const ip of old.ips) if (base.sharedAddresses.has(ipKey(ip)) || ownerPod(base.ipOwners.get(ipKey(ip))) !== old) return null;
    gone.set(key, old);
  }
  const come: EndpointFacts[] = [];
  for (const p of change.added) {
    if (!isEndpoint(p) || p.spec.hostNetwork) return null;
    const f = podEndpoint(p, owners);
    // A namespace with neither a Namespace object nor pods yet would be assumed, with a warning.
    if (!base.nsByName.has(f.namespace) || onMissingNode(base, f.nodeName)) return null;
    come.push(f);
  }
  come.sort((a, b) => byText(a.key, b.key));
  if (!sameWorkloadEndpoints(base, owners, gone, come)) return null;

  // The pods in key order: the base's runs between the places where a pod goes (its index) or
  // comes (where binary search puts its key), copied as slices (sorted.ts joinRuns); a run whose
  // index moved gets new PodInfos.
  const old = base.pods;
  const goneAt = [...gone.values()].map((p) => p.idx).sort((a, b) => a - b);
  const comeAt = come.map((f) => firstAtOrAfter(old, f.key));
  const parts: PodInfo[][] = [];
  const moved = new Map<PodInfo, PodInfo>();
  const added: PodInfo[] = [];
  let [next, count] = [0, 0];
  const copyTo = (end: number) => {
    const run = old.slice(next, end);
    if (count !== next) {
      for (let k = 0; k < run.length; k++) {
        const info = { ...run[k]!, idx: count + k };
        moved.set(run[k]!, info);
        run[k] = info;
      }
    }
    parts.push(run);
    count += end - next;
    next = end;
  };
  for (let [g, j] = [0, 0]; g < goneAt.length || j < come.length; ) {
    // A pod coming at a gone pod's index has the smaller key, or the same (it replaces that pod).
    if (j < come.length && (g === goneAt.length || comeAt[j]! <= goneAt[g]!)) {
      copyTo(comeAt[j]!);
      const there = old[comeAt[j]!];
      if (there?.key === come[j]!.key && gone.get(there.key) !== there) return null; // not taken away: not what the caller says
      const f = come[j++]!;
      const info = podInfo(f, count++, base.nsByName.get(f.namespace)!.idx);
      parts.push([info]);
      added.push(info);
    } else {
      copyTo(goneAt[g++]!);
      next++;
    }
  }
  copyTo(old.length);
  const pods = joinRuns(parts);

  const podByKey = layerOver(base.podByKey);
  for (const key of gone.keys()) podByKey.delete(key);
  for (const info of [...moved.values(), ...added]) podByKey.set(info.key, info);

  const ipOwners = layerOver(base.ipOwners);
  for (const p of gone.values()) for (const ip of p.ips) ipOwners.delete(ipKey(ip));
  for (const [p, info] of moved) {
    for (const ip of p.ips) if (ownerPod(base.ipOwners.get(ipKey(ip))) === p) ipOwners.set(ipKey(ip), { kind: 'pod', pod: info });
  }
  for (const info of added) {
    for (const ip of info.ips) {
      // Held by a node or another pod: shared, a warning.
      if (ipOwners.has(ipKey(ip))) return null;
      ipOwners.set(ipKey(ip), { kind: 'pod', pod: info });
    }
  }

  const namespaces = new Set<string>();
  for (const p of [...gone.values(), ...moved.values(), ...added]) namespaces.add(p.namespace);
  const podsByNamespace = byNamespace(base, pods, namespaces);
  if (!podsByNamespace) return null;
  return { ...base, pods, podByKey, podsByNamespace, podsByNode: byNode(base, gone, moved, added), ipOwners, warnings: [...warnings] };
}

/** First index whose key is at or after `key` (pods are in key order). */
function firstAtOrAfter(pods: readonly PodInfo[], key: string): number {
  let [lo, hi] = [0, pods.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (pods[mid]!.key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether every workload object the change touches keeps having running pods, or keeps having
 * none (cluster.ts endpointFacts: one without is an address-less endpoint of its own). Its own
 * endpoint's key is `namespace/kind/name`, never a pod's.
 */
function sameWorkloadEndpoints(base: ClusterObjects, owners: Owners, gone: ReadonlyMap<string, PodInfo>, come: readonly EndpointFacts[]): boolean {
  const touched = new Map<string, EndpointFacts>();
  for (const f of [...gone.values(), ...come]) if (f.workload && owners.named(f.namespace, f.workload)) touched.set(`${f.namespace}/${f.workload}`, f);
  for (const [key, { namespace, workload }] of touched) {
    const ofIt = (p: EndpointFacts) => p.workload === workload && p.namespace === namespace && p.key !== key;
    const list = base.podsByNamespace.get(namespace) ?? [];
    const after = come.some(ofIt) || list.some((p) => ofIt(p) && !gone.has(p.key));
    if (list.some(ofIt) !== after) return false;
  }
  return true;
}

/**
 * Pods by namespace: each namespace's pods are one run of `pods` (keys `namespace/name`), so a
 * touched namespace's list is a slice. Null when a namespace without a Namespace object loses
 * its last pod (its warning would go).
 */
function byNamespace(base: ClusterObjects, pods: readonly PodInfo[], touched: ReadonlySet<string>): Map<string, readonly PodInfo[]> | null {
  const out = new Map(base.podsByNamespace);
  let appeared = false;
  for (const ns of touched) {
    // `ns0` is the first key after every `ns/…` ('0' follows '/').
    const list = pods.slice(firstAtOrAfter(pods, `${ns}/`), firstAtOrAfter(pods, `${ns}0`));
    if (list.length > 0) {
      appeared ||= !out.has(ns);
      out.set(ns, list);
    } else if (base.nsByName.get(ns)?.implicit !== false) return null;
    else out.delete(ns);
  }
  // A fresh build lists them in the order of their pods.
  return appeared ? new Map([...out].sort(([a], [b]) => byText(`${a}/`, `${b}/`))) : out;
}

/** Pods by node, each list in key (idx) order: the touched nodes' lists made again. */
function byNode(base: ClusterObjects, gone: ReadonlyMap<string, PodInfo>, moved: ReadonlyMap<PodInfo, PodInfo>, added: readonly PodInfo[]): Map<string, readonly PodInfo[]> {
  // Per node, the pods that went and came, each in index order (as the node's list is).
  const [goneOn, cameOn] = [byNodeName([...gone.values()].sort((a, b) => a.idx - b.idx)), byNodeName(added)];
  const touched = new Set([...goneOn.keys(), ...cameOn.keys()]);
  for (const p of moved.keys()) if (p.nodeName !== null) touched.add(p.nodeName);
  const out = new Map(base.podsByNode);
  let reordered = false;
  for (const node of touched) {
    const before = base.podsByNode.get(node) ?? [];
    const [outs, ins] = [goneOn.get(node) ?? [], cameOn.get(node) ?? []];
    const list: PodInfo[] = [];
    let [o, i] = [0, 0];
    for (const p of before) {
      if (p === outs[o]) {
        o++;
        continue;
      }
      const now = moved.size === 0 ? p : (moved.get(p) ?? p);
      while (i < ins.length && ins[i]!.idx < now.idx) list.push(ins[i++]!);
      list.push(now);
    }
    while (i < ins.length) list.push(ins[i++]!);
    reordered ||= list[0]?.key !== before[0]?.key;
    if (list.length > 0) out.set(node, list);
    else out.delete(node);
  }
  // A fresh build lists nodes in the order of their first pods.
  return reordered ? new Map([...out].sort(([, a], [, b]) => a[0]!.idx - b[0]!.idx)) : out;
}

function byNodeName(pods: readonly PodInfo[]): Map<string, PodInfo[]> {
  const out = new Map<string, PodInfo[]>();
  for (const p of pods) if (p.nodeName !== null) (out.get(p.nodeName) ?? out.set(p.nodeName, []).get(p.nodeName)!).push(p);
  return out;
}
