// Addresses as integers: formatting (RFC 5952 for IPv6) and range arithmetic over the values the
// input grammar (schemas/k8s/ip.ts, re-exported here for core's modules) parses.
import { parseCidr, parseIp, type Family, type IpAddr, type IpRange } from '../../schemas/k8s/ip.js';

export { FAMILY_BITS, cidrHasHostBits, familyOfText, parseAddressOrCidr, parseCidr, parseIp, type Family, type IpAddr, type IpRange } from '../../schemas/k8s/ip.js';

/** A CIDR block as numbers: lo is its network address, hi its last address. */
export interface Cidr extends IpRange {
  readonly prefix: number;
}

export function formatIp(family: Family, value: bigint): string {
  if (family === 4) return formatV4(Number(value));
  const groups: string[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(((value >> s) & 0xffffn).toString(16));
  return compressIpv6(groups);
}

/**
 * formatIp's own text back to its value, without validating: for text this code printed (a
 * set's members), where ip-num's validating parser (parseIp) would cost more than the work.
 */
export function parseFormattedIp(text: string): IpAddr {
  if (!text.includes(':')) {
    const [a, b, c, d] = text.split('.').map(Number) as [number, number, number, number];
    return { family: 4, value: BigInt(((a << 24) >>> 0) + (b << 16) + (c << 8) + d) };
  }
  const gap = text.indexOf('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = gap < 0 ? groups(text) : groups(text.slice(0, gap));
  const tail = gap < 0 ? [] : groups(text.slice(gap + 2));
  let value = 0n;
  for (const g of [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail]) value = (value << 16n) | BigInt(parseInt(g, 16));
  return { family: 6, value };
}

/** A CIDR with its prefix length: parseCidr's range (host bits masked), for renderers that print blocks. */
export function parseCidrBlock(text: string): Cidr | null {
  const range = parseCidr(text);
  return range && { ...range, prefix: Number(text.slice(text.indexOf('/') + 1)) };
}

// Keyed by immutable lists (a pod's ips in either form): read once however many renderers ask.
const parsedAddressLists = new WeakMap<readonly string[], readonly (IpAddr | null)[]>();

/** Address text core printed (a pod's ips) as numbers, once per list object; null for text that is no address. */
export function parsedAddresses(texts: readonly string[]): readonly (IpAddr | null)[] {
  let parsed = parsedAddressLists.get(texts);
  if (parsed === undefined) parsedAddressLists.set(texts, (parsed = texts.map(parseIp)));
  return parsed;
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

/** Size (log2) of the largest CIDR block starting at lo (IPv6) that does not pass hi. */
function v6Block(lo: bigint, hi: bigint): number {
  let size = 0;
  while (size < 128) {
    const blockMask = (1n << BigInt(size + 1)) - 1n;
    if ((lo & blockMask) !== 0n || lo + blockMask > hi) break;
    size++;
  }
  return size;
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

/**
 * Walks the minimal list of CIDR blocks covering an inclusive interval exactly, in address order:
 * `v4(lo, size)` or `v6(lo, size)` per block of 2^size addresses. IPv4 fits a double exactly, so
 * the compiler's hottest output path avoids bigint there.
 */
function eachBlock(r: IpRange, v4: (lo: number, size: number) => void, v6: (lo: bigint, size: number) => void): void {
  if (r.family === 4) {
    let lo = Number(r.lo);
    const hi = Number(r.hi);
    while (lo <= hi) {
      const size = v4Block(lo, hi);
      v4(lo, size);
      lo += 2 ** size;
    }
    return;
  }
  let lo = r.lo;
  while (lo <= r.hi) {
    const size = v6Block(lo, r.hi);
    v6(lo, size);
    lo += 1n << BigInt(size);
  }
}

/** Splits an inclusive interval into the minimal list of CIDR blocks covering it exactly. */
export function rangeToCidrs(r: IpRange): string[] {
  const out: string[] = [];
  eachBlock(r, (lo, size) => out.push(`${formatV4(lo)}/${32 - size}`), (lo, size) => out.push(`${formatIp(6, lo)}/${128 - size}`));
  return out;
}

/** rangeToCidrs(r) as numbers: the same blocks, in the same order, for renderers that print them their own way. */
export function rangeToBlocks(r: IpRange): Cidr[] {
  const out: Cidr[] = [];
  eachBlock(
    r,
    (lo, size) => out.push({ family: 4, lo: BigInt(lo), hi: BigInt(lo + 2 ** size - 1), prefix: 32 - size }),
    (lo, size) => out.push({ family: 6, lo, hi: lo + (1n << BigInt(size)) - 1n, prefix: 128 - size }),
  );
  return out;
}

