// Identity classes of peer owners (pods and nodes) for one group: owners that every peer and
// every named port of the group's rules treat alike share a class, so the verdict engine runs
// once per class instead of once per pod.
//
// A class is the set of "features" an owner has (which features a group's rules read is
// core/classes/peer-features.ts's: membership in a pod or node peer, or one resolution of a
// named port). Classes are built by refinement (each feature splits the classes it touches),
// which needs no per-owner strings. Broad features (an ANP peer selecting most
// pods, a named port every web pod carries) recur across thousands of groups: the classing by
// the broad features is built once per distinct set of them and kept while the caller works
// through the groups that share it; each group then only refines it by its narrow features.
import { namedPortValue } from '../classes/features.js';
import { peerFeatures, type PeerFeature } from '../classes/peer-features.js';
import type { Cluster } from '../cluster.js';
import { namespaceMatches } from '../evaluate/match.js';
import type { Family } from '../net/ip.js';
import type { Peer } from '../policy/model.js';
import type { SelectorId } from '../select/cache.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { addressIndex, type AddressIndex } from './address-index.js';
import type { Group } from './group.js';
import type { ClassRenames, CompileScratch } from './scratch.js';

export interface Feature {
  /** Equal ids ⇔ equal sets (within one cluster). */
  readonly id: string;
  /** Disjoint owner sets: owners in one set share the feature's value, owners in none lack it. */
  readonly sets: readonly Int32Array[];
  readonly size: number;
}

export interface Classing {
  /** Class ids are 1..classCount-1; owners with no feature are in no class (their addresses behave as external ones). */
  readonly classCount: number;
  /** Sorted point indexes of each class ≥ 1, per family (undefined or empty when none). */
  readonly members: Readonly<Record<Family, readonly (ArrayLike<number> | undefined)[]>>;
  /**
   * Points listed in members that left the class (sorted, a subset of the class's list). A
   * group's narrow features move a few owners out of large base classes; marking them is
   * cheaper than copying the rest of the list for every group.
   */
  readonly removed: Readonly<Record<Family, ReadonlyMap<number, Int32Array>>>;
}

const NONE_REMOVED: Classing['removed'] = { 4: new Map(), 6: new Map() };

const featureCache = new WeakMap<Cluster, Map<string, Feature>>();

function cached(cluster: Cluster, id: string, build: () => Int32Array[]): Feature {
  const byId = featureCache.get(cluster) ?? featureCache.set(cluster, new Map()).get(cluster)!;
  let f = byId.get(id);
  if (!f) {
    const sets = build().filter((s) => s.length > 0);
    f = { id, sets, size: sets.reduce((n, s) => n + s.length, 0) };
    byId.set(id, f);
  }
  return f;
}

/**
 * Per pod list: each namespace's pods that can be peers (not host-network, with an address), by
 * namespace index. Keyed by the pods array, not the cluster: a version whose policies alone
 * changed keeps its predecessor's pods and namespaces (cluster.ts withPoliciesChanged), and
 * this index with them (10⁵ pods at L); any other version has pods of its own.
 */
const peerPodsByNamespace = new WeakMap<readonly unknown[], Int32Array[]>();

function peerPodsIn(cluster: Cluster, nsIdx: number): Int32Array {
  let byNs = peerPodsByNamespace.get(cluster.pods);
  if (!byNs) {
    byNs = cluster.namespaces.map((ns) => {
      const out: number[] = [];
      for (const pod of cluster.podsByNamespace.get(ns.name) ?? []) if (!pod.hostNetwork && pod.ips.length > 0) out.push(pod.idx);
      return Int32Array.from(out);
    });
    peerPodsByNamespace.set(cluster.pods, byNs);
  }
  return byNs[nsIdx]!;
}

/**
 * Pods that can be peers (not host-network, with an address) in the namespaces a selector
 * matches, in namespace then pod order; once per cluster and selector. A namespaceSelector peer
 * is asked about by thousands of policies (`team: x` from every namespace of the team): walking
 * its namespaces each time cost more than the pods it selects (L: ~4·10³ such calls over up to
 * 5·10³ namespaces each).
 */
const podsInSelected = new WeakMap<Cluster, Map<SelectorId, Int32Array>>();

