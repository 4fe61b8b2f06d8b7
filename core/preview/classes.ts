// Equivalence classes of endpoints over two snapshots, so a preview evaluates one member per
// class instead of every pod pair. What match.ts and engine.ts read of an endpoint is all that
// can tell two of them apart; a class holds endpoints alike in *both* snapshots:
//  - pods (policy subjects: not host-network, with an address or a workload without pods,
//    present in both): namespace
//    name, labels and isolation annotation, pod labels, named ports, and for each address its
//    family and which of both snapshots' rules' CIDR peers contain it (the keys of
//    core/classes/features.ts and addresses.ts, which lint uses for one snapshot). The node only matters to
//    "traffic from the node where a Pod is running is always allowed", a relation between a
//    node and a pod, so it is kept per member rather than in the key, except for pods that
//    moved between snapshots;
//  - node addresses present in both: family, address class, and which `nodes` peers of each
//    snapshot select the node (core/classes/peer-features.ts nodeFeatures);
//  - external addresses: one address no pod or node owns, per family and address class (the
//    addresses inside the same rules' CIDR peers of both snapshots, however many intervals apart).
// Pairs inside one pod class are between two different members (a pod to itself is loopback,
// always allowed, never a change).
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { addressSets, addressSlots, externalRepresentatives } from '../classes/addresses.js';
import { labelKey, namespaceKey, podKey } from '../classes/features.js';
import { nodeFeatures, nodeSelected } from '../classes/peer-features.js';
import type { Interval } from '../net/intervals.js';
import { formatIp, rangeToCidrs, type Family, type IpAddr } from '../net/ip.js';
import type { Rule } from '../policy/model.js';
import { addressOf, ipKey, type NodeInfo, type PodInfo } from '../snapshot/cluster.js';

export type SnapshotSide = 'base' | 'head';
export const SIDES: readonly SnapshotSide[] = ['base', 'head'];
export type Both<T> = Readonly<Record<SnapshotSide, T>>;

export interface PodClass {
  readonly kind: 'pods';
  readonly id: number;
  /** Pod keys ("ns/name"), in key order. */
  readonly members: readonly string[];
  /** Where each member runs, in member order (node-local traffic is decided per pair). */
  readonly nodes: readonly Both<string | null>[];
  /** The representative in each snapshot. */
  readonly rep: Both<PodInfo>;
  /** A second member, for pairs inside the class; null when the class has one pod. */
  readonly other: Both<PodInfo> | null;
  /** The members' facts differ between the snapshots (relabelled, readdressed, moved…). */
  readonly changed: boolean;
  /** Families every member has in both snapshots. */
  readonly families: readonly Family[];
}

export interface NodeAddress {
  readonly node: string;
  readonly ip: string;
}

export interface NodeClass {
  readonly kind: 'nodes';
  readonly id: number;
  readonly family: Family;
  readonly members: readonly NodeAddress[];
  readonly rep: Both<{ readonly node: NodeInfo; readonly ip: IpAddr }>;
  /** Labels changed between the snapshots. */
  readonly changed: boolean;
}

export interface ExternalClass {
  readonly kind: 'external';
  readonly id: number;
  readonly family: Family;
  /** Addresses every rule of both snapshots contains alike (classes/addresses.ts), in order. */
  readonly intervals: readonly Interval[];
  /** The intervals as CIDRs, for people. */
  readonly cidrs: readonly string[];
  readonly ip: IpAddr;
}

export type EndpointClass = PodClass | NodeClass | ExternalClass;

