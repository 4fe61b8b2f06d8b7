// Who is in a set today: the addresses a peer selects, merged per family, or (egress named
// ports) the (address, protocol, port) elements of its destination pods. An address counts for
// the owner cluster.ipOwners names (node addresses first, then the first pod), the same reading
// as the verdict engine (evaluate/resolve.ts), so a set holds an address iff the peer matches
// the endpoint that address resolves to.
import type { Cluster } from '../cluster.js';
import { podsOf } from '../compile/classes.js';
import { normalise, subtract } from '../net/ranges.js';
import { cidrPeerHolds } from '../policy/rule-addresses.js';
import { formatIp, rangeToCidrs, type Family, type IpAddr, type IpRange } from '../net/ip.js';
import type { Peer, PortMatch } from '../policy/model.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';
import type { PortElement } from './ir.js';
import { sortedElements, type KeyedElement } from './member-edit.js';

export interface AddressMembers {
  readonly v4: readonly string[];
  readonly v6: readonly string[];
}

/** An address a pod owns, with its host prefix printed once (it recurs in every set the pod is in). */
export interface Owned {
  readonly ip: IpAddr;
  readonly text: string;
  readonly host: string;
  /** An IPv4 address as a number (exact below 2³²), to sort without comparing bigints; NaN for IPv6. */
  readonly v4: number;
}

/** An address as sets hold it: printed once, with its host prefix. */
export function ownedAddress(ip: IpAddr): Owned {
  const text = formatIp(ip.family, ip.value);
  return { ip, text, host: `${text}/${ip.family === 4 ? 32 : 128}`, v4: ip.family === 4 ? Number(ip.value) : NaN };
}

/**
 * Per compile: each pod's addresses that resolve to it (not to a node or an earlier pod sharing
 * them), looked up and printed once however many sets hold the pod.
 */
export class OwnedAddresses {
  // Filled with undefined up front: an array written at pod indexes in set order would be a
  // sparse one, which V8 keeps as a dictionary (a hash lookup per read, 51k reads at M).
  private readonly byPod: (readonly Owned[] | undefined)[];

  constructor(private readonly cluster: Cluster) {
    this.byPod = new Array<readonly Owned[] | undefined>(cluster.pods.length).fill(undefined);
  }

  of(pod: PodInfo): readonly Owned[] {
    let list = this.byPod[pod.idx];
    if (list === undefined) {
      const out: Owned[] = [];
      for (const ip of pod.ips) {
        const o = this.cluster.ipOwners.get(ipKey(ip));
        if (o?.kind !== 'pod' || o.pod !== pod) continue;
        out.push(ownedAddress(ip));
      }
      this.byPod[pod.idx] = list = out;
    }
    return list;
  }
}

/** Pod addresses as merged CIDR blocks: runs of consecutive addresses become ranges, single ones their host prefix. */
export function podCidrs(family: Family, owned: Owned[]): string[] {
  // IPv4 (nearly every pod address) compares as numbers: a bigint comparison per step of the
  // sort and a new bigint per adjacency test showed in profiles.
  if (family === 4) owned.sort((a, b) => a.v4 - b.v4);
  else owned.sort((a, b) => (a.ip.value < b.ip.value ? -1 : a.ip.value > b.ip.value ? 1 : 0));
  const next = family === 4 ? (j: number) => owned[j + 1]!.v4 <= owned[j]!.v4 + 1 : (j: number) => owned[j + 1]!.ip.value <= owned[j]!.ip.value + 1n;
  const out: string[] = [];
  for (let i = 0; i < owned.length; ) {
    let j = i;
    while (j + 1 < owned.length && next(j)) j++;
    if (j === i || owned[j]!.ip.value === owned[i]!.ip.value) out.push(owned[i]!.host);
    else for (const c of rangeToCidrs({ family, lo: owned[i]!.ip.value, hi: owned[j]!.ip.value })) out.push(c);
    i = j + 1;
  }
  return out;
}

/** Indexes of pods that can be peers (not host-network, with an address), once per cluster. */
const peerPods = new WeakMap<Cluster, Int32Array>();

