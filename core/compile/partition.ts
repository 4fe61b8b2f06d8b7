// Splits a group's peer space into cells that every rule treats alike, and asks the verdict
// engine (decide.ts) once per cell and port segment. Cells, per family: the elementary
// intervals cut by every CIDR the rules mention, each split into the identity classes of the
// owners whose addresses fall in it (classes.ts), plus the interval's remaining, "external",
// addresses. A cell's addresses are a slice of its class's sorted point list, so cells are
// found by binary search, not by visiting pods.
import type { Cluster } from '../cluster.js';
import { allows, destinationOf, peerCandidates, type PeerCandidates } from '../evaluate/decide.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import { elementaryIntervals, intervalIndex, portSegments, type Interval } from '../net/intervals.js';
import type { Family, IpRange } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import { addressIndex, lowerBound, type AddressIndex } from './address-index.js';
import type { Classing } from './classes.js';
import { TableOverLimit } from './flat-limits.js';
import type { Group } from './group.js';

/**
 * A class's addresses inside one interval — members[start..end) of the class without the
 * points removed[removedStart..removedEnd) — or the interval's external rest (cls = 0).
 */
export interface Cell {
  readonly family: Family;
  readonly interval: number;
  readonly cls: number;
  readonly start: number;
  readonly end: number;
  readonly removedStart: number;
  readonly removedEnd: number;
  /** Points in the cell (0 for the external cell). */
  readonly size: number;
}

const EMPTY = new Int32Array(0);

/** Writes the points of a class cell, in address order, into out from position at; returns the next position. */
export function copyPoints(classing: Classing, cell: Cell, out: Int32Array, at: number): number {
  const list = classing.members[cell.family][cell.cls]!;
  const removed = classing.removed[cell.family].get(cell.cls) ?? EMPTY;
  let r = cell.removedStart;
  for (let q = cell.start; q < cell.end; q++) {
    const pt = list[q]!;
    if (r < cell.removedEnd && removed[r] === pt) r++;
    else out[at++] = pt;
  }
  return at;
}

export interface FamilyCells {
  readonly intervals: readonly Interval[];
  /** Point index range [pointLo, pointHi) of each interval. */
  readonly pointLo: readonly number[];
  /** Cell ids of each interval: the external cell first, then its class cells. */
  readonly cellsOf: readonly (readonly number[])[];
}

export interface Partition {
  readonly index: AddressIndex;
  readonly classing: Classing;
  readonly cells: readonly Cell[];
  readonly families: Readonly<Record<Family, FamilyCells>>;
  /** Port segments per protocol, cut at every range and named-port number that matters. */
  readonly segments: Readonly<Record<Protocol, readonly (readonly [number, number])[]>>;
  /** Offset of each protocol's segments in a verdict row. */
  readonly segmentOffset: Readonly<Record<Protocol, number>>;
  readonly segmentCount: number;
  /** verdicts[cell * segmentCount + segmentOffset[protocol] + segment] = 1 when allowed. */
  readonly verdicts: Uint8Array;
}

const namedNumbersCache = new WeakMap<Cluster, Map<string, number[]>>();

/** Every number a port name resolves to on some pod (egress named ports resolve on the destination). */
function namedPortNumbers(cluster: Cluster, name: string): number[] {
  const byName = namedNumbersCache.get(cluster) ?? namedNumbersCache.set(cluster, new Map()).get(cluster)!;
  let out = byName.get(name);
  if (!out) {
    const set = new Set<number>();
    for (const pod of cluster.pods) if (!pod.hostNetwork && pod.ips.length > 0) for (const np of pod.namedPorts) if (np.name === name) set.add(np.port);
    byName.set(name, (out = [...set].sort((a, b) => a - b)));
  }
  return out;
}

/** The first point of a class cell (cells are never empty). */
function firstPoint(classing: Classing, cell: Cell): number {
  const list = classing.members[cell.family][cell.cls]!;
  const removed = classing.removed[cell.family].get(cell.cls) ?? EMPTY;
  let r = cell.removedStart;
  for (let q = cell.start; q < cell.end; q++) {
    if (r < cell.removedEnd && removed[r] === list[q]) r++;
    else return list[q]!;
  }
  throw new Error('empty cell');
}