export interface Classes {
  /** Indexed by id. */
  readonly all: readonly EndpointClass[];
  readonly pods: readonly PodClass[];
  readonly nodes: readonly NodeClass[];
  readonly externals: readonly ExternalClass[];
  /** Pod classes by the namespace index of their representative, per snapshot. */
  readonly podsByNamespace: Both<ReadonlyMap<number, readonly PodClass[]>>;
  /** Endpoint pods (not host-network, with an address) of one snapshot only. */
  readonly podsAdded: readonly string[];
  readonly podsRemoved: readonly string[];
  /** Endpoint pods in both whose facts changed. */
  readonly podsChanged: number;
  /** Endpoint pods of each namespace (head, else base), for "all pods of namespace x". */
  readonly podsPerNamespace: ReadonlyMap<string, number>;
}

const allRules = (c: Cluster): Rule[] => c.policies.all.flatMap((p) => [...(p.ingress ?? []), ...(p.egress ?? [])]);

/** A pod that sends and receives as itself: host-network pods use their node's address. */
// A workload without pods (an endpoint without address) is compared too: its flows exist in
// every family, and no CIDR matches it (addressOf finds no address).
const isEndpointPod = (p: PodInfo) => !p.hostNetwork && (p.ips.length > 0 || p.workload === p.name);
const hasFamily = (p: PodInfo, f: Family) => p.ips.length === 0 || addressOf(p.ips, f) !== null;

export function buildClasses(clusters: Both<Cluster>): Classes {
  const { base, head } = clusters;
  const slots = addressSlots(addressSets([...allRules(base), ...allRules(head)]).sets);
  const { slot } = slots;

  const nsKeys = new Map<Cluster, string[]>();
  const nsKey = (c: Cluster, nsIdx: number) => {
    let keys = nsKeys.get(c);
    if (!keys) nsKeys.set(c, (keys = c.namespaces.map(namespaceKey)));
    return keys[nsIdx]!;
  };
  const podFacts = (c: Cluster, p: PodInfo) => podKey(p, nsKey(c, p.nsIdx), p.ips.map(slot).sort().join(','));

  const all: EndpointClass[] = [];
  const pods: PodClass[] = [];
  const podsAdded: string[] = [];
  const podsRemoved: string[] = [];
  let podsChanged = 0;
  const podGroups = new Map<string, { keys: string[]; nodes: Both<string | null>[]; changed: boolean }>();
  for (const b of base.pods) {
    const h = head.podByKey.get(b.key);
    if (isEndpointPod(b) && !(h && isEndpointPod(h))) podsRemoved.push(b.key);
  }
  for (const h of head.pods) {
    if (!isEndpointPod(h)) continue;
    const b = base.podByKey.get(h.key);
    if (!b || !isEndpointPod(b)) {
      podsAdded.push(h.key);
      continue;
    }
    const [fb, fh] = [podFacts(base, b), podFacts(head, h)];
    const moved = b.nodeName !== h.nodeName;
    const changed = fb !== fh || moved;
    if (changed) podsChanged++;
    const key = `${fb}#${fh}#${moved ? `${b.nodeName}>${h.nodeName}` : ''}`;
    let g = podGroups.get(key);
    if (!g) podGroups.set(key, (g = { keys: [], nodes: [], changed }));
    g.keys.push(h.key);
    g.nodes.push({ base: b.nodeName, head: h.nodeName });
  }
  for (const g of podGroups.values()) {
    const rep = { base: base.podByKey.get(g.keys[0]!)!, head: head.podByKey.get(g.keys[0]!)! };
    const second = g.keys[1];
    const families = ([4, 6] as const).filter((f) => hasFamily(rep.base, f) && hasFamily(rep.head, f));
    const cls: PodClass = {
      kind: 'pods',
      id: all.length,
      members: g.keys,
      nodes: g.nodes,
      rep,
      other: second === undefined ? null : { base: base.podByKey.get(second)!, head: head.podByKey.get(second)! },
      changed: g.changed,
      families,
    };
    all.push(cls);
    pods.push(cls);
  }

  const nodes = nodeClasses(clusters, slot, all);
  const externals: ExternalClass[] = [];
  for (const { family, intervals, ip } of externalRepresentatives([base, head], slots)) {
    const cls: ExternalClass = { kind: 'external', id: all.length, family, intervals, cidrs: intervals.flatMap((iv) => rangeToCidrs({ family, lo: iv.lo, hi: iv.hi })), ip };
    all.push(cls);
    externals.push(cls);
  }

  const byNamespace = (side: SnapshotSide) => {
    const out = new Map<number, PodClass[]>();
    for (const c of pods) (out.get(c.rep[side].nsIdx) ?? out.set(c.rep[side].nsIdx, []).get(c.rep[side].nsIdx)!).push(c);
    return out;
  };
  const podsPerNamespace = new Map<string, number>();
  for (const c of pods) podsPerNamespace.set(c.rep.head.namespace, (podsPerNamespace.get(c.rep.head.namespace) ?? 0) + c.members.length);
  return { all, pods, nodes, externals, podsByNamespace: { base: byNamespace('base'), head: byNamespace('head') }, podsAdded, podsRemoved, podsChanged, podsPerNamespace };
}