function podsInNamespacesMatching(cluster: Cluster, selector: SelectorId): Int32Array {
  const byId = podsInSelected.get(cluster) ?? podsInSelected.set(cluster, new Map()).get(cluster)!;
  let pool = byId.get(selector);
  if (!pool) {
    const lists = cluster.selectors.namespacesMatching(selector).map((i) => peerPodsIn(cluster, i));
    pool = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of lists) {
      pool.set(l, at);
      at += l.length;
    }
    byId.set(selector, pool);
  }
  return pool;
}

/**
 * Pods a `pods` peer selects, for a subject (Self, sameLabels … are relative to its namespace).
 * The array may be shared between calls: callers do not write to it.
 */
export function podsOf(cluster: Cluster, peer: Extract<Peer, { type: 'pods' }>, subject: PodInfo): Int32Array {
  const m = peer.namespaces;
  if (m.type === 'selector') {
    const pool = podsInNamespacesMatching(cluster, m.selector);
    if (peer.pods === null) return pool;
    return matchingPods(cluster, peer.pods, pool);
  }
  // A NetworkPolicy's podSelector peer names its own namespace: look at that one only.
  const named = m.type === 'name' ? cluster.nsByName.get(m.name) : m.type === 'self' ? cluster.namespaces[subject.nsIdx] : null;
  if (named === undefined) return new Int32Array(0);
  if (named !== null) {
    const pool = namespaceMatches(cluster, m, named, subject) ? peerPodsIn(cluster, named.idx) : new Int32Array(0);
    return peer.pods === null ? pool : matchingPods(cluster, peer.pods, pool);
  }
  const out: number[] = [];
  for (const ns of cluster.namespaces) {
    if (!namespaceMatches(cluster, m, ns, subject)) continue;
    const pool = peerPodsIn(cluster, ns.idx);
    for (let i = 0; i < pool.length; i++) if (peer.pods === null || cluster.selectors.matchesPod(peer.pods, pool[i]!)) out.push(pool[i]!);
  }
  return Int32Array.from(out);
}

/** The pods of `pool` a pod selector matches, in pool order. */
function matchingPods(cluster: Cluster, selector: SelectorId, pool: Int32Array): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < pool.length; i++) if (cluster.selectors.matchesPod(selector, pool[i]!)) out.push(pool[i]!);
  return Int32Array.from(out);
}

/** The owner sets of a feature: those a pods or nodes peer selects, or the pods a port name resolves alike on, per value. */
function ownerSets(cluster: Cluster, f: PeerFeature, subject: PodInfo): Int32Array[] {
  switch (f.kind) {
    case 'pods':
      return [podsOf(cluster, f.peer, subject)];
    case 'nodes':
      return [Int32Array.from(cluster.nodes.filter((n) => cluster.selectors.matchesNode(f.peer.selector, n.idx)), (n) => cluster.pods.length + n.idx)];
    case 'named-port': {
      const byValue = new Map<string, number[]>();
      for (const pod of cluster.pods) {
        if (pod.hostNetwork || pod.ips.length === 0) continue;
        const own = namedPortValue(pod, f.name);
        if (own) (byValue.get(own) ?? byValue.set(own, []).get(own)!).push(pod.idx);
      }
      return [...byValue.keys()].sort().map((k) => Int32Array.from(byValue.get(k)!));
    }
  }
}

/** The features of a group's rules (core/classes/peer-features.ts), with their owner sets. */
export function featuresOf(cluster: Cluster, group: Group): Feature[] {
  const subject = group.representative;
  return peerFeatures(group.rules, group.dir, subject).map((f) => cached(cluster, f.id, () => ownerSets(cluster, f, subject)));
}

/** Features this large go into the shared base classing; the rest refine it per group. */
export function isBroad(index: AddressIndex, f: Feature): boolean {
  return f.size >= Math.max(64, index.ownerCount >> 7);
}

/**
 * Splits classes by each set of each feature; returns the next free class id. `classOf` is
 * read through `base` and written to `into` (the base itself when refining in place).
 */