// Endpoints are made once per point and per interval and reused by every group: tens of
// thousands of cells per compile each need one.
const pointEndpoints = new WeakMap<AddressIndex, Record<Family, Endpoint[]>>();
const externalEndpoints = new WeakMap<readonly Interval[], Endpoint[]>();

function representative(cluster: Cluster, index: AddressIndex, classing: Classing, cell: Cell, intervals: readonly Interval[]): Endpoint {
  const family = cell.family;
  if (cell.cls === 0) {
    const byInterval = externalEndpoints.get(intervals) ?? externalEndpoints.set(intervals, []).get(intervals)!;
    return (byInterval[cell.interval] ??= { kind: 'external', ip: { family, value: intervals[cell.interval]!.lo } });
  }
  const point = firstPoint(classing, cell);
  const byPoint = pointEndpoints.get(index) ?? pointEndpoints.set(index, { 4: [], 6: [] }).get(index)!;
  let e = byPoint[family][point];
  if (!e) {
    const owner = index.families[family].owner[point]!;
    const ip = { family, value: index.families[family].values[point]! };
    e = owner < index.podCount ? { kind: 'pod', pod: cluster.pods[owner]!, ip } : { kind: 'node', node: cluster.nodes[owner - index.podCount]!, ip };
    byPoint[family][point] = e;
  }
  return e;
}

const keyCodes: number[] = [];

/**
 * A verdict row's key: the candidate hits' indexes (unique across tiers, so they name the
 * lists) as UTF-16 code units — one string per cell, not one per hit. Indexes from 0xFFFF up
 * take an escape and two units, so the code is prefix-free.
 */
function rowKey(prefix: string, cand: PeerCandidates): string {
  keyCodes.length = 0;
  for (const h of cand.admin) pushIndex(h.index);
  for (const h of cand.np) pushIndex(h.index);
  for (const h of cand.baseline) pushIndex(h.index);
  let key = prefix;
  for (let at = 0; at < keyCodes.length; at += 4096) key += String.fromCharCode.apply(null, keyCodes.slice(at, at + 4096));
  return key;
}

function pushIndex(i: number): void {
  if (i < 0xffff) keyCodes.push(i);
  else keyCodes.push(0xffff, i >>> 16, i & 0xffff);
}

// Groups share CIDR sets (an ANP's networks, the same ipBlocks in many NetworkPolicies): cut each once.
const cutsCache = new WeakMap<AddressIndex, Map<string, { intervals: Interval[]; pointLo: number[] }>>();

function cutsOf(index: AddressIndex, family: Family, ranges: readonly IpRange[]): { intervals: Interval[]; pointLo: number[] } {
  const byKey = cutsCache.get(index) ?? cutsCache.set(index, new Map()).get(index)!;
  const key = `${family}|${ranges.filter((r) => r.family === family).map((r) => `${r.lo}-${r.hi}`).join(',')}`;
  let hit = byKey.get(key);
  if (!hit) {
    const intervals = elementaryIntervals(family, ranges);
    const values = index.families[family].values;
    hit = { intervals, pointLo: intervals.map((iv) => lowerBound(values, iv.lo)) };
    byKey.set(key, hit);
  }
  return hit;
}

