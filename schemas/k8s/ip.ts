// Addresses and CIDRs as the API writes them: the one module that imports ip-num. It parses and
// validates text at the edge (the input schemas validate with it; core reads addresses with it)
// and hands on plain integers (bigint), so hot paths never touch ip-num objects. Formatting and
// range arithmetic are core's (core/net/ip.ts).
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

// Dotted-decimal IPv4 without leading zeros: the form every cluster writes. Text of this form is
// read here without ip-num (the same value: test/unit/ip-text.test.ts holds the two equal);
// anything else, including every form ip-num would reject, still goes through ip-num.
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const CANONICAL_V4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
const CANONICAL_V4_PREFIX = /^(3[0-2]|[12][0-9]|[0-9])$/;

/** The value of canonical dotted-decimal IPv4 text, or null for any other text. */
function canonicalV4(text: string): number | null {
  const m = CANONICAL_V4.exec(text);
  return m ? Number(m[1]) * 0x1000000 + Number(m[2]) * 0x10000 + Number(m[3]) * 0x100 + Number(m[4]) : null;
}

export function familyOfText(text: string): Family | null {
  if (CANONICAL_V4.test(text)) return 4;
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
  const v4 = canonicalV4(text);
  if (v4 !== null) return { family: 4, value: BigInt(v4) };
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
  const v4 = CANONICAL_V4_PREFIX.test(prefix) ? canonicalV4(text.slice(0, slash)) : null;
  if (v4 !== null) {
    // 2^(32-p) addresses from the masked address; plain numbers stay exact below 2^53.
    const size = 2 ** (32 - Number(prefix));
    const lo = v4 - (v4 % size);
    return { family: 4, lo: BigInt(lo), hi: BigInt(lo + size - 1) };
  }
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
