// Turns a partition's verdicts into a short first-match table: disjoint exception rules over
// merged address ranges and port ranges, then one catch-all. A permit list (default DENY) or
// a deny list (default PERMIT), whichever is shorter. Addresses come from the cells' slices
// of sorted points: the work is proportional to the rules emitted, not to the pods.
import type { Interval } from '../net/intervals.js';
import { cidrCount, rangeToCidrs, type Family } from '../net/ip.js';
import { PROTOCOLS, type Direction, type Protocol } from '../policy/model.js';
import type { IrAction, IrProtocol, PortRange } from './ir.js';
import type { RuleRun } from './runs.js';
import type { AddressIndex } from './address-index.js';
import { copyPoints, type Partition } from './partition.js';
import type { CompileScratch } from './scratch.js';
import { TableOverLimit } from './flat-limits.js';

/** A merged address range; `point` is set when it is one pod's or node's address (the common case). */
type Range = Interval & { readonly family: Family; readonly point?: number | undefined };

/** Per protocol and segment, which cells are allowed ('1') or not ('0'), one character per cell. */
function patterns(p: Partition): Record<Protocol, string[]> {
  const out = {} as Record<Protocol, string[]>;
  const n = p.cells.length;
  const codes = new Uint16Array(n);
  for (const proto of PROTOCOLS) {
    const list: string[] = (out[proto] = []);
    for (let s = 0; s < p.segments[proto].length; s++) {
      const col = p.segmentOffset[proto] + s;
      for (let k = 0; k < n; k++) codes[k] = p.verdicts[k * p.segmentCount + col] ? 49 : 48;
      let text = '';
      for (let at = 0; at < n; at += 8192) text += String.fromCharCode.apply(null, codes.subarray(at, at + 8192) as unknown as number[]);
      list.push(text);
    }
  }
  return out;
}

/** Point indexes of the given cells (class cells only), in address order, into scratch.points[0..n); returns n. */
function pointsOf(scratch: CompileScratch, p: Partition, cellIds: readonly number[], pattern: string, want: number, deviating: boolean): number {
  // cellIds[0] is the interval's external cell; the class cells follow.
  let n = 0;
  let lists = 0;
  for (let j = 1; j < cellIds.length; j++) {
    const k = cellIds[j]!;
    if ((pattern.charCodeAt(k) === want) === deviating) {
      n += p.cells[k]!.size;
      lists++;
    }
  }
  if (n === 0) return 0;
  if (scratch.points.length < n) scratch.points = new Int32Array(Math.max(n, scratch.points.length * 2));
  const points = scratch.points;
  let at = 0;
  for (let j = 1; j < cellIds.length; j++) {
    const k = cellIds[j]!;
    if ((pattern.charCodeAt(k) === want) === deviating) at = copyPoints(p.classing, p.cells[k]!, points, at);
  }
  if (lists > 1) points.subarray(0, n).sort();
  return n;
}

// One object shape for every range (mutated while merging): no per-merge allocation.
interface MutableRange {
  family: Family;
  lo: bigint;
  hi: bigint;
  point: number | undefined;
}

function pushRange(out: MutableRange[], family: Family, lo: bigint, hi: bigint, point: number | undefined): void {
  const last = out[out.length - 1];
  if (last && last.family === family && last.hi + 1n === lo) {
    last.hi = hi;
    last.point = undefined;
  } else out.push({ family, lo, hi, point });
}

/** The addresses of the cells a pattern marks with `want`, as merged ranges in address order. */
function addressesOf(scratch: CompileScratch, p: Partition, pattern: string, wantChar: string): Range[] {
  const want = wantChar.charCodeAt(0);
  const out: MutableRange[] = [];
  for (const family of [4, 6] as Family[]) {
    const fc = p.families[family];
    const { values, adjacent } = p.index.families[family];
    for (let i = 0; i < fc.intervals.length; i++) {
      const iv = fc.intervals[i]!;
      const cellIds = fc.cellsOf[i]!;
      if (pattern.charCodeAt(cellIds[0]!) === want) {
        // The whole interval but the points of cells that do not deviate.
        let cur = iv.lo;
        const n = pointsOf(scratch, p, cellIds, pattern, want, false);
        const pts = scratch.points;
        for (let q = 0; q < n; q++) {
          const v = values[pts[q]!]!;
          if (v > cur) pushRange(out, family, cur, v - 1n, undefined);
          cur = v + 1n;
        }
        if (cur <= iv.hi) pushRange(out, family, cur, iv.hi, undefined);
        continue;
      }
      const n = pointsOf(scratch, p, cellIds, pattern, want, true);
      const pts = scratch.points;
      for (let a = 0; a < n; ) {
        let b = a;
        while (b + 1 < n && pts[b + 1] === pts[b]! + 1 && adjacent[pts[b]!]) b++;
        pushRange(out, family, values[pts[a]!]!, values[pts[b]!]!, a === b ? pts[a] : undefined);
        a = b + 1;
      }
    }
  }
  return out;
}

