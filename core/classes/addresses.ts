// Addresses as rules read them: only through CIDR peers ("ipBlock … except", `networks`), and
// match.ts asks of a peer only whether an address is in its ranges and in none of its excepts.
// So two addresses of one family that every CIDR peer of the rules in question contains alike
// are alike to those rules, however far apart they are. The address space is cut at the
// boundaries of each peer's addresses (its ranges less its excepts) into elementary intervals,
// and intervals inside the same peers share a class: ten thousand excepted /32s of one /8 are
// two classes (in the /8 less its excepts, or excepted), not twenty thousand intervals. One
// address per class and family that no pod or node owns stands for every address outside the
// cluster there.
import type { Cluster } from '../cluster.js';
import { elementaryIntervals, intervalIndex, type Interval } from '../net/intervals.js';
import type { Family, IpAddr, IpRange } from '../net/ip.js';
import { subtract } from '../net/ranges.js';
import type { Peer, Rule } from '../policy/model.js';
import { ipKey } from '../snapshot/cluster.js';

export type CidrPeer = Extract<Peer, { type: 'cidrs' }>;

/** Every CIDR peer of the rules, in rule order. */
export function cidrPeers(rules: readonly Rule[]): CidrPeer[] {
  const out: CidrPeer[] = [];
  for (const r of rules) for (const p of r.peers) if (p.type === 'cidrs') out.push(p);
  return out;
}

const rangesText = (list: readonly IpRange[]) => list.map((r) => `${r.family}:${r.lo}-${r.hi}`).join(',');
const definitions = new WeakMap<CidrPeer, string>();
/** A peer's addresses as written (ranges, then excepts): equal texts, equal address sets. */
function definition(p: CidrPeer): string {
  let d = definitions.get(p);
  if (d === undefined) definitions.set(p, (d = `${rangesText(p.ranges)}\\${rangesText(p.except)}`));
  return d;
}

/** The distinct peer definitions, sorted: equal for sets of peers that read addresses alike (to memoise what is built from them). */
export const peersKey = (peers: readonly CidrPeer[]): string => [...new Set(peers.map(definition))].sort().join(';');

/** The elementary intervals of the peers' addresses per family, each interval's class, and each address's class as a key. */
export interface AddressSlots {
  readonly intervals: Readonly<Record<Family, readonly Interval[]>>;
  /** Per family and interval index: equal for intervals inside the same peers. */
  readonly classOf: Readonly<Record<Family, Int32Array>>;
  /** "family:class": equal for addresses no peer tells apart. */
  readonly slot: (ip: IpAddr) => string;
}

export function addressSlots(peers: readonly CidrPeer[]): AddressSlots {
  const byDefinition = new Map<string, CidrPeer>();
  for (const p of peers) if (!byDefinition.has(definition(p))) byDefinition.set(definition(p), p);
  const insides = [...byDefinition.keys()].sort().map((d) => {
    const p = byDefinition.get(d)!;
    return subtract(p.ranges, p.except);
  });
  const cuts = insides.flat();
  const intervals: Record<Family, Interval[]> = { 4: elementaryIntervals(4, cuts), 6: elementaryIntervals(6, cuts) };
  const classOf: Record<Family, Int32Array> = { 4: new Int32Array(intervals[4].length), 6: new Int32Array(intervals[6].length) };
  // Partition refinement: every interval starts in class 0; each peer moves the intervals it
  // contains from class c to a class of their own, c' (one per c and peer). Intervals end in
  // one class iff every peer contains both or neither. Each interval is wholly in or out of a
  // peer, its boundaries being cuts. Cost: the intervals each peer contains, summed.
  let next = 1;
  for (const inside of insides) {
    const moved = new Map<number, number>();
    for (const r of inside) {
      const [list, classes] = [intervals[r.family], classOf[r.family]];
      for (let i = intervalIndex(list, r.lo); i < list.length && list[i]!.lo <= r.hi; i++) {
        const from = classes[i]!;
        let to = moved.get(from);
        if (to === undefined) moved.set(from, (to = next++));
        classes[i] = to;
      }
    }
  }
  // Class numbers by first interval (IPv4 first), so equal peers give equal numbers.
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
