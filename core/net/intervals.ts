// Integer interval partitions: the hot-path arithmetic of the compiler (ip-num stays at the
// parsing edge). Intervals are inclusive [lo, hi].
import { FAMILY_BITS, type Family, type IpRange } from './ip.js';

export interface Interval {
  readonly lo: bigint;
  readonly hi: bigint;
}

/** Cuts [0, 2^bits) at every range boundary; returns the elementary intervals in order. */
export function elementaryIntervals(family: Family, ranges: readonly IpRange[]): Interval[] {
  const max = (1n << BigInt(FAMILY_BITS[family])) - 1n;
  if (family === 4) return ipv4Intervals(ranges, max);
  const cuts = new Set<bigint>([0n]);
  for (const r of ranges) {
    if (r.family !== family) continue;
    cuts.add(r.lo);
    if (r.hi < max) cuts.add(r.hi + 1n);
  }
  const sorted = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.map((lo, i) => ({ lo, hi: i + 1 < sorted.length ? sorted[i + 1]! - 1n : max }));
}

/**
 * IPv4's cuts fit a double exactly (< 2^32): sorted as a Float64Array (a numeric sort in
 * native code) instead of as BigInts through a comparator, which dominated the regions of
 * tables naming sets of 10⁴ pods (openstack-sg at L).
 */
function ipv4Intervals(ranges: readonly IpRange[], max: bigint): Interval[] {
  const cuts = new Float64Array(2 * ranges.length + 1);
  let n = 1;
  for (const r of ranges) {
    if (r.family !== 4) continue;
    cuts[n++] = Number(r.lo);
    if (r.hi < max) cuts[n++] = Number(r.hi) + 1;
  }
  const sorted = cuts.subarray(0, n).sort();
  const out: Interval[] = [];
  let lo = BigInt(sorted[0]!);
  for (let i = 1; i < n; i++) {
    if (sorted[i] === sorted[i - 1]) continue;
    const next = BigInt(sorted[i]!);
    out.push({ lo, hi: next - 1n });
    lo = next;
  }
  out.push({ lo, hi: max });
  return out;
}

/** Index of the interval containing v (intervals sorted, covering the space). */
export function intervalIndex(intervals: readonly Interval[], v: bigint): number {
  let lo = 0;
  let hi = intervals.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (intervals[mid]!.lo <= v) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Port segments of [1, 65535] cut at the given inclusive ranges and single ports. */
export function portSegments(ranges: readonly (readonly [number, number])[]): [number, number][] {
  const cuts = new Set<number>([1]);
  for (const [lo, hi] of ranges) {
    cuts.add(Math.max(1, lo));
    if (hi < 65535) cuts.add(hi + 1);
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  return sorted.map((lo, i) => [lo, i + 1 < sorted.length ? sorted[i + 1]! - 1 : 65535]);
}

/** Merges sorted, disjoint intervals that touch. */
export function mergeAdjacent(list: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const iv of list) {
    const last = out[out.length - 1];
    if (last && last.hi + 1n === iv.lo) out[out.length - 1] = { lo: last.lo, hi: iv.hi };
    else out.push(iv);
  }
  return out;
}