function familyCells(index: AddressIndex, classing: Classing, family: Family, ranges: readonly IpRange[], cells: Cell[]): FamilyCells {
  const { intervals, pointLo } = cutsOf(index, family, ranges);
  const values = index.families[family].values;
  const cellsOf: number[][] = intervals.map((_, i) => {
    cells.push({ family, interval: i, cls: 0, start: 0, end: 0, removedStart: 0, removedEnd: 0, size: 0 });
    return [cells.length - 1];
  });
  const members = classing.members[family];
  for (let c = 1; c < classing.classCount; c++) {
    const list = members[c];
    if (!list || list.length === 0) continue;
    const removed = classing.removed[family].get(c) ?? EMPTY;
    // Only the intervals the class's points span: find the first, then walk.
    let i = intervalIndex(intervals, values[list[0]!]!);
    let start = 0;
    while (start < list.length) {
      const hiPoint = i + 1 < intervals.length ? pointLo[i + 1]! : values.length;
      const end = lowerBound(list, hiPoint);
      const removedStart = lowerBound(removed, pointLo[i]!);
      const removedEnd = lowerBound(removed, hiPoint);
      const size = end - start - (removedEnd - removedStart);
      if (size > 0) {
        cells.push({ family, interval: i, cls: c, start, end, removedStart, removedEnd, size });
        cellsOf[i]!.push(cells.length - 1);
      }
      start = end;
      i++;
    }
  }
  return { intervals, pointLo, cellsOf };
}

/** Throws TableOverLimit when cells × port segments would pass `maxVerdicts`, before deciding any. */
export function partition(cluster: Cluster, group: Group, classing: Classing, maxVerdicts = Infinity): Partition {
  const index = addressIndex(cluster);
  const subject = group.representative;
  const ranges: IpRange[] = [];
  for (const r of group.rules) for (const p of r.peers) if (p.type === 'cidrs') ranges.push(...p.ranges, ...p.except);
  const cells: Cell[] = [];
  const families = { 4: familyCells(index, classing, 4, ranges, cells), 6: familyCells(index, classing, 6, ranges, cells) };

  // Port segments per protocol, cut at every range of that protocol and every number a named
  // port of the rules resolves to (on any destination pod for egress, on the subject for ingress).
  const names = new Set<string>();
  for (const r of group.rules) for (const m of r.ports ?? []) if (m.type === 'named') names.add(m.name);
  const namedNumbers: [number, number][] = [];
  for (const name of names) {
    const numbers = group.dir === 'egress' ? namedPortNumbers(cluster, name) : subject.namedPorts.filter((np) => np.name === name).map((np) => np.port);
    for (const n of numbers) namedNumbers.push([n, n]);
  }
  const segments = {} as Record<Protocol, [number, number][]>;
  const segmentOffset = {} as Record<Protocol, number>;
  let segmentCount = 0;
  for (const proto of PROTOCOLS) {
    const cuts: [number, number][] = [...namedNumbers];
    for (const r of group.rules) for (const m of r.ports ?? []) if (m.type === 'range' && m.protocol === proto) cuts.push([m.lo, m.hi]);
    segments[proto] = portSegments(cuts);
    segmentOffset[proto] = segmentCount;
    segmentCount += segments[proto].length;
  }

  // Cells whose peers match the same rules decide alike on every port: one verdict row per
  // distinct candidate list (and, for egress named ports, per destination class).
  if (cells.length * segmentCount > maxVerdicts) throw new TableOverLimit(`more than ${maxVerdicts} verdicts, one per address cell and port segment (${cells.length} × ${segmentCount}; the limit per table)`);
  const sp = group.sp;
  const verdicts = new Uint8Array(cells.length * segmentCount);
  const rows = new Map<string, number>();
  // Egress named ports resolve on the peer: its class decides too.
  const byClass = group.dir === 'egress' && names.size > 0;
  cells.forEach((cell, k) => {
    const fc = families[cell.family];
    const rep = representative(cluster, index, classing, cell, fc.intervals);
    const cand = peerCandidates(cluster, sp, rep);
    const key = rowKey(byClass ? `${cell.cls}@` : '', cand);
    const same = rows.get(key);
    if (same !== undefined) {
      verdicts.copyWithin(k * segmentCount, same * segmentCount, (same + 1) * segmentCount);
      return;
    }
    rows.set(key, k);
    const destination = destinationOf(group.dir, subject, rep);
    for (const proto of PROTOCOLS) {
      const base = k * segmentCount + segmentOffset[proto];
      const segs = segments[proto];
      for (let s = 0; s < segs.length; s++) if (allows(sp, cand, segs[s]![0], proto, destination)) verdicts[base + s] = 1;
    }
  });
  return { index, classing, cells, families, segments, segmentOffset, segmentCount, verdicts };
}
