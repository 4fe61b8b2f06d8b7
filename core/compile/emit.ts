// Turns a partition's verdicts into a short first-match table: disjoint exception rules over
// merged address ranges and port ranges, then one catch-all. Both a permit list (default
// DENY) and a deny list (default PERMIT) are built; the shorter one wins.
import { mergeAdjacent, type Interval } from '../net/intervals.js';
import { rangeToCidrs, type Family } from '../net/ip.js';
import { PROTOCOLS, type Direction, type Protocol } from '../policy/model.js';
import { peerRule, type IrAction, type IrProtocol, type IrRule, type PortRange } from './ir.js';
import type { Partition } from './partition.js';

interface Atom extends Interval {
  readonly family: Family;
  readonly cell: number;
}

/** The address space cut into atoms: interval pieces between enumerated points, and the points. */
function atoms(p: Partition): Atom[] {
  const out: Atom[] = [];
  for (const fam of [4, 6] as Family[]) {
    const pts = p.points.filter((pt) => pt.ip.family === fam).sort((a, b) => (a.ip.value < b.ip.value ? -1 : a.ip.value > b.ip.value ? 1 : 0));
    let k = 0;
    p.intervals[fam].forEach((iv, i) => {
      let lo = iv.lo;
      while (k < pts.length && pts[k]!.ip.value <= iv.hi) {
        const v = pts[k]!.ip.value;
        if (v > lo) out.push({ family: fam, lo, hi: v - 1n, cell: p.externalCell[fam][i]! });
        if (v >= lo) {
          out.push({ family: fam, lo: v, hi: v, cell: pts[k]!.cell });
          lo = v + 1n;
        }
        k++;
      }
      if (lo <= iv.hi) out.push({ family: fam, lo, hi: iv.hi, cell: p.externalCell[fam][i]! });
    });
  }
  // Neighbouring atoms of one cell always decide alike: merge them once, up front.
  const merged: Atom[] = [];
  for (const a of out) {
    const last = merged[merged.length - 1];
    if (last && last.family === a.family && last.cell === a.cell && last.hi + 1n === a.lo) merged[merged.length - 1] = { ...last, hi: a.hi };
    else merged.push(a);
  }
  return merged;
}

interface Entry {
  readonly protocol: IrProtocol;
  readonly ports: PortRange | null;
  readonly ranges: readonly (Interval & { family: Family })[];
}

const FULL: Record<Family, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

function networks(ranges: readonly (Interval & { family: Family })[]): string[] {
  const whole = (fam: Family) => ranges.some((r) => r.family === fam && r.lo === 0n && r.hi === FULL[fam]);
  if (whole(4) && whole(6)) return [''];
  return ranges.flatMap((r) => rangeToCidrs({ family: r.family, lo: r.lo, hi: r.hi }));
}

function exceptionEntries(p: Partition, list: readonly Atom[], deviant: (allowed: boolean) => boolean): Entry[] {
  const perProto: { protocol: Protocol; key: string; ranges: (Interval & { family: Family })[]; ports: PortRange }[] = [];
  // Which cells deviate decides the exception ranges: compute them once per distinct pattern.
  const byPattern = new Map<string, { key: string; hits: (Interval & { family: Family })[] }>();
  PROTOCOLS.forEach((proto, pi) => {
    let open: (typeof perProto)[number] | null = null;
    p.segments[proto].forEach(([lo, hi], si) => {
      const pattern = p.verdict.map((v) => (deviant(v[pi]![si]!) ? '1' : '0')).join('');
      let found = byPattern.get(pattern);
      if (!found) {
        const hits: (Interval & { family: Family })[] = [];
        for (const fam of [4, 6] as Family[]) {
          const merged = mergeAdjacent(list.filter((a) => a.family === fam && pattern.charCodeAt(a.cell) === 49));
          for (const m of merged) hits.push({ family: fam, lo: m.lo, hi: m.hi });
        }
        found = { key: hits.map((h) => `${h.family}:${h.lo}-${h.hi}`).join(','), hits };
        byPattern.set(pattern, found);
      }
      const { key, hits } = found;
      if (open && open.key === key && open.ports[1] + 1 === lo) open.ports = [open.ports[0], hi];
      else {
        if (open && open.key !== '') perProto.push(open);
        open = { protocol: proto, key, ranges: hits, ports: [lo, hi] };
      }
    });
    if (open && (open as { key: string }).key !== '') perProto.push(open);
  });
  // The same exception on the same ports for every protocol is one ANY rule.
  const byShape = new Map<string, (typeof perProto)[number][]>();
  for (const e of perProto) {
    const k = `${e.key}@${e.ports[0]}-${e.ports[1]}`;
    byShape.set(k, [...(byShape.get(k) ?? []), e]);
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

function rulesOf(entries: readonly Entry[], action: IrAction, dir: Direction): IrRule[] {
  return entries.flatMap((e) => networks(e.ranges).map((net) => peerRule(dir, action, e.protocol, net, e.ports)));
}

const catchAll = (action: IrAction): IrRule => ({ action, protocol: 'ANY', srcNetwork: '', srcPortRange: null, dstNetwork: '', dstPortRange: null });

export function emitTable(p: Partition, dir: Direction): IrRule[] {
  const list = atoms(p);
  // Permit list: PERMIT what is allowed, then DENY the rest; deny list: the other way round.
  const permitList = [...rulesOf(exceptionEntries(p, list, (ok) => ok), 'PERMIT', dir), catchAll('DENY')];
  const denyList = [...rulesOf(exceptionEntries(p, list, (ok) => !ok), 'DENY', dir), catchAll('PERMIT')];
  return denyList.length < permitList.length ? denyList : permitList;
}

