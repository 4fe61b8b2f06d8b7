// Every address a pod or node owns, per family, sorted once per cluster. The compiler works on
// indexes into these arrays ("points"), so the per-table work neither sorts addresses nor
// allocates per pod; bigint values are touched only where rules are emitted.
//
// Owners share one index space: pods are 0..pods-1, nodes follow (pods + node.idx). An address
// belongs to the owner cluster.ipOwners names (nodes first, then the first pod), as resolve.ts
// reads it, so a compiled table and the verdict engine agree on who an address is.
import type { Cluster } from '../cluster.js';
import type { Family } from '../net/ip.js';
import { ipKey } from '../snapshot/cluster.js';

export interface FamilyPoints {
  /** Sorted ascending, unique. */
  readonly values: readonly bigint[];
  /** Owner id of each point. */
  readonly owner: Int32Array;
  /** adjacent[i] = 1 when values[i + 1] === values[i] + 1. */
  readonly adjacent: Uint8Array;
}

export interface AddressIndex {
  readonly podCount: number;
  readonly ownerCount: number;
  readonly families: Readonly<Record<Family, FamilyPoints>>;
  /** Points of each owner per family (a node may have several addresses of one family). */
  readonly pointsOf: Readonly<Record<Family, readonly (readonly number[])[]>>;
}

const cache = new WeakMap<Cluster, AddressIndex>();

export function addressIndex(cluster: Cluster): AddressIndex {
  const hit = cache.get(cluster);
  if (hit) return hit;
  const podCount = cluster.pods.length;
  const ownerCount = podCount + cluster.nodes.length;
  const entries: Record<Family, { value: bigint; owner: number }[]> = { 4: [], 6: [] };
  const seen = new Set<string>();
  for (const node of cluster.nodes) {
    for (const ip of node.ips) {
      const k = ipKey(ip);
      const o = cluster.ipOwners.get(k);
      if (o?.kind === 'node' && o.node === node && !seen.has(k) && seen.add(k)) entries[ip.family].push({ value: ip.value, owner: podCount + node.idx });
    }
  }
  for (const pod of cluster.pods) {
    for (const ip of pod.ips) {
      const o = cluster.ipOwners.get(ipKey(ip));
      if (o?.kind === 'pod' && o.pod === pod) entries[ip.family].push({ value: ip.value, owner: pod.idx });
    }
  }
  const build = (family: Family): [FamilyPoints, number[][]] => {
    const list = entries[family].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
    const owner = Int32Array.from(list, (e) => e.owner);
    const adjacent = new Uint8Array(list.length);
    for (let i = 0; i + 1 < list.length; i++) if (list[i + 1]!.value === list[i]!.value + 1n) adjacent[i] = 1;
    const pointsOf: number[][] = Array.from({ length: ownerCount }, () => []);
    list.forEach((e, i) => pointsOf[e.owner]!.push(i));
    return [{ values: list.map((e) => e.value), owner, adjacent }, pointsOf];
  };
  const [f4, p4] = build(4);
  const [f6, p6] = build(6);
  const index: AddressIndex = { podCount, ownerCount, families: { 4: f4, 6: f6 }, pointsOf: { 4: p4, 6: p6 } };
  cache.set(cluster, index);
  return index;
}

/** First index of a sorted list whose value is ≥ v (addresses, or point indexes). */
export function lowerBound<T extends number | bigint>(values: ArrayLike<T>, v: T): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
