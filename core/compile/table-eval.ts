// First-match evaluation of one IR table and its decision regions: which (protocol, port
// range, peer addresses) it permits. Renderers that cannot express DENY or ranges derive
// their rules from these regions; CombineRules uses the point lookups.
import { portSegments, type Interval } from '../net/intervals.js';
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

/** The address space cut into intervals per family (address order, together the whole space), each with a class: every address of a class is decided alike. */
export interface ClassedIntervals {
  readonly intervals: Readonly<Record<Family, readonly Interval[]>>;
  readonly classOf: Readonly<Record<Family, Int32Array>>;
}

/**
 * Regions from a decision per address class: for each protocol and port segment, the intervals
 * whose class is allowed, merged; consecutive segments with the same decisions make one region,
 * and empty ones none. `allowedAt` is asked once per class (of each family) and protocol, at the
 * class's first address, and what it answers once per port segment; the intervals are walked once
 * per distinct row of decisions, not once per segment.
 */
export function regionsOf(
  segments: (protocol: Protocol) => readonly (readonly [number, number])[],
  space: ClassedIntervals,
  allowedAt: (family: Family, address: bigint, protocol: Protocol) => (port: number) => boolean,
): Region[] {
  // Column g: one class of one family (class numbers may be shared by the two families), numbered
  // by first interval; a class's first address stands for it.
  const reps: { family: Family; address: bigint }[] = [];
  const columns = {} as Record<Family, Int32Array>;
  const familyColumns = {} as Record<Family, [number, number]>;
  for (const family of [4, 6] as Family[]) {
    const first = reps.length;
    const [list, classes] = [space.intervals[family], space.classOf[family]];
    let top = 0;
    for (const c of classes) if (c > top) top = c;
    const columnOfClass = new Int32Array(top + 1).fill(-1);
    const column = new Int32Array(classes.length);
    for (let i = 0; i < classes.length; i++) {
      let g = columnOfClass[classes[i]!]!;
      if (g < 0) columnOfClass[classes[i]!] = g = reps.push({ family, address: list[i]!.lo }) - 1;
      column[i] = g;
    }
    columns[family] = column;
    familyColumns[family] = [first, reps.length];
  }
  const k = reps.length;
  const out: Region[] = [];
  // A row's peers depend on the row alone: found once for every protocol whose segments have it.
  const peersByRow = new Map<string, (Interval & { family: Family })[]>();
  for (const protocol of PROTOCOLS) {
    const segs = segments(protocol);
    // Row s: which classes segment s allows. Equal rows are equal peers.
    const allowed = new Uint8Array(segs.length * k);
    reps.forEach(({ family, address }, g) => {
      const at = allowedAt(family, address, protocol);
      for (let s = 0; s < segs.length; s++) if (at(segs[s]![0])) allowed[s * k + g] = 1;
    });
    const row = (s: number) => allowed.subarray(s * k, (s + 1) * k);
    const peersOf = (r: Uint8Array) => {
      const key = r.join('');
      let peers = peersByRow.get(key);
      if (!peers) {
        peers = [];
        // The intervals cut the whole space, so neighbours in the list touch: a run of allowed
        // intervals is one peer range (what mergeAdjacent would make of them).
        for (const family of [4, 6] as Family[]) {
          const list = space.intervals[family];
          const col = columns[family];
          // A family's columns are consecutive: all allowed is its whole space, none is nothing.
          const [first, end] = familyColumns[family];
          let ones = 0;
          for (let g = first; g < end; g++) ones += r[g]!;
          if (ones === 0) continue;
          if (ones === end - first) {
            peers.push({ family, lo: list[0]!.lo, hi: list[list.length - 1]!.hi });
            continue;
          }
          let start = -1;
          for (let i = 0; i <= list.length; i++) {
            const allowed = i < list.length && r[col[i]!] === 1;
            if (allowed && start < 0) start = i;
            else if (!allowed && start >= 0) {
              peers.push({ family, lo: list[start]!.lo, hi: list[i - 1]!.hi });
              start = -1;
            }
          }
        }
        peersByRow.set(key, peers);
      }
      return peers;
    };
    const emit = (ports: [number, number], r: Uint8Array) => {
      const peers = peersOf(r);
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
