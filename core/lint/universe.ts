// Representatives for bounded, snapshot-exact coverage questions. Enumerating every pod pair
// and all 65535 ports is out of the question, so each axis is cut into classes no rule in
// question can tell apart, and one member of each class stands for it:
//  - peer pods: namespace, labels, named ports and IP families are everything match.ts reads
//    about a pod besides its address; the address only matters through which elementary
//    interval of the rules' CIDRs (ranges and excepts) it falls in;
//  - nodes: labels and address interval; external addresses: one address no pod or node
//    owns per elementary interval and family;
//  - ports: per protocol, the segments cut at every range boundary of the rules and at every
//    number a named port of the rules resolves to on some pod;
//  - subjects: only what the question can see (SubjectDetail): labels when other policies
//    are consulted, the namespace when a peer is relative to it (Self, sameLabels…), named
//    ports when ingress rules name ports.
// Within the snapshot this is exact. Peer sets and name lookups are memoised per cluster:
// every lint asks many questions of the same snapshot.
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { subjectSelects } from '../evaluate/match.js';
import { elementaryIntervals, intervalIndex, portSegments, type Interval } from '../net/intervals.js';
import { type Family, type IpAddr, type IpRange } from '../net/ip.js';
import { isRelativePeer, PROTOCOLS, type Direction, type Policy, type Protocol, type Rule } from '../policy/model.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';

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
}

export interface Universe {
  readonly subjects: readonly PodInfo[];
  /** How many pods each subject representative stands for. */
  readonly subjectCounts: readonly number[];
  readonly peers: PeerSet;
  readonly ports: readonly PortProto[];
}

export interface SubjectDetail {
  readonly labels: boolean;
  readonly namespace: boolean;
  readonly namedPorts: boolean;
}

export const FULL_DETAIL: SubjectDetail = { labels: true, namespace: true, namedPorts: true };

/** What a comparison of `rules` alone can see of a subject (labels: only if the caller consults other policies). */
export function detailFor(rules: readonly Rule[], dir: Direction, labels: boolean): SubjectDetail {
  return {
    labels,
    namespace: rules.some((r) => r.peers.some(isRelativePeer)),
    namedPorts: dir === 'ingress' && rules.some((r) => (r.ports ?? []).some((m) => m.type === 'named')),
  };
}

export const labelKey = (labels: Readonly<Record<string, string>>): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
export const namedPortsKey = (p: PodInfo): string => p.namedPorts.map((n) => `${n.name}/${n.port}/${n.protocol}`).sort().join(',');
const familiesKey = (p: PodInfo): string => [...new Set(p.ips.map((i) => i.family))].sort().join(',');

const fullKeys = new WeakMap<PodInfo, string>();

/** Everything the matchers read about a pod except its address. */
function podClassKey(p: PodInfo): string {
  let k = fullKeys.get(p);
  if (k === undefined) fullKeys.set(p, (k = `${p.nsIdx}|${labelKey(p.labels)}|${namedPortsKey(p)}|${familiesKey(p)}`));
  return k;
}

/** Policy-subject pods (never host-network) grouped by what `detail` can see, in first-seen order. */
export function subjectClasses(pods: Iterable<PodInfo>, detail: SubjectDetail = FULL_DETAIL): PodInfo[][] {
  const full = detail.labels && detail.namespace && detail.namedPorts;
  const groups = new Map<string, PodInfo[]>();
  for (const p of pods) {
    if (p.hostNetwork) continue;
    const k = full
      ? podClassKey(p)
      : `${detail.namespace ? p.nsIdx : ''}|${detail.labels ? labelKey(p.labels) : ''}|${detail.namedPorts ? namedPortsKey(p) : ''}|${familiesKey(p)}`;
    const g = groups.get(k);
    if (g) g.push(p);
    else groups.set(k, [p]);
  }
  return [...groups.values()];
}