/** Range lists by content: equal lists get one small number (0 = the empty list). */
class RangeListIds {
  private readonly buckets = new Map<number, { hits: readonly Range[]; id: number }[]>();
  private next = 1;

  idOf(hits: readonly Range[]): number {
    if (hits.length === 0) return 0;
    const h = hashRanges(hits);
    const bucket = this.buckets.get(h);
    if (bucket) {
      for (const b of bucket) if (sameRanges(b.hits, hits)) return b.id;
      bucket.push({ hits, id: this.next });
    } else this.buckets.set(h, [{ hits, id: this.next }]);
    return this.next++;
  }
}

function hashRanges(hits: readonly Range[]): number {
  let h = 0x811c9dc5 ^ hits.length;
  for (const r of hits) {
    // By address, not by point (a one-address range may or may not carry its point). Number()
    // rounds IPv6 addresses: more collisions there, which sameRanges sorts out.
    const v = (Number(r.lo) % 4294967296) ^ Math.imul(Number(r.hi) % 4294967296, 31);
    h = Math.imul(h ^ r.family, 16777619);
    h = Math.imul(h ^ v, 16777619);
  }
  return h >>> 0;
}

function sameRanges(a: readonly Range[], b: readonly Range[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.family !== y.family || x.lo !== y.lo || x.hi !== y.hi) return false;
  }
  return true;
}

interface Entry {
  readonly protocol: IrProtocol;
  readonly ports: PortRange | null;
  readonly ranges: readonly Range[];
}

const FULL: Record<Family, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

/** Host prefixes of points, formatted once per cluster: the same pod addresses recur in thousands of tables. */
const hostCidrs = new WeakMap<AddressIndex, Record<Family, string[]>>();

/** Both families entirely: one rule with network "" (any). */
function isWhole(ranges: readonly Range[]): boolean {
  let v4 = false;
  let v6 = false;
  for (const r of ranges) {
    if (r.lo !== 0n || r.hi !== FULL[r.family]) continue;
    if (r.family === 4) v4 = true;
    else v6 = true;
  }
  return v4 && v6;
}

function networks(p: Partition, ranges: readonly Range[]): string[] {
  if (isWhole(ranges)) return [''];
  const hosts = hostCidrs.get(p.index) ?? hostCidrs.set(p.index, { 4: [], 6: [] }).get(p.index)!;
  const out: string[] = [];
  for (const r of ranges) {
    if (r.point !== undefined) out.push((hosts[r.family][r.point] ??= rangeToCidrs(r)[0]!));
    else for (const c of rangeToCidrs(r)) out.push(c);
  }
  return out;
}

