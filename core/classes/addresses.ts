// Addresses as rules read them: a rule matches an address only through its CIDR peers
// ("ipBlock … except", `networks`), all of them together (policy/rule-addresses.ts: the union of
// each peer's ranges less its excepts). So two addresses of one family that every rule in
// question contains alike are alike to those rules, however far apart they are. The address
// space is cut at the boundaries of each rule's addresses into elementary intervals, and
// intervals inside the same rules share a class: ten thousand excepted /32s of one /8 are two
// classes (in the /8 less its excepts, or not), and ten thousand /32 peers of one rule are one
// more, not twenty or ten thousand intervals. One address per class and family that no pod or
// node owns stands for every address outside the cluster there.
import type { Cluster } from '../cluster.js';
import { elementaryIntervals, intervalIndex, type Interval } from '../net/intervals.js';
import type { Family, IpAddr, IpRange } from '../net/ip.js';
import type { Rule } from '../policy/model.js';
import { ruleAddresses } from '../policy/rule-addresses.js';
import { ipKey } from '../snapshot/cluster.js';

/** The rules' address sets, each once (by content), sorted by content: what address classes are built from. */
export function addressSets(rules: readonly Rule[]): { readonly key: string; readonly sets: readonly (readonly IpRange[])[] } {
  const byKey = new Map<string, readonly IpRange[]>();
  for (const r of rules) {
    const a = ruleAddresses(r);
    if (a.any && !byKey.has(a.key)) byKey.set(a.key, a.ranges);
  }
  const keys = [...byKey.keys()].sort();
  return { key: keys.join(';'), sets: keys.map((k) => byKey.get(k)!) };
}

/** The elementary intervals of some address sets per family, each interval's class, and each address's class as a key. */
export interface AddressSlots {
  readonly intervals: Readonly<Record<Family, readonly Interval[]>>;
  /** Per family and interval index: equal for intervals inside the same sets. */
  readonly classOf: Readonly<Record<Family, Int32Array>>;
  /** "family:class": equal for addresses no set tells apart. */
  readonly slot: (ip: IpAddr) => string;
}

/**
 * Moves each interval inside a set from its class c to a class of its own for c and that set,
 * set after set, numbering new classes from `next`. The moves of a set are kept in arrays
 * stamped with the set, not a Map per set: a set may contain 10⁵ intervals.
 */
function refine(intervals: Record<Family, readonly Interval[]>, classOf: Record<Family, Int32Array>, sets: readonly (readonly IpRange[])[], next: number): void {
  let to: Int32Array = new Int32Array(Math.max(64, next));
  let stampOf: Int32Array = new Int32Array(to.length);
  let stamp = 0;
  for (const inside of sets) {
    stamp++;
    for (const r of inside) {
      const [list, classes] = [intervals[r.family], classOf[r.family]];
      // Cuts at each range's ends: the interval holding r.hi ends there.
      const last = intervalIndex(list, r.hi);
      for (let i = intervalIndex(list, r.lo); i <= last; i++) {
        const from = classes[i]!;
        if (from >= to.length) {
          const size = Math.max(2 * to.length, from + 1);
          [to, stampOf] = [grown(to, size), grown(stampOf, size)];
        }
        if (stampOf[from] !== stamp) [stampOf[from], to[from]] = [stamp, next++];
        classes[i] = to[from]!;
      }
    }
  }
}

const grown = (a: Int32Array, size: number): Int32Array => {
  const out = new Int32Array(size);
  out.set(a);
  return out;
};

/** Classes of addresses by which of `sets` (sorted, merged ranges, as addressSets gives them) contain them. */
export function addressSlots(sets: readonly (readonly IpRange[])[]): AddressSlots {
  const cuts = sets.flat();
  const intervals: Record<Family, Interval[]> = { 4: elementaryIntervals(4, cuts), 6: elementaryIntervals(6, cuts) };
  const classOf: Record<Family, Int32Array> = { 4: new Int32Array(intervals[4].length), 6: new Int32Array(intervals[6].length) };
  // Partition refinement: every interval starts in class 0; each set moves the intervals it
  // contains from class c to a class of their own, c' (one per c and set). Intervals end in
  // one class iff every set contains both or neither. Each interval is wholly in or out of a
  // set, its boundaries being cuts. Cost: the intervals each set contains, summed.
  refine(intervals, classOf, sets, 1);
  // Class numbers by first interval (IPv4 first), so equal sets give equal numbers.
  const renumbered = new Map<number, number>();
  for (const family of [4, 6] as const) {
    const classes = classOf[family];
    for (let i = 0; i < classes.length; i++) {
      let c = renumbered.get(classes[i]!);
      if (c === undefined) renumbered.set(classes[i]!, (c = renumbered.size));
      classes[i] = c;
    }
  }
  return { intervals, classOf, slot: (ip) => `${ip.family}:${classOf[ip.family][intervalIndex(intervals[ip.family], ip.value)]}` };
}