function allPeerPods(cluster: Cluster): Int32Array {
  let all = peerPods.get(cluster);
  if (!all) {
    const out: number[] = [];
    for (const p of cluster.pods) if (!p.hostNetwork && p.ips.length > 0) out.push(p.idx);
    peerPods.set(cluster, (all = Int32Array.from(out)));
  }
  return all;
}

/**
 * Indexes of the pods (never host-network ones, never pods without addresses) whose owned
 * addresses a peer may hold. The array may be shared: callers do not write to it.
 */
export function candidatePods(cluster: Cluster, peer: Peer, subject: PodInfo): Int32Array {
  switch (peer.type) {
    case 'none':
    case 'nodes':
      // "It selects the nodeIPs as the peer type": nodes have no named ports and are not pods.
      return new Int32Array(0);
    case 'any':
    case 'cidrs':
      return allPeerPods(cluster);
    case 'pods':
      return podsOf(cluster, peer, subject);
  }
}

/** Merged ranges of both families as CIDR blocks per family, in address order. */
function cidrsOf(ranges: readonly IpRange[]): AddressMembers {
  const merged = normalise(ranges);
  return { v4: merged.filter((r) => r.family === 4).flatMap(rangeToCidrs), v6: merged.filter((r) => r.family === 6).flatMap(rangeToCidrs) };
}

/** The addresses a (non-any) peer matches; `candidates`: its candidatePods (the subject's, for relative namespace forms). */
export function addressMembers(cluster: Cluster, owned: OwnedAddresses, peer: Peer, candidates: Int32Array): AddressMembers {
  switch (peer.type) {
    case 'pods': {
      const byFamily: Record<Family, Owned[]> = { 4: [], 6: [] };
      for (const i of candidates) for (const o of owned.of(cluster.pods[i]!)) byFamily[o.ip.family].push(o);
      return { v4: podCidrs(4, byFamily[4]), v6: podCidrs(6, byFamily[6]) };
    }
    case 'cidrs':
      // "ipBlock … except: a slice of CIDRs that should not be included within an IPBlock".
      return cidrsOf(subtract(peer.ranges, peer.except));
    case 'nodes': {
      const ranges: IpRange[] = [];
      for (const node of cluster.nodes) {
        if (!cluster.selectors.matchesNode(peer.selector, node.idx)) continue;
        for (const ip of node.ips) {
          const o = cluster.ipOwners.get(ipKey(ip));
          if (o?.kind === 'node' && o.node === node) ranges.push({ family: ip.family, lo: ip.value, hi: ip.value });
        }
      }
      return cidrsOf(ranges);
    }
    case 'any':
    case 'none':
      return { v4: [], v6: [] };
  }
}

/** A pod's elements of a ports set: its owned addresses (those a CIDR peer holds) × its ports of that name. */
export function pushPodElements(out: KeyedElement[], pod: PodInfo, owned: readonly Owned[], peer: Peer, m: Pick<Extract<PortMatch, { type: 'named' }>, 'name' | 'protocol'>): void {
  const named = pod.namedPorts.filter((np) => np.name === m.name && (m.protocol === null || m.protocol === np.protocol));
  if (named.length === 0) return;
  for (const { ip, text } of owned) {
    // "ipBlock … except: a slice of CIDRs that should not be included within an IPBlock".
    if (peer.type === 'cidrs' && !cidrPeerHolds(peer, ip)) continue;
    for (const np of named) out.push({ family: ip.family, value: ip.value, element: [text, np.protocol, np.port] });
  }
}

/**
 * Egress named ports "resolve on the destination pod": the elements (address, protocol, port)
 * of every pod the peer matches that names the port (with the rule's protocol, when it has one).
 */
export function portElements(cluster: Cluster, owned: OwnedAddresses, peer: Peer, m: Extract<PortMatch, { type: 'named' }>, candidates: Int32Array): PortElement[] {
  const keyed: KeyedElement[] = [];
  for (const i of candidates) {
    const pod = cluster.pods[i]!;
    pushPodElements(keyed, pod, owned.of(pod), peer, m);
  }
  return sortedElements(keyed);
}
