// Addresses as rules read them: only through CIDR peers (ranges and excepts), so an address
// matters by the elementary interval of the rules' CIDR cuts it falls in, and one address
// per interval and family that no pod or node owns stands for every address outside the
// cluster there.
import type { Cluster } from '../cluster.js';
import { elementaryIntervals, intervalIndex, type Interval } from '../net/intervals.js';
import type { Family, IpAddr, IpRange } from '../net/ip.js';
import type { Rule } from '../policy/model.js';
import { ipKey } from '../snapshot/cluster.js';

/** Every range and except of the rules' CIDR peers: where an address starts to matter differently. */
export function cidrCuts(rules: readonly Rule[]): IpRange[] {
  const out: IpRange[] = [];
  for (const r of rules) for (const p of r.peers) if (p.type === 'cidrs') out.push(...p.ranges, ...p.except);
  return out;
}

/** Cuts as one string, equal for equal sets of cuts (to memoise what is built from them). */
export const cutsKey = (cuts: readonly IpRange[]): string => cuts.map((r) => `${r.family}:${r.lo}-${r.hi}`).sort().join(',');

/** The elementary intervals of a set of cuts, per family, and each address's interval as a key. */
export interface AddressSlots {
  readonly intervals: Readonly<Record<Family, readonly Interval[]>>;
  /** "family:interval index": equal for addresses no cut tells apart. */
  readonly slot: (ip: IpAddr) => string;
}

export function addressSlots(cuts: readonly IpRange[]): AddressSlots {
  const intervals: Record<Family, Interval[]> = { 4: elementaryIntervals(4, cuts), 6: elementaryIntervals(6, cuts) };
  return { intervals, slot: (ip) => `${ip.family}:${intervalIndex(intervals[ip.family], ip.value)}` };
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

/** One unowned address per interval (IPv4 first, then IPv6), with its interval; intervals owned throughout have none. */
export function externalRepresentatives(clusters: readonly Cluster[], slots: AddressSlots): { readonly family: Family; readonly interval: Interval; readonly ip: IpAddr }[] {
  const out: { family: Family; interval: Interval; ip: IpAddr }[] = [];
  for (const family of [4, 6] as const) {
    for (const interval of slots.intervals[family]) {
      const ip = unownedAddress(clusters, family, interval);
      if (ip) out.push({ family, interval, ip });
    }
  }
  return out;
}
