// Cells: one (subject, peer endpoint, port/protocol) of a Universe (universe.ts), the unit in
// which coverage questions are answered exactly for the snapshot. A rule's cells are found
// by visiting only the peer endpoints its peers can match (by namespace where a peer names
// namespaces), so narrow rules cost little in a large cluster. Work is bounded (budget.ts):
// a question with more subject×peer pairs or matched cells than its limits, or asked once the
// run's steps are spent, is abandoned, and the caller counts it unchecked (a lint may miss,
// it never guesses).
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { namespacesPicked, portMatches, rulePeersMatch } from '../evaluate/match.js';
import { formatIp } from '../net/ip.js';
import type { Direction, Peer, Protocol, Rule } from '../policy/model.js';
import { ruleAddresses } from '../policy/rule-addresses.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { LintBudget } from './budget.js';
import type { Universe } from './universe.js';

export { FULL_DETAIL } from '../classes/features.js';
export { detailFor, subjectClasses } from '../classes/subjects.js';
export { buildUniverse, selectedPods, type Universe } from './universe.js';


export interface Cell {
  readonly subject: PodInfo;
  readonly peer: Endpoint;
  readonly port: number;
  readonly protocol: Protocol;
}

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
      const picked = namespacesPicked(cluster, peer.namespaces, subject);
      if (picked.length === 1) return u.peers.byNamespace.get(picked[0]!) ?? [];
      const out: number[] = [];
      for (const ns of picked) for (const e of u.peers.byNamespace.get(ns) ?? []) out.push(e);
      return out.sort((a, b) => a - b);
    }
    default:
      return 'all';
  }
}

