// "The internet" as one address: a public address that no ipBlock or networks peer of the
// snapshot tells apart from most of the public address space, so that one evaluation from it
// answers for every such address. The CIDRs peers name split the public space into pieces each
// peer treats alike; the address is taken from the piece-pattern covering the most addresses,
// and never one a pod or node holds.
import type { Cluster } from '../cluster.js';
import { namedCidrs } from '../evaluate/cidr.js';
import { formatIp, parseCidr, parseIp, rangeContains, rangeToCidrs, type Family, type IpAddr, type IpRange } from '../net/ip.js';
import { ipKey } from '../snapshot/cluster.js';

// Not reachable from the internet as a source: RFC 1918, shared (100.64/10), loopback,
// link-local, "this network", multicast and reserved. IPv6: only 2000::/3 is global unicast.
const NOT_PUBLIC_V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16', '224.0.0.0/3'].map((c) => parseCidr(c)!);
const PUBLIC_V6 = [parseCidr('2000::/3')!];
// Addresses the documentation uses for "someone on the internet", tried first.
const PREFERRED: Readonly<Record<Family, readonly string[]>> = { 4: ['203.0.113.7', '198.51.100.7', '192.0.2.7'], 6: ['2001:db8::7'] };

/** Public segments of a family, as sorted disjoint ranges. */
function publicSpace(family: Family): IpRange[] {
  if (family === 6) return PUBLIC_V6;
  const out: IpRange[] = [];
  let lo = 0n;
  for (const r of [...NOT_PUBLIC_V4].sort((a, b) => (a.lo < b.lo ? -1 : 1))) {
    if (r.lo > lo) out.push({ family: 4, lo, hi: r.lo - 1n });
    lo = r.hi + 1n > lo ? r.hi + 1n : lo;
  }
  if (lo <= 0xffffffffn) out.push({ family: 4, lo, hi: 0xffffffffn });
  return out;
}

export interface Representative {
  readonly ip: string;
  /** Named CIDRs with public addresses both in and out of them: the answer holds for addresses on the representative's side. */
  readonly outside: readonly string[];
  readonly inside: readonly string[];
}

const overlaps = (a: IpRange, b: IpRange) => a.lo <= b.hi && b.lo <= a.hi;
const covers = (a: IpRange, b: IpRange) => a.lo <= b.lo && b.hi <= a.hi;
const signatureOf = (named: readonly IpRange[], ip: IpAddr) => named.map((r) => (rangeContains(r, ip) ? '1' : '0')).join('');

export function representative(cluster: Cluster, family: Family): Representative {
  const space = publicSpace(family);
  const named = namedCidrs(cluster, family);
  // Cut points: where a public segment or a named range starts or ends.
  const cuts = new Set<bigint>();
  for (const r of [...space, ...named]) cuts.add(r.lo).add(r.hi + 1n);
  const points = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const size = new Map<string, bigint>();
  const widest = new Map<string, IpRange>();
  for (let i = 0; i + 1 < points.length; i++) {
    const piece: IpRange = { family, lo: points[i]!, hi: points[i + 1]! - 1n };
    if (!space.some((s) => covers(s, piece))) continue;
    const sig = signatureOf(named, { family, value: piece.lo });
    const n = piece.hi - piece.lo + 1n;
    size.set(sig, (size.get(sig) ?? 0n) + n);
    const w = widest.get(sig);
    if (!w || w.hi - w.lo + 1n < n) widest.set(sig, piece);
  }
  const sig = [...size].reduce((best, cur) => (cur[1] > best[1] ? cur : best))[0];
  const free = (ip: IpAddr) => !cluster.ipOwners.get(ipKey(ip)) && signatureOf(named, ip) === sig && space.some((s) => rangeContains(s, ip));
  const piece = widest.get(sig)!;
  let ip = PREFERRED[family].map((t) => parseIp(t)!).find(free);
  // A piece every address of which a pod or node holds is not a piece of the internet's; its first will do.
  for (let v = piece.lo + (piece.hi - piece.lo >= 7n ? 7n : 0n); !ip && v <= piece.hi; v++) if (free({ family, value: v })) ip = { family, value: v };
  ip ??= { family, value: piece.lo };
  // A named CIDR that only partly covers the public space treats some public addresses apart.
  const apart = named.filter((r) => space.some((s) => overlaps(r, s)) && !space.every((s) => covers(r, s) || !overlaps(r, s)));
  const texts = (rs: IpRange[]) => [...new Set(rs.flatMap(rangeToCidrs))];
  return { ip: formatIp(family, ip.value), outside: texts(apart.filter((r) => !rangeContains(r, ip))), inside: texts(apart.filter((r) => rangeContains(r, ip))) };
}
