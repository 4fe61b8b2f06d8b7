// Side runs of one snapshot, memoised on exactly what decides them, so millions of class pairs
// cost a few array lookups each. A side (engine.ts evaluateSide) reads of its subject only the
// policies that select it — the compiler's group signature, which adds the namespace where
// peers are relative to it and the named ports ingress rules resolve on it — and of its peer
// only which of those policies' rule peers match it, its kind (named ports resolve on pods
// only) and, for egress, the named ports rules name. The policies that can select a subject of
// namespace N are N's NetworkPolicies and the cluster-scoped policies whose subject takes N's
// namespace, so a peer's identity for N is its match vector over their peers: computed once
// per (N, peer class), interned to a number; a side is keyed by (signature, identity).
import type { Cluster } from '../cluster.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { peerMatches } from '../evaluate/match.js';
import { allowedRanges, sideRuns, type SideRun } from '../evaluate/side-runs.js';
import type { Family } from '../net/ip.js';
import { isRelativePeer, PROTOCOLS, rulesFor, type Direction, type Peer, type Policy, type Protocol, type Rule } from '../policy/model.js';
import type { Group } from '../compile/group.js';
import type { SubjectGroups } from './candidates.js';
import { endpointOf, type Classes, type EndpointClass, type PodClass, type SnapshotSide } from './classes.js';

function peersOfRules(rules: Iterable<Rule>, keep: (p: Peer) => boolean = () => true): Peer[] {
  const out = new Set<Peer>();
  for (const rule of rules) for (const p of rule.peers) if (p.type !== 'any' && p.type !== 'none' && keep(p)) out.add(p);
  return [...out];
}
const rulesOf = (policies: readonly Policy[], dir: Direction) => policies.flatMap((p) => rulesFor(p, dir) ?? []);

export interface SideWork {
  /** Side evaluations (one per port segment). */
  evaluations: number;
  /** Side runs computed, and reused from the memo. */
  sides: number;
  sidesReused: number;
}

/** A side over every port of one protocol, and its allowed ports as an interned id (equal ids: equal ports). */
export interface SideEntry {
  readonly runs: SideRun[];
  readonly allowed: number;
}

const DIRS: readonly Direction[] = ['egress', 'ingress'];
const dirIdx = (d: Direction) => (d === 'egress' ? 0 : 1);
const famIdx = (f: Family) => (f === 4 ? 0 : 1);
/** Room for interned ids in one number key (signature × 2^24 + identity). */
const SPAN = 2 ** 24;

export class SnapshotSides {
  private readonly cluster: Cluster;
  /** [dir]: peers of cluster-scoped policies that do not depend on the subject, matched once per peer class. */
  private readonly absolute: readonly Peer[][];
  private readonly absoluteBits: Map<number, string>[][] = [[new Map(), new Map()], [new Map(), new Map()]];
  private readonly portNames: ReadonlySet<string>;
  /** [dir][namespace]: what a subject there can meet (indexes into `absolute`, and its other peers). */
  private readonly reach: Map<number, { absolute: number[]; other: Peer[] }>[] = [new Map(), new Map()];
  /** [dir][class] → signature id (0: not yet). */
  private readonly sigOfClass: Int32Array[];
  private readonly sigIds = new Map<string, number>();
  private readonly sigGroups: Group[] = [];
  /** [dir][family][namespace] → peer identity per peer class (0: not yet). */
  private readonly fine: Map<number, Int32Array>[][] = [[new Map(), new Map()], [new Map(), new Map()]];
  private readonly fineIds = new Map<string, number>();
  private lastIds: Int32Array | null = null;
  private lastIdsAt = -1;
  /** [dir][family][protocol] → entry by signature × SPAN + projection. */
  private readonly memo: Map<number, SideEntry>[][][] = DIRS.map(() => [0, 1].map(() => PROTOCOLS.map(() => new Map())));
  private readonly endpoints: Endpoint[][] = [[], []];
  /** [dir][family] → id of a side's allowed ports over all protocols, by key. */
  private readonly allowedAllMemo: Map<number, number>[][] = [[new Map(), new Map()], [new Map(), new Map()]];

