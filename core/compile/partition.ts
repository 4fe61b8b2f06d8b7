// Splits a group's peer space into cells that every rule treats alike, and asks the verdict
// engine once per cell and port segment. Cells: identity classes of peer pods (which of the
// group's pod peers match them, which named ports they carry) and of nodes, crossed with the
// elementary intervals of every CIDR the rules mention; all other addresses are "external".
import type { Cluster } from '../cluster.js';
import type { Endpoint, Flow } from '../evaluate/endpoint.js';
import { evaluateSide } from '../evaluate/engine.js';
import { namespaceMatches } from '../evaluate/match.js';
import { elementaryIntervals, intervalIndex, portSegments, type Interval } from '../net/intervals.js';
import type { Family, IpAddr, IpRange } from '../net/ip.js';
import { PROTOCOLS, type Peer, type Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { Group } from './group.js';

export interface Cell {
  readonly key: string;
  readonly rep: Endpoint;
}

/** A single enumerated address (pod or node) and the cell it belongs to. */
export interface Point {
  readonly ip: IpAddr;
  readonly cell: number;
}

export interface Partition {
  readonly intervals: Record<Family, Interval[]>;
  /** cell index of the external addresses of each interval. */
  readonly externalCell: Record<Family, number[]>;
  readonly points: Point[];
  readonly cells: Cell[];
  readonly segments: Record<Protocol, [number, number][]>;
  /** verdict[cell][protocol][segment]. */
  readonly verdict: boolean[][][];
}

// Peer objects are shared by every group whose policies contain them (an ANP's peers appear in
// thousands of signatures): resolve each once, per subject namespace only when it is relative.
const podsOfCache = new WeakMap<Peer, Map<string, PodInfo[]>>();
const RELATIVE_NS = new Set(['self', 'notSelf', 'sameLabels', 'notSameLabels']);

/** Pods a `pods` peer selects. */
function podsOf(cluster: Cluster, peer: Extract<Peer, { type: 'pods' }>, subject: PodInfo): PodInfo[] {
  const key = RELATIVE_NS.has(peer.namespaces.type) ? subject.namespace : '';
  const byNs = podsOfCache.get(peer) ?? podsOfCache.set(peer, new Map()).get(peer)!;
  const hit = byNs.get(key);
  if (hit) return hit;
  const out = resolvePods(cluster, peer, subject);
  byNs.set(key, out);
  return out;
}

function resolvePods(cluster: Cluster, peer: Extract<Peer, { type: 'pods' }>, subject: PodInfo): PodInfo[] {
  const out: PodInfo[] = [];
  for (const ns of cluster.namespaces) {
    if (!namespaceMatches(cluster, peer.namespaces, ns, subject)) continue;
    for (const pod of cluster.podsByNamespace.get(ns.name) ?? []) {
      if (pod.hostNetwork || pod.ips.length === 0) continue;
      if (peer.pods === null || cluster.selectors.matchesPod(peer.pods, pod.idx)) out.push(pod);
    }
  }
  return out;
}

export function partition(cluster: Cluster, group: Group): Partition {
  const subject = group.representative;
  const peers = group.rules.flatMap((r) => r.peers);

  // Identity classes of pods and nodes.
  const podBits = new Map<number, string[]>();
  const nodeBits = new Map<number, string[]>();
  peers.forEach((peer, k) => {
    if (peer.type === 'pods') for (const pod of podsOf(cluster, peer, subject)) (podBits.get(pod.idx) ?? podBits.set(pod.idx, []).get(pod.idx)!).push(`p${k}`);
    if (peer.type === 'nodes') for (const node of cluster.nodes) if (cluster.selectors.matchesNode(peer.selector, node.idx)) (nodeBits.get(node.idx) ?? nodeBits.set(node.idx, []).get(node.idx)!).push(`n${k}`);
  });
  // Egress named ports resolve on each destination pod.
  const names = new Set(group.rules.flatMap((r) => (r.ports ?? []).flatMap((m) => (m.type === 'named' ? [m.name] : []))));
  const portNumbers: [number, number][] = [];
  const namedByPod = new Map<number, string>();
  if (names.size > 0) {
    const pods = group.dir === 'egress' ? cluster.pods.filter((p) => !p.hostNetwork && p.ips.length > 0) : [subject];
    for (const pod of pods) {
      const own = pod.namedPorts.filter((np) => names.has(np.name));
      for (const np of own) portNumbers.push([np.port, np.port]);
      if (group.dir === 'egress' && own.length > 0) namedByPod.set(pod.idx, own.map((np) => `${np.name}=${np.port}/${np.protocol}`).sort().join(','));
    }
  }

  // Address intervals from every CIDR the rules mention.
  const ranges: IpRange[] = peers.flatMap((p) => (p.type === 'cidrs' ? [...p.ranges, ...p.except] : []));
  const intervals = { 4: elementaryIntervals(4, ranges), 6: elementaryIntervals(6, ranges) } as Record<Family, Interval[]>;

  const cells: Cell[] = [];
  const cellIdx = new Map<string, number>();
  const cell = (key: string, rep: () => Endpoint): number => {
    let i = cellIdx.get(key);
    if (i === undefined) {
      i = cells.length;
      cells.push({ key, rep: rep() });
      cellIdx.set(key, i);
    }
    return i;
  };
  const externalCell = { 4: [], 6: [] } as Record<Family, number[]>;
  for (const fam of [4, 6] as Family[]) {
    intervals[fam].forEach((iv, i) => externalCell[fam].push(cell(`e${fam}:${i}`, () => ({ kind: 'external', ip: { family: fam, value: iv.lo } }))));
  }

  const points: Point[] = [];
  const podsWithClass = new Set([...podBits.keys(), ...namedByPod.keys()]);
  for (const idx of [...podsWithClass].sort((a, b) => a - b)) {
    const pod = cluster.pods[idx]!;
    // The representative stays: the table is shared, and for its group-mates it is a peer.
    const cls = `${(podBits.get(idx) ?? []).join(',')}|${namedByPod.get(idx) ?? ''}`;
    for (const ip of pod.ips) {
      const iv = intervalIndex(intervals[ip.family], ip.value);
      points.push({ ip, cell: cell(`p${ip.family}:${iv}:${cls}`, () => ({ kind: 'pod', pod, ip })) });
    }
  }
  for (const [idx, bits] of [...nodeBits.entries()].sort((a, b) => a[0] - b[0])) {
    const node = cluster.nodes[idx]!;
    for (const ip of node.ips) {
      const iv = intervalIndex(intervals[ip.family], ip.value);
      points.push({ ip, cell: cell(`n${ip.family}:${iv}:${bits.join(',')}`, () => ({ kind: 'node', node, ip })) });
    }
  }

  // Port segments per protocol, cut at every range and named-port number of that protocol.
  const segments = {} as Record<Protocol, [number, number][]>;
  for (const proto of PROTOCOLS) {
    const cuts: [number, number][] = [...portNumbers];
    for (const r of group.rules) for (const m of r.ports ?? []) if (m.type === 'range' && m.protocol === proto) cuts.push([m.lo, m.hi]);
    segments[proto] = portSegments(cuts);
  }

  const verdict = cells.map((c) =>
    PROTOCOLS.map((proto) =>
      segments[proto].map(([lo]) => {
        const flow: Flow = { from: c.rep, to: c.rep, port: lo, protocol: proto, family: c.rep.ip?.family ?? null };
        return evaluateSide(cluster, group.dir, subject, c.rep, flow).allowed;
      }),
    ),
  );
  return { intervals, externalCell, points, cells, segments, verdict };
}
