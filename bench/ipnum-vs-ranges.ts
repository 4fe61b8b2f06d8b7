// Micro-benchmark: aggregate 10k random IPv4 addresses into their minimal CIDR set
//   (a) with ip-num's own API: Pool.fromIP(IPv4[]).aggregate() → RangedSet → CIDR text;
//   (b) with the compiler's integer path: sorted bigint values → intervals →
//       core/net/intervals.ts mergeAdjacent → core/net/ip.ts rangeToCidrs.
// Both start from the same bigint values and end with CIDR strings; the two sets must be equal.
// Two inputs: "dense" (10k distinct addresses of a /18, so most merge) and "sparse" (10k of a
// /8, so almost none do). Run: `tsx bench/ipnum-vs-ranges.ts` (also part of `npm run bench`).
import { pathToFileURL } from 'node:url';
import { IPv4, Pool } from 'ip-num';
import { mergeAdjacent, type Interval } from '../core/net/intervals.js';
import { rangeToCidrs } from '../core/net/ip.js';
import { Rng } from './generate.js';

export interface MicroCase {
  readonly name: string;
  readonly addresses: number;
  readonly cidrs: number;
  /** Median of the timed repetitions, ms. */
  readonly ipNumMs: number;
  readonly rangesMs: number;
  /** ipNumMs / rangesMs. */
  readonly ratio: number;
  readonly sameSet: boolean;
  /** Timed runs of the integer path (after one warm-up) and of ip-num (no warm-up). */
  readonly repetitions: number;
  readonly ipNumRepetitions: number;
}

/** `count` distinct addresses drawn uniformly from base/prefix. */
export function randomAddresses(count: number, base: number, prefix: number, seed: number): bigint[] {
  const rng = new Rng(seed);
  const size = 2 ** (32 - prefix);
  if (count > size) throw new Error('more addresses than the block holds');
  const seen = new Set<number>();
  while (seen.size < count) seen.add(base + Math.floor(rng.next() * size));
  return [...seen].map((n) => BigInt(n >>> 0));
}

export function viaIpNum(values: readonly bigint[]): string[] {
  const pool = Pool.fromIP(values.map((v) => new IPv4(v)));
  return pool.aggregate().getRanges().map((r) => r.toCidrRange().toCidrString());
}

export function viaRanges(values: readonly bigint[]): string[] {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const intervals: Interval[] = [];
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) intervals.push({ lo: sorted[i]!, hi: sorted[i]! });
  return mergeAdjacent(intervals).flatMap((iv) => rangeToCidrs({ family: 4, lo: iv.lo, hi: iv.hi }));
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function time(fn: () => unknown, reps: number, warmUp: boolean): number {
  if (warmUp) fn(); // JIT
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

/**
 * ip-num's aggregate re-walks the whole pool once per merge level and allocates range objects
 * at every step: ~30 s for 10k addresses on a 2-core machine, so it is timed once (its first
 * run was the correctness check just before); the integer path gets a warm-up and `reps` runs.
 */
export function runMicro(reps = 5, count = 10_000, ipNumReps = 1): MicroCase[] {
  const cases = [
    { name: 'dense (10k of 10.0.0.0/18)', values: randomAddresses(count, (10 << 24) >>> 0, 18, 42) },
    { name: 'sparse (10k of 10.0.0.0/8)', values: randomAddresses(count, (10 << 24) >>> 0, 8, 43) },
  ];
  return cases.map(({ name, values }) => {
    const a = viaIpNum(values);
    const b = viaRanges(values);
    const sameSet = a.length === b.length && new Set(a).size === a.length && b.every((c) => new Set(a).has(c));
    const ipNumMs = time(() => viaIpNum(values), ipNumReps, false);
    const rangesMs = time(() => viaRanges(values), reps, true);
    return { name, addresses: values.length, cidrs: b.length, ipNumMs, rangesMs, ratio: ipNumMs / rangesMs, sameSet, repetitions: reps, ipNumRepetitions: ipNumReps };
  });
}

export function formatMicro(cases: readonly MicroCase[]): string {
  const c0 = cases[0];
  const lines = [`ip-num Pool.aggregate vs integer ranges (mergeAdjacent + rangeToCidrs); ip-num: median of ${c0?.ipNumRepetitions ?? 0} run(s), ranges: median of ${c0?.repetitions ?? 0} after a warm-up:`];
  lines.push(`  ${'input'.padEnd(30)} ${'CIDRs'.padStart(6)} ${'ip-num ms'.padStart(10)} ${'ranges ms'.padStart(10)} ${'ratio'.padStart(8)}  same set`);
  for (const c of cases) {
    lines.push(`  ${c.name.padEnd(30)} ${String(c.cidrs).padStart(6)} ${c.ipNumMs.toFixed(1).padStart(10)} ${c.rangesMs.toFixed(2).padStart(10)} ${(c.ratio.toFixed(0) + '×').padStart(8)}  ${c.sameSet ? 'yes' : 'NO'}`);
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const cases = runMicro();
  console.log(formatMicro(cases));
  if (cases.some((c) => !c.sameSet)) process.exitCode = 1;
}