  constructor(
    private readonly side: SnapshotSide,
    private readonly groups: SubjectGroups,
    private readonly classes: Classes,
    private readonly work: SideWork,
    /** Shared by both snapshots' instances, so allowed-port ids compare across them. */
    private readonly allowedIds: Map<string, number>,
  ) {
    this.cluster = groups.clusters[side];
    const scoped = [...this.cluster.policies.admin, ...this.cluster.policies.baseline];
    this.absolute = DIRS.map((d) => peersOfRules(rulesOf(scoped, d), (p) => !isRelativePeer(p)));
    this.portNames = new Set(rulesOf(this.cluster.policies.all, 'egress').flatMap((r) => (r.ports ?? []).flatMap((m) => (m.type === 'named' ? [m.name] : []))));
    this.sigOfClass = DIRS.map(() => new Int32Array(classes.all.length));
  }

  private intern(map: Map<string, number>, key: string): number {
    let id = map.get(key);
    if (id === undefined) map.set(key, (id = map.size + 1));
    return id;
  }

  /** A class's endpoint in this snapshot and family (`second`: the other member of a pod class). */
  endpoint(c: EndpointClass, family: Family, second: boolean): Endpoint {
    const cache = this.endpoints[famIdx(family)]!;
    const at = c.id * 2 + (second ? 1 : 0);
    return (cache[at] ??= endpointOf(c, this.side, family, second));
  }

  private signature(dir: Direction, subject: PodClass): number {
    const d = dirIdx(dir);
    let id = this.sigOfClass[d]![subject.id]!;
    if (id === 0) {
      const g = this.groups.of(this.side, subject.rep[this.side], dir);
      id = this.intern(this.sigIds, g.policySignature);
      this.sigGroups[id] ??= g;
      this.sigOfClass[d]![subject.id] = id;
    }
    return id;
  }

  /** Peers a subject of namespace `nsIdx` can meet: of the cluster-scoped policies that may select there, and of its NetworkPolicies. */
  private reachOf(dir: Direction, nsIdx: number): { absolute: number[]; other: Peer[] } {
    const d = dirIdx(dir);
    let r = this.reach[d]!.get(nsIdx);
    if (r) return r;
    const c = this.cluster;
    // A cluster subject picks namespaces first (pods within them second): a policy whose
    // namespace selector rejects N selects nobody there.
    const scoped = [...c.policies.admin, ...c.policies.baseline].filter((p) => p.subject.type === 'cluster' && c.selectors.matchesNamespace(p.subject.namespaces, nsIdx));
    const mine = new Set(peersOfRules(rulesOf(scoped, dir)));
    const absolute = this.absolute[d]!.flatMap((p, i) => (mine.has(p) ? [i] : []));
    const other = [...peersOfRules(rulesOf(scoped, dir), isRelativePeer), ...peersOfRules(rulesOf(c.policies.byNamespace.get(c.namespaces[nsIdx]!.name) ?? [], dir))];
    this.reach[d]!.set(nsIdx, (r = { absolute, other }));
    return r;
  }