/** Address classes without the key function: what regions are read from. */
export type AddressClasses = Pick<AddressSlots, 'intervals' | 'classOf'>;

/**
 * `base` (the classes of some sets) cut further at the boundaries of `sets` and refined by them:
 * the classes addressSlots gives base's sets and `sets` together, up to class numbers. One walk
 * of base's intervals and of those `sets` contain, instead of sorting every boundary again: for
 * many tables that share a few sets of 10⁴ pods and name a few small ones each.
 */
export function refinedClasses(base: AddressClasses, sets: readonly (readonly IpRange[])[]): AddressClasses {
  const ranges = sets.flat();
  let next = 0;
  for (const family of [4, 6] as const) for (const c of base.classOf[family]) if (c >= next) next = c + 1;
  const intervals = {} as Record<Family, Interval[]>;
  const classOf = {} as Record<Family, Int32Array>;
  for (const family of [4, 6] as const) {
    const [list, classes] = [base.intervals[family], base.classOf[family]];
    // The new cuts in order (an elementary interval starts at each; the first at 0, no cut),
    // each splitting the base interval it falls inside; the intervals between are copied.
    const cuts = elementaryIntervals(family, ranges);
    const out: Interval[] = [];
    const outClasses = new Int32Array(list.length + cuts.length);
    let w = 0;
    let copied = 0;
    let rest: Interval | null = null;
    let restAt = -1;
    const copyUpTo = (end: number) => {
      outClasses.set(classes.subarray(copied, end), w);
      for (let i = copied; i < end; i++) out.push(list[i]!);
      w += end - copied;
      copied = end;
    };
    for (let j = 1; j < cuts.length; j++) {
      const cut = cuts[j]!.lo;
      const at = intervalIndex(list, cut);
      if (list[at]!.lo === cut) continue;
      if (at !== restAt) {
        if (rest) {
          outClasses[w] = classes[restAt]!;
          out.push(rest);
          w++;
          copied = restAt + 1;
        }
        copyUpTo(at);
        [rest, restAt] = [list[at]!, at];
      }
      outClasses[w] = classes[at]!;
      out.push({ lo: rest!.lo, hi: cut - 1n });
      w++;
      rest = { lo: cut, hi: rest!.hi };
    }
    if (rest) {
      outClasses[w] = classes[restAt]!;
      out.push(rest);
      w++;
      copied = restAt + 1;
    }
    copyUpTo(list.length);
    intervals[family] = out;
    classOf[family] = outClasses.slice(0, w);
  }
  refine(intervals, classOf, sets, next);
  return { intervals, classOf };
}

const clusterMemo = new WeakMap<Cluster, AddressSlots>();

/** The classes over every rule of every tier of the cluster, memoised: what any question about it can tell apart. */
export function clusterAddressSlots(cluster: Cluster): AddressSlots {
  let slots = clusterMemo.get(cluster);
  if (!slots) clusterMemo.set(cluster, (slots = addressSlots(addressSets(cluster.policies.all.flatMap((p) => [...(p.ingress ?? []), ...(p.egress ?? [])])).sets)));
  return slots;
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

/** An address class outside the cluster: its intervals in order and the unowned address standing for them. */
export interface ExternalAddresses {
  readonly family: Family;
  readonly intervals: readonly Interval[];
  readonly ip: IpAddr;
}

/** One unowned address per class (IPv4 first, then IPv6, by first interval); classes owned throughout have none. */
export function externalRepresentatives(clusters: readonly Cluster[], slots: AddressSlots): ExternalAddresses[] {
  const out: ExternalAddresses[] = [];
  for (const family of [4, 6] as const) {
    const byClass = new Map<number, { family: Family; intervals: Interval[]; ip: IpAddr | null }>();
    const classes = slots.classOf[family];
    slots.intervals[family].forEach((interval, i) => {
      let g = byClass.get(classes[i]!);
      if (!g) byClass.set(classes[i]!, (g = { family, intervals: [], ip: null }));
      g.intervals.push(interval);
      g.ip ??= unownedAddress(clusters, family, interval);
    });
    for (const g of byClass.values()) if (g.ip) out.push({ family, intervals: g.intervals, ip: g.ip });
  }
  return out;
}
