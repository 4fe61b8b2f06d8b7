// The one module that imports ip-num: it parses and validates text at the edge and hands
// the rest of the core plain integers (bigint), so hot paths never touch ip-num objects.
import { IPv4, IPv4CidrRange, IPv6, IPv6CidrRange, Validator } from 'ip-num';

export type Family = 4 | 6;

/** One address: family plus its integer value. */
export interface IpAddr {
  readonly family: Family;
  readonly value: bigint;
}

/** An inclusive integer interval of addresses of one family. */
export interface IpRange {
  readonly family: Family;
  readonly lo: bigint;
  readonly hi: bigint;
}

export const FAMILY_BITS: Record<Family, number> = { 4: 32, 6: 128 };

export function familyOfText(text: string): Family | null {
  // Zones (fe80::1%eth0) name an interface, not an address: not accepted.
  if (text.includes('%')) return null;
  if (Validator.isValidIPv4String(text)[0]) return 4;
  if (Validator.isValidIPv6String(text)[0]) return 6;
  return null;
}

// Snapshots name each address twice or more (validation, then the cluster index, then rules):
// ip-num's parse is the dominant cost of reading them, so answers are kept, bounded.
const ipCache = new Map<string, IpAddr | null>();
const IP_CACHE_MAX = 200_000;

export function parseIp(text: string): IpAddr | null {
  const hit = ipCache.get(text);
  if (hit !== undefined) return hit;
  const family = familyOfText(text);
  const ip: IpAddr | null = family === 4 ? { family, value: IPv4.fromDecimalDottedString(text).getValue() } : family === 6 ? { family, value: IPv6.fromString(text).getValue() } : null;
  if (ipCache.size >= IP_CACHE_MAX) ipCache.clear();
  ipCache.set(text, ip);
  return ip;
}

/**
 * Parses CIDR notation. Host bits are allowed and masked, as Go's net.ParseCIDR does
 * (upstream e2e writes `podIP/4`). Returns null for anything that is not a CIDR.
 */
export function parseCidr(text: string): IpRange | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const prefix = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return null;
  if (Validator.isValidIPv4CidrNotation(text)[0]) {
    const r = IPv4CidrRange.fromCidr(text);
    return { family: 4, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
  }
  if (Validator.isValidIPv6CidrNotation(text)[0]) {
    const r = IPv6CidrRange.fromCidr(text);
    return { family: 6, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
  }
  return null;
}

/** True when text has host bits set beyond its prefix (valid, but worth a warning). */
export function cidrHasHostBits(text: string): boolean {
  const r = parseCidr(text);
  const ip = parseIp(text.slice(0, text.indexOf('/')));
  return r !== null && ip !== null && ip.value !== r.lo;
}

export function formatIp(family: Family, value: bigint): string {
  if (family === 4) return formatV4(Number(value));
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return compressIpv6(groups);
}

/** RFC 5952 text: lower case, no leading zeros, the longest run (≥2) of zero groups as "::". */
function compressIpv6(groups: string[]): string {
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < groups.length && groups[j] === '0') j++;
    if (j - i > bestLen) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  if (bestStart < 0) return groups.join(':');
  const head = groups.slice(0, bestStart).join(':');
  const tail = groups.slice(bestStart + bestLen).join(':');
  return `${head}::${tail}`;
}

export function formatRange(r: IpRange): string {
  return `${formatIp(r.family, r.lo)}-${formatIp(r.family, r.hi)}`;
}

export function rangeContains(r: IpRange, ip: IpAddr): boolean {
  return r.family === ip.family && r.lo <= ip.value && ip.value <= r.hi;
}

function formatV4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

/** Size (log2) of the largest CIDR block starting at lo (IPv4, as a number) that does not pass hi. */
function v4Block(lo: number, hi: number): number {
  const aligned = lo === 0 ? 32 : 31 - Math.clz32((lo & -lo) >>> 0);
  const span = hi - lo + 1;
  const fits = span >= 2 ** 32 ? 32 : 31 - Math.clz32(span);
  return aligned < fits ? aligned : fits;
}

/**
 * rangeToCidrs(r).length without formatting, or `cap` as soon as the count reaches it: lets the
 * compiler compare rule lists before printing either.
 */
export function cidrCount(r: IpRange, cap = Infinity): number {
  if (r.family !== 4) return Math.min(cap, rangeToCidrs(r).length);
  let n = 0;
  let lo = Number(r.lo);
  const hi = Number(r.hi);
  while (lo <= hi && n < cap) {
    n++;
    lo += 2 ** v4Block(lo, hi);
  }
  return n;
}

/** Splits an inclusive interval into the minimal list of CIDR blocks covering it exactly. */
export function rangeToCidrs(r: IpRange): string[] {
  const out: string[] = [];
  if (r.family === 4) {
    // IPv4 fits a double exactly: the compiler's hottest output path avoids bigint here.
    let lo = Number(r.lo);
    const hi = Number(r.hi);
    while (lo <= hi) {
      const size = v4Block(lo, hi);
      out.push(`${formatV4(lo)}/${32 - size}`);
      lo += 2 ** size;
    }
    return out;
  }
  const bits = FAMILY_BITS[r.family];
  let lo = r.lo;
  while (lo <= r.hi) {
    let size = 0;
    while (size < bits) {
      const next = size + 1;
      const blockMask = (1n << BigInt(next)) - 1n;
      if ((lo & blockMask) !== 0n) break;
      if (lo + blockMask > r.hi) break;
      size = next;
    }
    out.push(`${formatIp(r.family, lo)}/${bits - size}`);
    lo += 1n << BigInt(size);
  }
  return out;
}

// Rendered rule sets repeat the same few prefixes; simulators parse them on their hot path.
const addressOrCidrCache = new Map<string, IpRange | null>();

/** An address ("10.0.0.1", a one-address range) or a CIDR, parsed once and cached. */
export function parseAddressOrCidr(text: string): IpRange | null {
  let range = addressOrCidrCache.get(text);
  if (range === undefined) {
    const ip = text.includes('/') ? null : parseIp(text);
    range = ip ? { family: ip.family, lo: ip.value, hi: ip.value } : parseCidr(text);
    if (addressOrCidrCache.size > 10_000) addressOrCidrCache.clear();
    addressOrCidrCache.set(text, range);
  }
  return range;
}
