// A version's cluster objects from the previous version's when only pods changed in place
// (relabelled, readdressed, moved, ports changed: the same keys before and after), without
// indexing every pod again. It must equal buildClusterObjects over the same objects (property-
// tested), so it applies only where nothing else can move: every pod keeps its index and
// namespace, its workload (the same controller and pod-template-hash, owners.ts), and no
// warning buildClusterObjects gives can appear, go or change (finished, host-network and
// address-sharing pods, pods on nodes the snapshot lacks). Anything else: null, and the caller
// builds afresh.
import type { Pod } from '../../schemas/k8s/core.js';
import { layerOver } from '../layered-map.js';
import type { ClusterWarning } from '../warnings.js';
import { ipKey, isEndpoint, onMissingNode, ownerPod, podFacts, podKey, type ClusterObjects, type PodInfo } from './cluster.js';

/** A pod object as it was and as it is now. */
export interface PodReplacement {
  readonly before: Pod;
  readonly after: Pod;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `warnings`: what buildClusterObjects said of the base (a cluster's own list holds more). */
export function replacePods(base: ClusterObjects, warnings: readonly ClusterWarning[], replacements: readonly PodReplacement[]): ClusterObjects | null {
  const pods = base.pods.slice();
  const podByKey = layerOver(base.podByKey);
  const ipOwners = layerOver(base.ipOwners);
  const byNamespace = new Map<string, PodInfo[]>();
  const released = new Set<string>();
  const next: PodInfo[] = [];
  for (const { before, after } of replacements) {
    const key = podKey(after);
    const old = base.podByKey.get(key);
    if (!old || podKey(before) !== key || podByKey.get(key) !== old) return null;
    if (!isEndpoint(before) || !isEndpoint(after) || before.spec.hostNetwork || after.spec.hostNetwork) return null;
    if (!sameJson(before.metadata.ownerReferences, after.metadata.ownerReferences) || before.metadata.labels['pod-template-hash'] !== after.metadata.labels['pod-template-hash']) return null;
    const nodeName = after.spec.nodeName ?? null;
    if (onMissingNode(base, old.nodeName) || onMissingNode(base, nodeName)) return null;
    // Every address it had was its own and no one else's (no sharing warning to keep or drop).
    for (const ip of old.ips) if (ownerPod(base.ipOwners.get(ipKey(ip))) !== old || base.sharedAddresses.has(ipKey(ip))) return null;
    for (const ip of old.ips) released.add(ipKey(ip));
    const info: PodInfo = { key, namespace: old.namespace, name: old.name, labels: after.metadata.labels, nodeName, hostNetwork: false, ...podFacts(after), workload: old.workload, idx: old.idx, nsIdx: old.nsIdx };
    pods[old.idx] = info;
    podByKey.set(key, info);
    next.push(info);
  }
  for (const k of released) ipOwners.delete(k);
  const byNode = new Map<string, PodInfo[]>();
  const listOn = (node: string) => {
    let list = byNode.get(node);
    if (!list) byNode.set(node, (list = [...(base.podsByNode.get(node) ?? [])]));
    return list;
  };
  for (const info of next) {
    const old = base.pods[info.idx]!;
    if (old.nodeName !== null) {
      const list = listOn(old.nodeName);
      list.splice(list.indexOf(old), 1);
    }
    if (info.nodeName !== null) {
      // In key (index) order, as a fresh build lists them.
      const list = listOn(info.nodeName);
      let at = list.length;
      while (at > 0 && list[at - 1]!.idx > info.idx) at--;
      list.splice(at, 0, info);
    }
  }
  const podsByNode = new Map<string, readonly PodInfo[]>(base.podsByNode);
  for (const [node, list] of byNode) {
    if (list.length > 0) podsByNode.set(node, list);
    else podsByNode.delete(node);
  }
  for (const info of next) {
    for (const ip of info.ips) {
      const k = ipKey(ip);
      // An address another pod or a node holds would be shared (a warning): not in place.
      if (ipOwners.has(k)) return null;
      ipOwners.set(k, { kind: 'pod', pod: info });
    }
    let list = byNamespace.get(info.namespace);
    if (!list) byNamespace.set(info.namespace, (list = base.podsByNamespace.get(info.namespace)!.slice()));
    list[list.findIndex((p) => p.key === info.key)] = info;
  }
  const podsByNamespace = new Map<string, readonly PodInfo[]>(base.podsByNamespace);
  for (const [ns, list] of byNamespace) podsByNamespace.set(ns, list);
  return { ...base, pods, podByKey, podsByNamespace, podsByNode, ipOwners, warnings: [...warnings] };
}
