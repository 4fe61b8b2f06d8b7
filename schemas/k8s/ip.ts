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

// The forms clusters write are read here without ip-num, whose parse costs ~20 µs per CIDR (the
// largest cost of reading an M-sized snapshot): dotted-decimal IPv4 without leading zeros, and
// IPv6 as lower-case hex groups with at most one '::' (no embedded IPv4, no zone). Anything
// else, including every form ip-num rejects, still goes to ip-num, so what is accepted and
// each value stay ip-num's: test/net/ip-text.property.test.ts holds the two equal. Nothing is
// cached: each text is read where it is met.
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const CANONICAL_V4 = new RegExp(`^${OCTET}\\.${OCTET}\\.${OCTET}\\.${OCTET}$`);
const V4_PREFIX = /^(3[0-2]|[12][0-9]|[0-9])$/;
const PLAIN_V6 = /^[0-9a-f:]{2,39}$/;
const V6_PREFIX = /^(12[0-8]|1[01][0-9]|[1-9]?[0-9])$/;
const V6_GROUP = /^[0-9a-f]{1,4}$/;

/** The value of canonical dotted-decimal IPv4 text, or null for any other text. */
function canonicalV4(text: string): number | null {
  const m = CANONICAL_V4.exec(text);
  return m ? Number(m[1]) * 0x1000000 + Number(m[2]) * 0x10000 + Number(m[3]) * 0x100 + Number(m[4]) : null;
}

/** The value of plain IPv6 text (hex groups, at most one '::'), or null for any other text. */
function plainV6(text: string): bigint | null {
  if (!PLAIN_V6.test(text)) return null;
  const gap = text.indexOf('::');
  if (gap >= 0 && text.indexOf('::', gap + 1) >= 0) return null;
  const head = gap < 0 ? text.split(':') : gap === 0 ? [] : text.slice(0, gap).split(':');
  const tail = gap < 0 || gap + 2 === text.length ? [] : text.slice(gap + 2).split(':');
  if (gap < 0 ? head.length !== 8 : head.length + tail.length > 7) return null;
  if (!head.every((g) => V6_GROUP.test(g)) || !tail.every((g) => V6_GROUP.test(g))) return null;
  const groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return BigInt(`0x${groups.map((g) => g.padStart(4, '0')).join('')}`);
}

export function familyOfText(text: string): Family | null {
  if (CANONICAL_V4.test(text)) return 4;
  if (plainV6(text) !== null) return 6;
  // Zones (fe80::1%eth0) name an interface, not an address: not accepted.
  if (text.includes('%')) return null;
  if (Validator.isValidIPv4String(text)[0]) return 4;
  if (Validator.isValidIPv6String(text)[0]) return 6;
  return null;
}

export function parseIp(text: string): IpAddr | null {
  const v4 = canonicalV4(text);
  if (v4 !== null) return { family: 4, value: BigInt(v4) };
  const v6 = plainV6(text);
  if (v6 !== null) return { family: 6, value: v6 };
  const family = familyOfText(text);
  try {
    return family === 4 ? { family, value: IPv4.fromDecimalDottedString(text).getValue() } : family === 6 ? { family, value: IPv6.fromString(text).getValue() } : null;
  } catch {
    return null; // validated by ip-num, then refused by its constructor: not an address
  }
}

/**
 * Parses CIDR notation. Host bits are allowed and masked, as Go's net.ParseCIDR does
 * (upstream e2e writes `podIP/4`). Returns null for anything that is not a CIDR.
 */
export function parseCidr(text: string): IpRange | null {
  const slash = text.indexOf('/');
  if (slash < 0) return null;
  const prefix = text.slice(slash + 1);
  const v4 = V4_PREFIX.test(prefix) ? canonicalV4(text.slice(0, slash)) : null;
  if (v4 !== null) {
    // 2^(32-p) addresses from the masked address; plain numbers stay exact below 2^53.
    const size = 2 ** (32 - Number(prefix));
    const lo = v4 - (v4 % size);
    return { family: 4, lo: BigInt(lo), hi: BigInt(lo + size - 1) };
  }
  const v6 = V6_PREFIX.test(prefix) ? plainV6(text.slice(0, slash)) : null;
  if (v6 !== null) {
    const host = (1n << BigInt(128 - Number(prefix))) - 1n;
    return { family: 6, lo: v6 & ~host, hi: (v6 & ~host) | host };
  }
  // A zone names an interface, not a network: Go's net.ParseCIDR rejects it, and ip-num's
  // validator passes some zoned texts its constructor then throws on (`fe80::1%eth0/129`).
  if (!/^\d{1,3}$/.test(prefix) || text.includes('%')) return null;
  const address = text.slice(0, slash);
  if (address.includes(':') && address.includes('.')) return embeddedV4Cidr(address, prefix);
  return ipNumCidr(text);
}

/**
 * IPv6 written with a dotted IPv4 tail (`64:ff9b::192.0.2.1/128`, NAT64's well-known prefix):
 * Go's net.ParseCIDR (NetworkPolicy ipBlock) and the CRDs' isCIDR (netip.ParsePrefix) accept it;
 * ip-num's CIDR validator does not, though its address parser does (parseIp). An IPv4-mapped
 * address (`::ffff:10.0.0.0/104`) stays refused, as isCIDR refuses it ("IPv4-mapped IPv6 address
 * … is not allowed"): it would name IPv4 traffic in IPv6 text.
 */
function embeddedV4Cidr(address: string, prefix: string): IpRange | null {
  if (!V6_PREFIX.test(prefix)) return null;
  const ip = parseIp(address);
  if (ip === null || ip.family !== 6 || ip.value >> 32n === 0xffffn) return null;
  const host = (1n << BigInt(128 - Number(prefix))) - 1n;
  return { family: 6, lo: ip.value & ~host, hi: (ip.value & ~host) | host };
}

/** A CIDR as ip-num reads it; null where it rejects the text, whether by its validator or its constructor. */
function ipNumCidr(text: string): IpRange | null {
  try {
    if (Validator.isValidIPv4CidrNotation(text)[0]) {
      const r = IPv4CidrRange.fromCidr(text);
      return { family: 4, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
    }
    if (Validator.isValidIPv6CidrNotation(text)[0]) {
      const r = IPv6CidrRange.fromCidr(text);
      return { family: 6, lo: r.getFirst().getValue(), hi: r.getLast().getValue() };
    }
  } catch {
    return null;
  }
  return null;
}

/** True when text has host bits set beyond its prefix (valid, but worth a warning). */
export function cidrHasHostBits(text: string): boolean {
  const r = parseCidr(text);
  const ip = parseIp(text.slice(0, text.indexOf('/')));
  return r !== null && ip !== null && ip.value !== r.lo;
}

/** An address ("10.0.0.1", a one-address range) or a CIDR. */
export function parseAddressOrCidr(text: string): IpRange | null {
  const ip = text.includes('/') ? null : parseIp(text);
  return ip ? { family: ip.family, lo: ip.value, hi: ip.value } : parseCidr(text);
}