function refine(renames: ClassRenames, base: Int32Array, into: Int32Array | Map<number, number>, next: number, features: readonly Feature[]): number {
  const inPlace = into === base;
  const map = into instanceof Map ? into : null;
  for (const f of features) {
    for (const set of f.sets) {
      // Class ids read here are below `next`, which grows by at most the set's size.
      renames.next(next + set.length);
      const to = renames.to;
      const gen = renames.gen;
      const stamp = renames.generation;
      for (let k = 0; k < set.length; k++) {
        const o = set[k]!;
        const old = map ? (map.get(o) ?? base[o]!) : base[o]!;
        let c: number;
        if (gen[old] === stamp) c = to[old]!;
        else {
          gen[old] = stamp;
          to[old] = c = next++;
        }
        if (map) map.set(o, c);
        else if (inPlace) base[o] = c;
      }
    }
  }
  return next;
}

/** A classing with the owner → class map kept, so groups can refine it. */
export interface BaseClassing extends Classing {
  readonly classOf: Int32Array;
}

export function baseClassing(cluster: Cluster, broad: readonly Feature[], scratch: CompileScratch): BaseClassing {
  const index = addressIndex(cluster);
  const classOf = new Int32Array(index.ownerCount);
  const next = refine(scratch.renames, classOf, classOf, 1, broad);
  // Refinement leaves gaps (ids of classes split away entirely): renumber densely, as every
  // group walks the class ids.
  const dense = new Int32Array(next);
  let classCount = 1;
  for (let o = 0; o < classOf.length; o++) {
    const c = classOf[o]!;
    if (c === 0) continue;
    classOf[o] = dense[c] ||= classCount++;
  }
  // Each family's points grouped by class in one buffer (a counting sort: points are visited
  // in order, so each class's slice is sorted); a class's list is a view of its slice.
  const members = { 4: [], 6: [] } as Record<Family, Int32Array[]>;
  for (const fam of [4, 6] as Family[]) {
    const owner = index.families[fam].owner;
    const start = new Int32Array(classCount + 1);
    for (let i = 0; i < owner.length; i++) start[classOf[owner[i]!]! + 1]!++;
    for (let c = 1; c <= classCount; c++) start[c]! += start[c - 1]!;
    const sorted = new Int32Array(owner.length);
    const at = start.slice(0, classCount);
    for (let i = 0; i < owner.length; i++) sorted[at[classOf[owner[i]!]!]!++] = i;
    for (let c = 1; c < classCount; c++) if (start[c + 1]! > start[c]!) members[fam][c] = sorted.subarray(start[c], start[c + 1]);
  }
  return { classOf, classCount, members, removed: NONE_REMOVED };
}

/** The base classing refined by a group's narrow features; the base is left as it was. */
export function refineClassing(cluster: Cluster, base: BaseClassing, narrow: readonly Feature[], scratch: CompileScratch): Classing {
  if (narrow.length === 0) return base;
  const index = addressIndex(cluster);
  // Only the owners the narrow features touch change class: keep those in a map.
  const moved = new Map<number, number>();
  const next = refine(scratch.renames, base.classOf, moved, base.classCount, narrow);
  // Moved owners and their new classes as arrays, classes renumbered densely after the base's.
  const owners: number[] = [];
  const classes: number[] = [];
  const dense = new Int32Array(next - base.classCount);
  let classCount = base.classCount;
  moved.forEach((c, o) => {
    owners.push(o);
    classes.push((dense[c - base.classCount] ||= classCount++));
  });
  const members = { 4: base.members[4].slice(), 6: base.members[6].slice() } as Record<Family, (ArrayLike<number> | undefined)[]>;
  const removed = { 4: new Map(), 6: new Map() } as Record<Family, Map<number, Int32Array>>;
  for (const fam of [4, 6] as Family[]) {
    // Owners leaving a base class: their points are marked removed from its list.
    const leaving = new Map<number, number[]>();
    // Owners entering a new class bring their points.
    const added = new Map<number, number[]>();
    for (let k = 0; k < owners.length; k++) {
      const o = owners[k]!;
      const points = index.pointsOf[fam][o]!;
      if (points.length === 0) continue;
      const was = base.classOf[o]!;
      if (was > 0) {
        const out = leaving.get(was) ?? leaving.set(was, []).get(was)!;
        for (const pt of points) out.push(pt);
      }
      const c = classes[k]!;
      const list = added.get(c) ?? added.set(c, []).get(c)!;
      for (const pt of points) list.push(pt);
    }
    leaving.forEach((list, c) => removed[fam].set(c, Int32Array.from(list).sort()));
    added.forEach((list, c) => (members[fam][c] = Int32Array.from(list).sort()));
  }
  return { classCount, members, removed };
}
