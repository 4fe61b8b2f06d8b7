// First-match evaluation of one IR table and its decision regions: which (protocol, port
// range, peer addresses) it permits. Renderers that cannot express DENY or ranges derive
// their rules from these regions; CombineRules uses the point lookups.
import { mergeAdjacent, portSegments, type Interval } from '../net/intervals.js';
import type { Family, IpAddr, IpRange } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import type { ParsedRule } from './parsed-table.js';

const covers = (r: IpRange | null, ip: IpAddr | null) => r === null || (ip !== null && r.family === ip.family && r.lo <= ip.value && ip.value <= r.hi);

/** The first rule matching the packet, or null. */
export function firstMatch(rules: readonly ParsedRule[], src: IpAddr | null, dst: IpAddr | null, protocol: Protocol, port: number): ParsedRule | null {
  for (const r of rules) {
    if (r.rule.protocol !== 'ANY' && r.rule.protocol !== protocol) continue;
    if (r.rule.dstPortRange && (port < r.rule.dstPortRange[0] || port > r.rule.dstPortRange[1])) continue;
    if (covers(r.src, src) && covers(r.dst, dst)) return r;
  }
  return null;
}

export function permits(rules: readonly ParsedRule[], src: IpAddr | null, dst: IpAddr | null, protocol: Protocol, port: number): boolean {
  return firstMatch(rules, src, dst, protocol, port)?.rule.action === 'PERMIT';
}

/** Port segments of a protocol that every rule treats uniformly. */
export function segmentsOf(rules: readonly ParsedRule[], protocol: Protocol): [number, number][] {
  return portSegments(rules.filter((r) => (r.rule.protocol === 'ANY' || r.rule.protocol === protocol) && r.rule.dstPortRange).map((r) => r.rule.dstPortRange!));
}

const startsCache = new WeakMap<readonly ParsedRule[], Partial<Record<Protocol, readonly number[]>>>();

/** The first port of each of segmentsOf(rules, protocol), ascending from 1: once per table and protocol. */
export function segmentStarts(rules: readonly ParsedRule[], protocol: Protocol): readonly number[] {
  let byProtocol = startsCache.get(rules);
  if (!byProtocol) startsCache.set(rules, (byProtocol = {}));
  return (byProtocol[protocol] ??= segmentsOf(rules, protocol).map(([lo]) => lo));
}

/**
 * What the table decides in each segment of segmentStarts(rules, protocol) for packets from
 * `src` to `dst` (null: any). The rules that can match these addresses are picked once, not
 * scanned again for every segment.
 */
export function portVerdicts(rules: readonly ParsedRule[], src: IpAddr | null, dst: IpAddr | null, protocol: Protocol): boolean[] {
  const candidates = candidateRules(rules, src, dst, protocol);
  return segmentStarts(rules, protocol).map((port) => permits(candidates, src, dst, protocol, port));
}

/** The rules that can match packets from `src` to `dst` of `protocol` on some port, in table order: first match among them is first match in the table. */
export function candidateRules(rules: readonly ParsedRule[], src: IpAddr | null, dst: IpAddr | null, protocol: Protocol): ParsedRule[] {
  return rules.filter((r) => (r.rule.protocol === 'ANY' || r.rule.protocol === protocol) && covers(r.src, src) && covers(r.dst, dst));
}

export interface Region {
  readonly protocol: Protocol;
  readonly ports: readonly [number, number];
  /** Peer addresses, merged, in address order. */
  readonly peers: readonly (Interval & { family: Family })[];
}

/**
 * Regions from a decision per cell: for each protocol and port segment, the elementary intervals
 * whose first address is allowed (every address of a cell is decided alike), merged; consecutive
 * segments with the same peers make one region, and empty ones none. `allowedAt` is asked once
 * per cell and protocol, and what it answers once per port segment: a table reads which of its
 * rules a cell's address matches once, not once per segment.
 */
export function regionsOf(
  segments: (protocol: Protocol) => readonly (readonly [number, number])[],
  intervals: Readonly<Record<Family, readonly Interval[]>>,
  allowedAt: (family: Family, address: bigint, protocol: Protocol) => (port: number) => boolean,
  cellKeys?: readonly string[],
): Region[] {
  const out: Region[] = [];
  const cells = ([4, 6] as Family[]).flatMap((family) => intervals[family].map((iv) => ({ family, iv })));
  const n = cells.length;
  for (const protocol of PROTOCOLS) {
    const segs = segments(protocol);
    // Row s: which cells segment s allows. Equal rows are equal peers (cells are disjoint).
    const allowed = new Uint8Array(segs.length * n);
    // Cells with equal keys (cellKeys: the IPv4 intervals' then the IPv6 ones') decide alike: read once.
    const columns = new Map<string, Uint8Array>();
    cells.forEach(({ family, iv }, c) => {
      const key = cellKeys?.[c];
      let column = key === undefined ? undefined : columns.get(key);
      if (!column) {
        const at = allowedAt(family, iv.lo, protocol);
        column = new Uint8Array(segs.length);
        for (let s = 0; s < segs.length; s++) if (at(segs[s]![0])) column[s] = 1;
        if (key !== undefined) columns.set(key, column);
      }
      for (let s = 0; s < segs.length; s++) if (column[s]) allowed[s * n + c] = 1;
    });
    const row = (s: number) => allowed.subarray(s * n, (s + 1) * n);
    const emit = (ports: [number, number], cellsAllowed: Uint8Array) => {
      const peers: (Interval & { family: Family })[] = [];
      for (const family of [4, 6] as Family[]) for (const m of mergeAdjacent(cells.flatMap((cell, c) => (cell.family === family && cellsAllowed[c] ? [cell.iv] : [])))) peers.push({ family, ...m });
      if (peers.length > 0) out.push({ protocol, ports, peers });
    };
    let open: { ports: [number, number]; row: Uint8Array } | null = null;
    segs.forEach(([lo, hi], s) => {
      const r = row(s);
      if (open && sameRow(open.row, r)) open.ports = [open.ports[0], hi];
      else {
        if (open) emit(open.ports, open.row);
        open = { ports: [lo, hi], row: r };
      }
    });
    if (open) emit((open as { ports: [number, number] }).ports, (open as { row: Uint8Array }).row);
  }
  return out;
}

function sameRow(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
