// Which class pairs can change at all, so the delta evaluates only those. A side (egress of the
// source, ingress of the destination) walks the policies that select its subject, tier by
// tier, and the first matching rule decides (engine.ts). If the subject and the peer are alike
// in both snapshots, and the policies selecting the subject are the same objects with the same
// content — apart from a set Δ that differs — then for a flow that no rule of Δ matches (in
// the snapshot Δ's version belongs to) every tier answers as before:
//  - Admin / Baseline: "the first matching rule decides" and Δ's rules match nothing here, so
//    the first matching rule is the same; precedence is (priority, name), part of the content;
//  - NetworkPolicy: "allowed iff a rule of one of them matches" — the same rules match — and
//    isolation ("if any NetworkPolicy selects the pod") is compared on its own.
// So a subject's side can change only towards the peers Δ's rules match, towards every peer
// when isolation or the subject itself changed, and a changed peer can change every side
// towards it. Peers are found per rule peer by namespace index, as lint/cells.ts does.
import type { Cluster } from '../cluster.js';
import { groupOf, type Group } from '../compile/group.js';
import { namespaceMatches } from '../evaluate/match.js';
import { objectKey } from '../lint/types.js';
import { isRelativePeer, rulesFor, type Direction, type Peer, type Policy } from '../policy/model.js';
import { cidrPeerHolds } from '../policy/rule-addresses.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { SIDES, type Both, type Classes, type EndpointClass, type PodClass, type SnapshotSide } from './classes.js';

/** Policy identity → its content (apiVersion and spec, canonical JSON), per snapshot. */
export type PolicyContents = Both<ReadonlyMap<string, string>>;

/** The policies that select a pod, per snapshot and direction (compile/group.ts), memoised. */
export class SubjectGroups {
  private readonly memo: Both<Map<string, WeakMap<PodInfo, Group>>> = { base: new Map(), head: new Map() };
  constructor(readonly clusters: Both<Cluster>) {}
  of(side: SnapshotSide, pod: PodInfo, dir: Direction): Group {
    let byPod = this.memo[side].get(dir);
    if (!byPod) this.memo[side].set(dir, (byPod = new WeakMap()));
    let g = byPod.get(pod);
    if (!g) byPod.set(pod, (g = groupOf(this.clusters[side], pod, dir)));
    return g;
  }
}

/** The peers towards which a side may differ: every peer, or these class ids. */
export type Found = 'all' | ReadonlySet<number>;

export interface Candidates {
  /** Per class id: the peers its egress side may differ towards (null: only changed peers). */
  readonly egress: readonly (Found | null)[];
  /** Per class id: the peers its ingress side may differ towards. */
  readonly ingress: readonly (Found | null)[];
  /** Classes whose facts changed: every flow from or to them may differ. */
  readonly changed: ReadonlySet<number>;
}

/** Which sides of a candidate pair may differ; a side that may not is the same in both snapshots. */
export interface Dirty {
  readonly egress: boolean;
  readonly ingress: boolean;
}