/** Exceptions to the catch-all: the cells whose verdict is `want`, per protocol and port range. */
function exceptionEntries(scratch: CompileScratch, p: Partition, pats: Record<Protocol, string[]>, want: string): Entry[] {
  const perProto: { protocol: Protocol; key: number; ranges: readonly Range[]; ports: PortRange }[] = [];
  // Which cells deviate decides the exception ranges: compute them once per distinct pattern.
  // Equal range lists get one small number (0 = none), so later keys are short.
  const byPattern = new Map<string, { key: number; hits: readonly Range[] }>();
  const listIds = new RangeListIds();
  for (const proto of PROTOCOLS) {
    let open: (typeof perProto)[number] | null = null;
    const segs = p.segments[proto];
    for (let si = 0; si < segs.length; si++) {
      const [lo, hi] = segs[si]!;
      const pattern = pats[proto][si]!;
      let found = byPattern.get(pattern);
      if (!found) {
        const hits = addressesOf(scratch, p, pattern, want);
        found = { key: listIds.idOf(hits), hits };
        byPattern.set(pattern, found);
      }
      const { key, hits } = found;
      if (open && open.key === key && open.ports[1] + 1 === lo) open.ports = [open.ports[0], hi];
      else {
        if (open && open.key !== 0) perProto.push(open);
        open = { protocol: proto, key, ranges: hits, ports: [lo, hi] };
      }
    }
    if (open && (open as { key: number }).key !== 0) perProto.push(open);
  }
  // The same exception on the same ports for every protocol is one ANY rule.
  const byShape = new Map<string, (typeof perProto)[number][]>();
  for (const e of perProto) {
    const k = `${e.key}@${e.ports[0]}-${e.ports[1]}`;
    const same = byShape.get(k);
    if (same) same.push(e);
    else byShape.set(k, [e]);
  }
  const out: Entry[] = [];
  for (const group of byShape.values()) {
    const ports = group[0]!.ports[0] === 1 && group[0]!.ports[1] === 65535 ? null : group[0]!.ports;
    if (group.length === PROTOCOLS.length) out.push({ protocol: 'ANY', ports, ranges: group[0]!.ranges });
    else for (const e of group) out.push({ protocol: e.protocol, ports, ranges: e.ranges });
  }
  const order: Record<IrProtocol, number> = { ANY: 0, TCP: 1, UDP: 2, SCTP: 3 };
  return out.sort((a, b) => order[a.protocol] - order[b.protocol] || (a.ports?.[0] ?? 0) - (b.ports?.[0] ?? 0));
}

/** Each entry makes at least one rule per range (one in all when it covers both families). */
function ruleLowerBound(entries: readonly Entry[]): number {
  let n = 0;
  for (const e of entries) n += isWhole(e.ranges) ? 1 : e.ranges.length;
  return n;
}

/** How many rules rulesOf will make of the entries, or `cap` once it is clear there are at least that many. */
function ruleCount(entries: readonly Entry[], cap = Infinity): number {
  let n = 0;
  for (const e of entries) {
    if (isWhole(e.ranges)) n++;
    else for (const r of e.ranges) if ((n += r.point !== undefined ? 1 : cidrCount(r, cap - n)) >= cap) return cap;
  }
  return n;
}

function runsOf(p: Partition, entries: readonly Entry[], action: IrAction, dir: Direction): RuleRun[] {
  const varies = dir === 'ingress' ? 'srcNetwork' : 'dstNetwork';
  return entries.map((e) => {
    const nets = networks(p, e.ranges);
    // One family, unless the ranges mix them or cover everything (network "").
    const family = nets[0] === '' || e.ranges.some((r) => r.family !== e.ranges[0]!.family) ? undefined : e.ranges[0]?.family;
    return { action, protocol: e.protocol, srcPortRange: null, dstPortRange: e.ports, varies, fixed: '', networks: nets, family };
  });
}

const catchAll = (action: IrAction): RuleRun => ({ action, protocol: 'ANY', srcPortRange: null, dstPortRange: null, varies: 'srcNetwork', fixed: '', networks: [''] });

/**
 * The table as runs (runs.ts): the peer network varies along each, the pod's own side is "".
 * Throws TableOverLimit when the shorter list passes `maxRules`, counted before it is written.
 */
export function emitTable(p: Partition, dir: Direction, scratch: CompileScratch, maxRules = Infinity): RuleRun[] {
  const pats = patterns(p);
  // Permit list: PERMIT what is allowed, then DENY the rest; deny list: the other way round.
  // The shorter one wins (counted before printing; a tie keeps the permit list).
  const permits = exceptionEntries(scratch, p, pats, '1');
  const denies = exceptionEntries(scratch, p, pats, '0');
  // Count the likelier winner in full, the other only as far as it could still win.
  let denyWins: boolean;
  let exceptions: number;
  if (ruleLowerBound(denies) < ruleLowerBound(permits)) {
    const d = ruleCount(denies);
    const n = ruleCount(permits, d + 1);
    denyWins = d < n;
    exceptions = denyWins ? d : n;
  } else {
    const n = ruleCount(permits);
    const d = ruleLowerBound(denies) < n ? ruleCount(denies, n) : n;
    denyWins = d < n;
    exceptions = denyWins ? d : n;
  }
  // The exceptions and the catch-all.
  if (exceptions + 1 > maxRules) throw new TableOverLimit(`more than ${maxRules} rules (the limit per node)`);
  return denyWins ? [...runsOf(p, denies, 'DENY', dir), catchAll('PERMIT')] : [...runsOf(p, permits, 'PERMIT', dir), catchAll('DENY')];
}