/** Indexes of the endpoints whose address the rule's CIDR peers hold together (policy/rule-addresses.ts), sorted. */
function addressIndexes(u: Universe, rule: Rule): number[] {
  const { all, byAddress } = u.peers;
  const out: number[] = [];
  for (const r of ruleAddresses(rule).ranges) {
    // The first endpoint at or after the range's start, then every one up to its end.
    let lo = 0;
    let hi = byAddress.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const ip = all[byAddress[mid]!]!.ip!;
      if (ip.family < r.family || (ip.family === r.family && ip.value < r.lo)) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < byAddress.length; i++) {
      const ip = all[byAddress[i]!]!.ip!;
      if (ip.family !== r.family || ip.value > r.hi) break;
      out.push(byAddress[i]!);
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * The endpoints `rule` can match for `subject`, sorted: its selector peers' candidates and, for
 * its CIDR peers, the endpoints whose address they hold (found by binary search, not by testing
 * every endpoint). The question is charged for these pairs, the ones tested.
 */
function peerIndexes(cluster: Cluster, u: Universe, rule: Rule, subject: PodInfo, cidrs: () => readonly number[]): readonly number[] {
  const lists: (readonly number[])[] = [];
  let byAddress = false;
  for (const p of rule.peers) {
    if (p.type === 'cidrs') {
      byAddress = true;
      continue;
    }
    const c = candidates(cluster, u, p, subject);
    if (c === 'all') return u.peers.every;
    lists.push(c);
  }
  if (byAddress) lists.push(cidrs());
  return lists.length === 1 ? lists[0]! : [...new Set(lists.flat())].sort((a, b) => a - b);
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
 * The cells a rule matches, as (subject, peer) pairs each with the port representatives it
 * matches there as a bitset. A rule's ports match the same way for every pair with the same
 * destination (ranges for all of them, named ports per destination pod), so the bitsets are
 * shared and a pair costs one match test, not one per port; coverage questions are word
 * operations.
 */
export class CellSet {
  /** Pair index (subject × peers + peer) → the ports matched there; never empty, in visiting order. */
  readonly pairs = new Map<number, Uint32Array>();
  /** Cells matched: Σ ports over pairs. */
  size = 0;

  constructor(readonly ports: number) {}

  has(id: number): boolean {
    const q = id % this.ports;
    const bits = this.pairs.get((id - q) / this.ports);
    return bits !== undefined && hasBit(bits, q);
  }

  /** Cell ids in visiting order (subjects, then peers, then ports ascending). */
  *[Symbol.iterator](): IterableIterator<number> {
    for (const [pair, bits] of this.pairs) {
      for (let q = 0; q < this.ports; q++) if (hasBit(bits, q)) yield pair * this.ports + q;
    }
  }
}

const hasBit = (bits: Uint32Array, q: number): boolean => (bits[q >>> 5]! & (1 << (q & 31))) !== 0;

export function popcount(bits: Uint32Array): number {
  let n = 0;
  for (let w of bits) {
    w -= (w >>> 1) & 0x55555555;
    w = (w & 0x33333333) + ((w >>> 2) & 0x33333333);
    n += (((w + (w >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n;
}

interface PortBits {
  readonly bits: Uint32Array;
  readonly count: number;
}

const portIndexes = new WeakMap<Universe, ReadonlyMap<string, number>>();

/** Representative index by "protocol/port". */
function portIndex(u: Universe): ReadonlyMap<string, number> {
  let m = portIndexes.get(u);
  if (!m) portIndexes.set(u, (m = new Map(u.ports.map((q, i) => [`${q.protocol}/${q.port}`, i]))));
  return m;
}

/** The port representatives `rule`'s port ranges match (all of them when it names no port). */
function rangeBits(u: Universe, rule: Rule): Uint32Array {
  const bits = new Uint32Array((u.ports.length + 31) >>> 5);
  for (let qi = 0; qi < u.ports.length; qi++) {
    const q = u.ports[qi]!;
    if (rule.ports === null || rule.ports.some((m) => m.type === 'range' && portMatches(m, q.port, q.protocol, null))) bits[qi >>> 5]! |= 1 << (qi & 31);
  }
  return bits;
}

/**
 * The port representatives `rule` matches towards `dest`: its ranges, and the numbers its
 * named ports have on `dest` (portMatches). Every such number is a representative of its
 * own: universe.ts cuts the port axis at each number a rule's port name resolves to.
 */
function withNamedPorts(u: Universe, rule: Rule, ranges: Uint32Array, dest: PodInfo | null): PortBits {
  const bits = ranges.slice();
  const index = portIndex(u);
  for (const m of rule.ports ?? []) {
    if (m.type !== 'named' || !dest) continue;
    for (const np of dest.namedPorts) {
      if (np.name !== m.name || (m.protocol !== null && m.protocol !== np.protocol)) continue;
      const qi = index.get(`${np.protocol}/${np.port}`);
      if (qi !== undefined) bits[qi >>> 5]! |= 1 << (qi & 31);
    }
  }
  return { bits, count: popcount(bits) };
}

/**
 * Steps one pair costs `rule` (match.ts rulePeersMatch): one per selector peer, and one for all
 * its CIDR peers together, a binary search of their union (measured against a selector test).
 */
export function matchCost(rule: Rule): number {
  let cost = 0;
  for (const p of rule.peers) if (p.type !== 'cidrs') cost++;
  return cost + (ruleAddresses(rule).any ? 1 : 0);
}

/**
 * The cells `rule` matches for the subjects `selects` accepts (a policy's own subject test,
 * when the universe holds subjects of several policies); null when over budget.
 */
export function ruleCells(cluster: Cluster, u: Universe, dir: Direction, rule: Rule, budget: LintBudget, selects: (s: PodInfo) => boolean = () => true): CellSet | null {
  const P = u.peers.all.length;
  const out = new CellSet(u.ports.length);
  // Ports depend on the destination only through named ports; peers on the subject only
  // through its namespace (Self, sameLabels…: namespaceMatches).
  const byName = rule.ports !== null && rule.ports.some((m) => m.type === 'named');
  const ranges = rangeBits(u, rule);
  const shared: PortBits = { bits: ranges, count: popcount(ranges) };
  const ports = new Map<PodInfo | null, PortBits>();
  const portsTo = (dest: PodInfo | null): PortBits => {
    if (!byName) return shared;
    let p = ports.get(dest);
    if (!p) ports.set(dest, (p = withNamedPorts(u, rule, ranges, dest)));
    return p;
  };
  // The pairs to visit are known before any is matched: a question over budget is dropped
  // before it costs anything.
  const peersByNamespace = new Map<number, readonly number[]>();
  let inAddresses: readonly number[] | undefined;
  const cidrs = () => (inAddresses ??= addressIndexes(u, rule));
  const visits: [number, readonly number[]][] = [];
  let pairs = 0;
  for (let si = 0; si < u.subjects.length; si++) {
    const subject = u.subjects[si]!;
    if (!selects(subject)) continue;
    let peers = peersByNamespace.get(subject.nsIdx);
    if (!peers) peersByNamespace.set(subject.nsIdx, (peers = peerIndexes(cluster, u, rule, subject, cidrs)));
    if ((pairs += peers.length) > budget.limits.pairsPerQuestion) return null;
    visits.push([si, peers]);
  }
  if (!budget.take(pairs * matchCost(rule))) return null;
  for (const [si, peers] of visits) {
    const subject = u.subjects[si]!;
    for (const ei of peers) {
      const peer = u.peers.all[ei]!;
      // engine.ts ruleMatches (module-private there): some peer matches, then some port on the destination.
      if (!familyCompatible(subject, peer) || !rulePeersMatch(cluster, rule, peer, subject)) continue;
      const matched = portsTo(destinationPod(dir, subject, peer));
      if (matched.count === 0) continue;
      out.pairs.set(si * P + ei, matched.bits);
      out.size += matched.count;
      if (out.size > budget.limits.cellsPerQuestion) return null;
    }
  }
  return out;
}

/** Every cell of `a` is in `b`. */
export function isCellSubset(a: CellSet, b: CellSet): boolean {
  for (const [pair, bits] of a.pairs) {
    const other = b.pairs.get(pair);
    if (!other) return false;
    if (bits !== other) for (let w = 0; w < bits.length; w++) if ((bits[w]! & ~other[w]!) !== 0) return false;
  }
  return true;
}

/** Some cell of `a` is in `b`. */
export function cellsIntersect(a: CellSet, b: CellSet): boolean {
  for (const [pair, bits] of a.pairs) {
    const other = b.pairs.get(pair);
    if (other) for (let w = 0; w < bits.length; w++) if ((bits[w]! & other[w]!) !== 0) return true;
  }
  return false;
}

/** The union of cell sets, grown one set at a time (a first-match list's earlier rules). */
export class CellUnion {
  private readonly pairs = new Map<number, Uint32Array>();

  add(cells: CellSet): void {
    for (const [pair, bits] of cells.pairs) {
      const own = this.pairs.get(pair);
      if (!own) this.pairs.set(pair, bits.slice());
      else for (let w = 0; w < bits.length; w++) own[w]! |= bits[w]!;
    }
  }

  covers(cells: CellSet): boolean {
    for (const [pair, bits] of cells.pairs) {
      const own = this.pairs.get(pair);
      if (!own) return false;
      for (let w = 0; w < bits.length; w++) if ((bits[w]! & ~own[w]!) !== 0) return false;
    }
    return true;
  }
}

/** "peer → ns/pod on 80/TCP" (ingress) or "ns/pod → peer on 80/TCP" (egress), for messages. */
export function describeCell(dir: Direction, c: Cell): string {
  const peer = c.peer.kind === 'pod' ? c.peer.pod.key : c.peer.kind === 'node' ? `node ${c.peer.node?.name ?? '?'}` : `address ${formatIp(c.peer.ip.family, c.peer.ip.value)}`;
  return dir === 'ingress' ? `${peer} → ${c.subject.key} on ${c.port}/${c.protocol}` : `${c.subject.key} → ${peer} on ${c.port}/${c.protocol}`;
}