interface ClusterMemo {
  readonly podClasses: readonly PodInfo[][];
  readonly peerSets: Map<string, PeerSet>;
  readonly portsByName: Map<string, PortProto[]>;
  readonly subjects: WeakMap<Policy, PodInfo[]>;
}

const memos = new WeakMap<Cluster, ClusterMemo>();

function memo(cluster: Cluster): ClusterMemo {
  let m = memos.get(cluster);
  if (!m) memos.set(cluster, (m = { podClasses: subjectClasses(cluster.pods), peerSets: new Map(), portsByName: new Map(), subjects: new WeakMap() }));
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

/** Every range and except of the rules' CIDR peers: where an address starts to matter differently. */
export function cidrCuts(rules: readonly Rule[]): IpRange[] {
  const out: IpRange[] = [];
  for (const r of rules) for (const p of r.peers) if (p.type === 'cidrs') out.push(...p.ranges, ...p.except);
  return out;
}

/** An address of the interval that no pod or node of any of the clusters owns, so it stands for "outside the cluster". */
export function unownedAddress(clusters: readonly Cluster[], family: Family, iv: Interval): IpAddr | null {
  for (const value of [iv.lo, iv.hi, iv.lo + 1n, (iv.lo + iv.hi) / 2n]) {
    if (value < iv.lo || value > iv.hi) continue;
    const ip = { family, value };
    if (!clusters.some((c) => c.ipOwners.has(ipKey(ip)))) return ip;
  }
  return null;
}

function peerSet(cluster: Cluster, rules: readonly Rule[]): PeerSet {
  const cuts = cidrCuts(rules);
  const key = cuts.map((r) => `${r.family}:${r.lo}-${r.hi}`).sort().join(',');
  const m = memo(cluster);
  const cached = m.peerSets.get(key);
  if (cached) return cached;
  const intervals: Record<Family, Interval[]> = { 4: elementaryIntervals(4, cuts), 6: elementaryIntervals(6, cuts) };
  const all: Endpoint[] = [];
  const byNamespace = new Map<number, number[]>();
  const pods: number[] = [];
  const nodes: number[] = [];
  // Host-network pods are not listed: a flow naming one is its node's address (resolve.ts).
  for (const members of m.podClasses) {
    const seen = new Set<string>();
    for (const pod of members) {
      for (const ip of pod.ips.length > 0 ? pod.ips : [null]) {
        const slot = ip ? `${ip.family}:${intervalIndex(intervals[ip.family], ip.value)}` : '-';
        if (seen.has(slot)) continue;
        seen.add(slot);
        const list = byNamespace.get(pod.nsIdx) ?? [];
        byNamespace.set(pod.nsIdx, list);
        list.push(all.length);
        pods.push(all.length);
        all.push({ kind: 'pod', pod, ip });
      }
    }
  }
  const nodeSlots = new Set<string>();
  for (const node of cluster.nodes) {
    for (const ip of node.ips.length > 0 ? node.ips : [null]) {
      const slot = `${labelKey(node.labels)}|${ip ? `${ip.family}:${intervalIndex(intervals[ip.family], ip.value)}` : '-'}`;
      if (nodeSlots.has(slot)) continue;
      nodeSlots.add(slot);
      nodes.push(all.length);
      all.push({ kind: 'node', node, ip });
    }
  }
  for (const family of [4, 6] as const) {
    for (const iv of intervals[family]) {
      const ip = unownedAddress([cluster], family, iv);
      if (ip) all.push({ kind: 'external', ip });
    }
  }
  const set = { all, byNamespace, pods, nodes };
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
export function buildUniverse(cluster: Cluster, subjectPods: Iterable<PodInfo>, rules: readonly Rule[], detail: SubjectDetail = FULL_DETAIL): Universe {
  const classes = subjectClasses(subjectPods, detail);
  return { subjects: classes.map((c) => c[0]!), subjectCounts: classes.map((c) => c.length), peers: peerSet(cluster, rules), ports: representativePorts(cluster, rules) };
}