/** Node addresses present in both snapshots, classed by family, address class and which `nodes` peers select the node. */
function nodeClasses(clusters: Both<Cluster>, slot: (ip: IpAddr) => string, all: EndpointClass[]): NodeClass[] {
  const features = { base: nodeFeatures(allRules(clusters.base)), head: nodeFeatures(allRules(clusters.head)) };
  const bits = (side: SnapshotSide, n: NodeInfo) => features[side].map((f) => (nodeSelected(clusters[side], f, n) ? 1 : 0)).join('');
  const groups = new Map<string, { members: NodeAddress[]; rep: NodeClass['rep']; changed: boolean; family: Family }>();
  for (const h of clusters.head.nodes) {
    const b = clusters.base.nodeByName.get(h.name);
    if (!b) continue;
    const changed = labelKey(b.labels) !== labelKey(h.labels);
    for (const ip of h.ips) {
      // Only addresses that are the node's in both (not shadowed by a pod, present in both).
      const owned = (c: Cluster) => {
        const o = c.ipOwners.get(ipKey(ip));
        return o?.kind === 'node' && o.node.name === h.name;
      };
      if (!owned(clusters.base) || !owned(clusters.head)) continue;
      const key = `${slot(ip)}|${bits('base', b)}|${bits('head', h)}|${changed}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { members: [], rep: { base: { node: b, ip }, head: { node: h, ip } }, changed, family: ip.family }));
      g.members.push({ node: h.name, ip: formatIp(ip.family, ip.value) });
    }
  }
  return [...groups.values()].map((g) => {
    const cls: NodeClass = { kind: 'nodes', id: all.length, family: g.family, members: g.members, rep: g.rep, changed: g.changed };
    all.push(cls);
    return cls;
  });
}

const FAMILY_LISTS: readonly (readonly Family[])[] = [[], [4], [6], [4, 6]];
const familyMask = (c: EndpointClass): number => (c.kind === 'pods' ? (c.families.includes(4) ? 1 : 0) | (c.families.includes(6) ? 2 : 0) : c.family === 4 ? 1 : 2);

/** Families in which a flow between two classes exists in both snapshots. */
export function sharedFamilies(a: EndpointClass, b: EndpointClass): readonly Family[] {
  return FAMILY_LISTS[familyMask(a) & familyMask(b)]!;
}

/** The class's endpoint in one snapshot and family; `second` picks the other member of a pod class. */
export function endpointOf(c: EndpointClass, side: SnapshotSide, family: Family, second = false): Endpoint {
  if (c.kind === 'pods') {
    const pod = second ? c.other![side] : c.rep[side];
    return { kind: 'pod', pod, ip: addressOf(pod.ips, family) };
  }
  if (c.kind === 'nodes') return { kind: 'node', node: c.rep[side].node, ip: c.rep[side].ip };
  return { kind: 'external', ip: c.ip };
}
