// Representatives for bounded, snapshot-exact coverage questions. Enumerating every pod pair
// and all 65535 ports is out of the question, so each axis is cut into classes no rule in
// question can tell apart, and one member of each class stands for it:
//  - peer pods: namespace, labels, named ports and IP families are everything match.ts reads
//    about a pod besides its address (core/classes/features.ts); the address only matters
//    through which of the rules' CIDR peers (all of a rule's together) contain it
//    (core/classes/addresses.ts);
//  - nodes: labels and address class; external addresses: one address no pod or node
//    owns per address class and family;
//  - ports: per protocol, the segments cut at every range boundary of the rules and at every
//    number a named port of the rules resolves to on some pod;
//  - subjects: only what the question can see (PodDetail, core/classes/subjects.ts): labels when other policies
//    are consulted, the namespace when a peer is relative to it (Self, sameLabels…), named
//    ports when ingress rules name ports.
// Within the snapshot this is exact. Peer sets and name lookups are memoised per cluster:
// every lint asks many questions of the same snapshot.
import { addressSets, addressSlots, externalRepresentatives } from '../classes/addresses.js';
import { FULL_DETAIL, labelKey, type PodDetail } from '../classes/features.js';
import { subjectClasses } from '../classes/subjects.js';
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { subjectSelects } from '../evaluate/match.js';
import { portSegments } from '../net/intervals.js';
import { PROTOCOLS, type Policy, type Protocol, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { PodEndpoints } from './pod-endpoints.js';
import type { IpAddr } from '../net/ip.js';

const compareIps = (a: IpAddr, b: IpAddr): number => a.family - b.family || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

export interface PortProto {
  readonly port: number;
  readonly protocol: Protocol;
}

/** Representative peers, indexed so a rule only visits the endpoints its peers can match. */
export interface PeerSet {
  readonly all: readonly Endpoint[];
  /** Indexes into `all` of pod endpoints, by namespace index. */
  readonly byNamespace: ReadonlyMap<number, readonly number[]>;
  readonly pods: readonly number[];
  readonly nodes: readonly number[];
  /** Indexes into `all` of the endpoints with an address, ordered by (family, address): a rule's CIDR peers find theirs by binary search. */
  readonly byAddress: readonly number[];
  /** 0, 1, …, all.length − 1: what a rule that may match any endpoint visits. */
  readonly every: readonly number[];
}

export interface Universe {
  readonly subjects: readonly PodInfo[];
  /** How many pods each subject representative stands for. */
  readonly subjectCounts: readonly number[];
  readonly peers: PeerSet;
  readonly ports: readonly PortProto[];
}

interface ClusterMemo {
  readonly podEndpoints: PodEndpoints;
  readonly peerSets: Map<string, PeerSet>;
  readonly portsByName: Map<string, PortProto[]>;
  readonly subjects: WeakMap<Policy, PodInfo[]>;
}

const memos = new WeakMap<Cluster, ClusterMemo>();

function memo(cluster: Cluster): ClusterMemo {
  let m = memos.get(cluster);
  if (!m) memos.set(cluster, (m = { podEndpoints: new PodEndpoints(cluster.pods, subjectClasses(cluster.pods)), peerSets: new Map(), portsByName: new Map(), subjects: new WeakMap() }));
  return m;
}

/** The pods a policy's subject selects (host-network pods never), memoised; a NetworkPolicy only looks in its namespace. */
export function selectedPods(cluster: Cluster, policy: Policy): readonly PodInfo[] {
  const m = memo(cluster);
  let list = m.subjects.get(policy);
  if (!list) {
    const candidates = policy.subject.type === 'namespace' ? cluster.podsByNamespace.get(policy.subject.namespace) ?? [] : cluster.pods;
    m.subjects.set(policy, (list = candidates.filter((p) => subjectSelects(cluster, policy, p))));
  }
  return list;
}

/** Two lists sorted by `cmp`, merged. */
function mergeSorted(a: readonly number[], b: readonly number[], cmp: (x: number, y: number) => number): number[] {
  const out: number[] = [];
  let j = 0;
  for (const x of a) {
    while (j < b.length && cmp(b[j]!, x) < 0) out.push(b[j++]!);
    out.push(x);
  }
  while (j < b.length) out.push(b[j++]!);
  return out;
}

function peerSet(cluster: Cluster, rules: readonly Rule[]): PeerSet {
  const { key, sets } = addressSets(rules);
  const m = memo(cluster);
  const cached = m.peerSets.get(key);
  if (cached) return cached;
  const slots = addressSlots(sets);
  const { slot } = slots;
  const all: Endpoint[] = [];
  const byNamespace = new Map<number, number[]>();
  const pods: number[] = [];
  const nodes: number[] = [];
  // Host-network pods are not listed: a flow naming one is its node's address (resolve.ts).
  const endpointOfAddress = new Int32Array(m.podEndpoints.addressCount).fill(-1);
  m.podEndpoints.forEachDistinct(m.podEndpoints.addressClasses(slots), (endpoint, nsIdx, address) => {
    const list = byNamespace.get(nsIdx) ?? [];
    byNamespace.set(nsIdx, list);
    list.push(all.length);
    pods.push(all.length);
    if (address >= 0) endpointOfAddress[address] = all.length;
    all.push(endpoint);
  });
  const nodeSlots = new Set<string>();
  for (const node of cluster.nodes) {
    for (const ip of node.ips.length > 0 ? node.ips : [null]) {
      const at = `${labelKey(node.labels)}|${ip ? slot(ip) : '-'}`;
      if (nodeSlots.has(at)) continue;
      nodeSlots.add(at);
      nodes.push(all.length);
      all.push({ kind: 'node', node, ip });
    }
  }
  for (const { ip } of externalRepresentatives([cluster], slots)) all.push({ kind: 'external', ip });
  const every = all.map((_, i) => i);
  // Pods come first in `all`; the node and external endpoints after them are few, sorted here.
  const others = every.slice(pods.length).filter((i) => all[i]!.ip !== null).sort((a, b) => compareIps(all[a]!.ip!, all[b]!.ip!));
  const byAddress = mergeSorted(m.podEndpoints.inAddressOrder(endpointOfAddress), others, (a, b) => compareIps(all[a]!.ip!, all[b]!.ip!));
  const set = { all, byNamespace, pods, nodes, byAddress, every };
  m.peerSets.set(key, set);
  return set;
}

/** Every (port, protocol) some pod gives the name. */
function namedPortNumbers(cluster: Cluster, name: string): PortProto[] {
  const m = memo(cluster);
  let list = m.portsByName.get(name);
  if (!list) {
    const seen = new Set<string>();
    list = [];
    for (const pod of cluster.pods) {
      for (const np of pod.namedPorts) {
        if (np.name !== name || seen.has(`${np.protocol}/${np.port}`)) continue;
        seen.add(`${np.protocol}/${np.port}`);
        list.push({ port: np.port, protocol: np.protocol });
      }
    }
    m.portsByName.set(name, list);
  }
  return list;
}

function representativePorts(cluster: Cluster, rules: readonly Rule[]): PortProto[] {
  const cuts: Record<Protocol, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  for (const r of rules) {
    for (const m of r.ports ?? []) {
      if (m.type === 'range') cuts[m.protocol].push([m.lo, m.hi]);
      else for (const n of namedPortNumbers(cluster, m.name)) cuts[n.protocol].push([n.port, n.port]);
    }
  }
  return PROTOCOLS.flatMap((protocol) => portSegments(cuts[protocol]).map(([lo]) => ({ port: lo, protocol })));
}

/** The universe in which `rules` are compared, for the given subject pods seen at `detail`. */
export function buildUniverse(cluster: Cluster, subjectPods: Iterable<PodInfo>, rules: readonly Rule[], detail: PodDetail = FULL_DETAIL): Universe {
  const classes = subjectClasses(subjectPods, detail);
  return { subjects: classes.map((c) => c[0]!), subjectCounts: classes.map((c) => c.length), peers: peerSet(cluster, rules), ports: representativePorts(cluster, rules) };
}
