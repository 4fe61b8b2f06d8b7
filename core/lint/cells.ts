// Cells: one (subject, peer endpoint, port/protocol) of a Universe (universe.ts), the unit in
// which coverage questions are answered exactly for the snapshot. A rule's cells are found
// by visiting only the peer endpoints its peers can match (by namespace where a peer names
// namespaces), so narrow rules cost little in a large cluster. Work is bounded: past
// MAX_PAIRS subject×peer visits or MAX_CELLS matched cells a question is abandoned and the
// caller reports nothing (conservative: a lint may miss, it never guesses).
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { namespaceMatches, peerMatches, portMatches } from '../evaluate/match.js';
import { formatIp } from '../net/ip.js';
import type { Direction, Peer, Protocol, Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { Universe } from './universe.js';

export { FULL_DETAIL } from '../classes/features.js';
export { detailFor, subjectClasses } from '../classes/subjects.js';
export { buildUniverse, selectedPods, type Universe } from './universe.js';

export const MAX_PAIRS = 2_000_000;
export const MAX_CELLS = 1_000_000;

export interface Cell {
  readonly subject: PodInfo;
  readonly peer: Endpoint;
  readonly port: number;
  readonly protocol: Protocol;
}

/** Cell ids a rule matches, in visiting order. */
export type CellSet = ReadonlySet<number>;

/** A pod-to-pod (or pod-to-address) flow is evaluated in one family the subject has. */
function familyCompatible(subject: PodInfo, peer: Endpoint): boolean {
  return peer.ip === null || subject.ips.length === 0 || subject.ips.some((i) => i.family === peer.ip!.family);
}

/** The destination whose named ports a rule resolves: the subject for ingress, a (non-host-network) peer pod for egress (as engine.ts ruleMatches). */
function destinationPod(dir: Direction, subject: PodInfo, peer: Endpoint): PodInfo | null {
  if (dir === 'ingress') return subject;
  return peer.kind === 'pod' && !peer.pod.hostNetwork ? peer.pod : null;
}

/** Indexes of the peer endpoints `peer` can match for `subject`, a superset; sorted. */
function candidates(cluster: Cluster, u: Universe, peer: Peer, subject: PodInfo): readonly number[] | 'all' {
  switch (peer.type) {
    case 'none':
      return [];
    case 'nodes':
      return u.peers.nodes;
    case 'pods': {
      const m = peer.namespaces;
      if (m.type === 'name') return u.peers.byNamespace.get(cluster.nsByName.get(m.name)?.idx ?? -1) ?? [];
      const out: number[] = [];
      for (const ns of cluster.namespaces) if (namespaceMatches(cluster, m, ns, subject)) out.push(...(u.peers.byNamespace.get(ns.idx) ?? []));
      return out.sort((a, b) => a - b);
    }
    default:
      return 'all';
  }
}

function peerIndexes(cluster: Cluster, u: Universe, rule: Rule, subject: PodInfo): readonly number[] {
  const lists: (readonly number[])[] = [];
  for (const p of rule.peers) {
    const c = candidates(cluster, u, p, subject);
    if (c === 'all') return u.peers.all.map((_, i) => i);
    lists.push(c);
  }
  if (lists.length === 1) return lists[0]!;
  return [...new Set(lists.flat())].sort((a, b) => a - b);
}

export function cellAt(u: Universe, id: number): Cell {
  const Q = u.ports.length;
  const P = u.peers.all.length;
  const q = id % Q;
  const rest = (id - q) / Q;
  const e = rest % P;
  const port = u.ports[q]!;
  return { subject: u.subjects[(rest - e) / P]!, peer: u.peers.all[e]!, port: port.port, protocol: port.protocol };
}

/**
 * The cells `rule` matches for the subjects `selects` accepts (a policy's own subject test,
 * when the universe holds subjects of several policies); null when over budget.
 */
export function ruleCells(cluster: Cluster, u: Universe, dir: Direction, rule: Rule, selects: (s: PodInfo) => boolean = () => true): CellSet | null {
  const P = u.peers.all.length;
  const Q = u.ports.length;
  const out = new Set<number>();
  let pairs = 0;
  for (let si = 0; si < u.subjects.length; si++) {
    const subject = u.subjects[si]!;
    if (!selects(subject)) continue;
    for (const ei of peerIndexes(cluster, u, rule, subject)) {
      if (++pairs > MAX_PAIRS) return null;
      const peer = u.peers.all[ei]!;
      // engine.ts ruleMatches (module-private there): some peer matches, then some port on the destination.
      if (!familyCompatible(subject, peer) || !rule.peers.some((p) => peerMatches(cluster, p, peer, subject))) continue;
      const dest = destinationPod(dir, subject, peer);
      for (let qi = 0; qi < Q; qi++) {
        const q = u.ports[qi]!;
        if (rule.ports !== null && !rule.ports.some((m) => portMatches(m, q.port, q.protocol, dest))) continue;
        out.add((si * P + ei) * Q + qi);
        if (out.size > MAX_CELLS) return null;
      }
    }
  }
  return out;
}

export function isCellSubset(a: CellSet, b: CellSet): boolean {
  for (const id of a) if (!b.has(id)) return false;
  return true;
}

/** "peer → ns/pod on 80/TCP" (ingress) or "ns/pod → peer on 80/TCP" (egress), for messages. */
export function describeCell(dir: Direction, c: Cell): string {
  const peer = c.peer.kind === 'pod' ? c.peer.pod.key : c.peer.kind === 'node' ? `node ${c.peer.node?.name ?? '?'}` : `address ${formatIp(c.peer.ip.family, c.peer.ip.value)}`;
  return dir === 'ingress' ? `${peer} → ${c.subject.key} on ${c.port}/${c.protocol}` : `${c.subject.key} → ${peer} on ${c.port}/${c.protocol}`;
}