  /** Which rule peers a subject of this namespace can meet match the peer: its identity for the namespace. */
  private identity(dir: Direction, subject: Endpoint & { kind: 'pod' }, peerClass: EndpointClass, peer: Endpoint, family: Family): number {
    const d = dirIdx(dir);
    const ns = subject.pod.nsIdx;
    const byNs = this.fine[d]![famIdx(family)]!;
    // Pairs come grouped by subject: the last namespace's row is usually the one asked for.
    const at = (d * 2 + famIdx(family)) * this.classes.all.length + ns;
    let ids = this.lastIdsAt === at ? this.lastIds : byNs.get(ns);
    if (!ids) byNs.set(ns, (ids = new Int32Array(this.classes.all.length)));
    this.lastIds = ids;
    this.lastIdsAt = at;
    const known = ids[peerClass.id]!;
    if (known !== 0) return known;
    const c = this.cluster;
    const matches = (list: readonly Peer[]) => list.map((p) => (peerMatches(c, p, peer, subject.pod) ? '1' : '0')).join('');
    const absCache = this.absoluteBits[d]![famIdx(family)]!;
    let abs = absCache.get(peerClass.id);
    if (abs === undefined) absCache.set(peerClass.id, (abs = matches(this.absolute[d]!)));
    const r = this.reachOf(dir, ns);
    const named = dir === 'egress' && peer.kind === 'pod' ? peer.pod.namedPorts.filter((np) => this.portNames.has(np.name)).map((np) => `${np.name}/${np.port}/${np.protocol}`).sort().join(',') : '';
    const id = this.intern(this.fineIds, `${peer.kind}|${named}|${r.absolute.map((i) => abs[i]).join('')}|${matches(r.other)}`);
    ids[peerClass.id] = id;
    return id;
  }

  /** The key of a side: equal keys, equal sides (memo key of `entry` and `allowedAll`). */
  key(side: SideOf): number {
    const subject = this.endpoint(side.subject, side.family, side.second) as Endpoint & { kind: 'pod' };
    return this.signature(side.dir, side.subject) * SPAN + this.identity(side.dir, subject, side.peer, this.endpoint(side.peer, side.family, side.peerSecond), side.family);
  }

  /** The side over every port of `protocol`. */
  entry(side: SideOf, protocol: Protocol, key = this.key(side)): SideEntry {
    const { dir, family } = side;
    const memo = this.memo[dirIdx(dir)]![famIdx(family)]![PROTOCOLS.indexOf(protocol)]!;
    let e = memo.get(key);
    if (e) {
      this.work.sidesReused++;
      return e;
    }
    this.work.sides++;
    const subject = this.endpoint(side.subject, family, side.second) as Endpoint & { kind: 'pod' };
    const peer = this.endpoint(side.peer, family, side.peerSecond);
    const runs = sideRuns(this.cluster, dir, subject.pod, peer, this.sigGroups[Math.floor(key / SPAN)]!.rules, protocol, this.work);
    e = { runs, allowed: this.intern(this.allowedIds, JSON.stringify(allowedRanges(runs))) };
    memo.set(key, e);
    return e;
  }

  /** An id of the side's allowed ports over every protocol: equal ids, the side lets the same flows through. */
  allowedAll(side: SideOf, key = this.key(side)): number {
    const memo = this.allowedAllMemo[dirIdx(side.dir)]![famIdx(side.family)]!;
    let id = memo.get(key);
    if (id === undefined) memo.set(key, (id = this.intern(this.allowedIds, PROTOCOLS.map((p) => this.entry(side, p, key).allowed).join(','))));
    return id;
  }
}

/**
 * One side of a class pair in one family: the subject's class (its other member when
 * `second`, for pairs inside a class) and the peer's.
 */
export interface SideOf {
  readonly dir: Direction;
  readonly subject: PodClass;
  readonly second: boolean;
  readonly peer: EndpointClass;
  readonly peerSecond: boolean;
  readonly family: Family;
}

/** The egress side (of `from`) or the ingress side (of `to`) of a pair, or null where that end is no policy subject. */
export function sideOf(dir: Direction, from: EndpointClass, to: EndpointClass, family: Family): SideOf | null {
  const inside = from === to;
  if (dir === 'egress') return from.kind === 'pods' ? { dir, subject: from, second: false, peer: to, peerSecond: inside, family } : null;
  return to.kind === 'pods' ? { dir, subject: to, second: inside, peer: from, peerSecond: false, family } : null;
}