export function findCandidates(classes: Classes, groups: SubjectGroups, contents: PolicyContents): Candidates {
  const { clusters } = groups;
  const peerMemo: Both<WeakMap<Peer, Map<number, readonly number[] | 'all'>>> = { base: new WeakMap(), head: new WeakMap() };
  const sideMemo = new Map<string, Found | null>();
  const contentKey = (side: SnapshotSide, p: Policy) => {
    const k = objectKey(p.ref);
    return `${k}#${contents[side].get(k) ?? ''}`;
  };

  /** Classes a rule peer matches in one snapshot, for a subject (Self, sameLabels… are relative to it). */
  const peerClasses = (side: SnapshotSide, peer: Peer, subject: PodInfo): readonly number[] | 'all' => {
    const c = clusters[side];
    let bySubject = peerMemo[side].get(peer);
    if (!bySubject) peerMemo[side].set(peer, (bySubject = new Map()));
    const memoKey = isRelativePeer(peer) ? subject.nsIdx : -1;
    const cached = bySubject.get(memoKey);
    if (cached) return cached;
    let out: readonly number[] | 'all';
    switch (peer.type) {
      case 'any':
        out = 'all';
        break;
      case 'none':
        out = [];
        break;
      case 'pods': {
        const ids: number[] = [];
        for (const ns of c.namespaces) {
          if (!namespaceMatches(c, peer.namespaces, ns, subject)) continue;
          for (const cls of classes.podsByNamespace[side].get(ns.idx) ?? []) if (peer.pods === null || c.selectors.matchesPod(peer.pods, cls.rep[side].idx)) ids.push(cls.id);
        }
        out = ids;
        break;
      }
      case 'nodes':
        out = classes.nodes.filter((cls) => c.selectors.matchesNode(peer.selector, cls.rep[side].node.idx)).map((cls) => cls.id);
        break;
      case 'cidrs': {
        out = classes.all.filter((cls) => addressesOf(cls, side).some((ip) => cidrPeerHolds(peer, ip))).map((cls) => cls.id);
        break;
      }
    }
    bySubject.set(memoKey, out);
    return out;
  };

  const isolated = (side: SnapshotSide, g: Group, pod: PodInfo, dir: Direction) =>
    g.policies.some((p) => p.tier === 'networkpolicy' && !p.legacy) || (dir === 'ingress' && clusters[side].namespaces[pod.nsIdx]!.legacyIngressIsolation);

  /** The peers towards which a subject's side may differ; null: none (only changed peers). */
  const sideCandidates = (cls: PodClass, dir: Direction): Found | null => {
    const g = { base: groups.of('base', cls.rep.base, dir), head: groups.of('head', cls.rep.head, dir) };
    const key = `${dir}|${g.base.signature}|${g.head.signature}`;
    if (sideMemo.has(key)) return sideMemo.get(key)!;
    let found: Found | null;
    if (isolated('base', g.base, cls.rep.base, dir) !== isolated('head', g.head, cls.rep.head, dir)) found = 'all';
    else {
      const keys = { base: new Set(g.base.policies.map((p) => contentKey('base', p))), head: new Set(g.head.policies.map((p) => contentKey('head', p))) };
      const delta = SIDES.flatMap((side) => g[side].policies.filter((p) => !keys[side === 'base' ? 'head' : 'base'].has(contentKey(side, p))).map((p) => ({ side, p })));
      if (delta.length === 0) found = null;
      else {
        const ids = new Set<number>();
        found = ids;
        for (const { side, p } of delta) {
          for (const rule of rulesFor(p, dir) ?? []) {
            for (const peer of rule.peers) {
              const m = peerClasses(side, peer, cls.rep[side]);
              if (m === 'all') found = 'all';
              else for (const id of m) ids.add(id);
            }
          }
        }
      }
    }
    sideMemo.set(key, found);
    return found;
  };

  const egress: (Found | null)[] = classes.all.map(() => null);
  const ingress: (Found | null)[] = classes.all.map(() => null);
  const changed = new Set<number>();
  for (const cls of classes.pods) {
    if (cls.changed) {
      changed.add(cls.id);
      continue;
    }
    egress[cls.id] = sideCandidates(cls, 'egress');
    ingress[cls.id] = sideCandidates(cls, 'ingress');
  }
  for (const cls of classes.nodes) if (cls.changed) changed.add(cls.id);
  return { egress, ingress, changed };
}

function addressesOf(cls: EndpointClass, side: SnapshotSide) {
  if (cls.kind === 'pods') return cls.rep[side].ips;
  return [cls.kind === 'nodes' ? cls.rep[side].ip : cls.ip];
}

const has = (f: Found | null | undefined, id: number) => f === 'all' || (!!f && f.has(id));

/**
 * Every candidate pair once, with which of its sides may differ. A flow needs a policy subject
 * at one end at least (node and external addresses have no side), and a pod class pairs with
 * itself only through two different members. Pairs are visited from the per-class lists, never
 * collected: a broad change makes millions of them.
 */
export function forEachCandidate(c: Candidates, classes: Classes, visit: (from: EndpointClass, to: EndpointClass, dirty: Dirty) => void): number {
  const all = classes.all;
  let visited = 0;
  const emit = (from: EndpointClass, to: EndpointClass, dirty: Dirty) => {
    if (from.kind !== 'pods' && to.kind !== 'pods') return;
    if (from === to && (from.kind !== 'pods' || from.other === null)) return;
    visited++;
    visit(from, to, dirty);
  };
  const each = (f: Found, fn: (id: number) => void) => {
    if (f === 'all') for (let id = 0; id < all.length; id++) fn(id);
    else for (const id of f) fn(id);
  };
  const BOTH: Dirty = { egress: true, ingress: true };
  const EGRESS: Dirty = { egress: true, ingress: false };
  const INGRESS: Dirty = { egress: false, ingress: true };
  // Changed classes: every pair with them, both sides (a pair of two changed classes once).
  for (const id of c.changed) {
    for (const other of all) {
      emit(all[id]!, other, BOTH);
      if (!c.changed.has(other.id)) emit(other, all[id]!, BOTH);
    }
  }
  // Egress candidates (and whether the destination's ingress side is a candidate too).
  c.egress.forEach((found, from) => {
    if (!found) return;
    each(found, (to) => {
      if (!c.changed.has(to)) emit(all[from]!, all[to]!, has(c.ingress[to], from) ? BOTH : EGRESS);
    });
  });
  // Ingress candidates not visited above.
  c.ingress.forEach((found, to) => {
    if (!found) return;
    each(found, (from) => {
      if (!c.changed.has(from) && !has(c.egress[from], to)) emit(all[from]!, all[to]!, INGRESS);
    });
  });
  return visited;
}
