// What one table of the set form permits, as disjoint regions: per protocol, maximal port
// ranges with the same permitted peer addresses. For dataplanes that are allow-only and
// unordered (Neutron security groups) where a table's tiers cannot be written as a union of
// allows over its sets (Deny and Pass that matter). Cells: the elementary intervals cut by every
// member of the sets the table names (a ports set's addresses as points), and per protocol the
// port segments cut by every port the rules and ports sets name; the table is read once per
// cell and segment by the reference reading (simulate.ts).
import type { Region } from '../compile/table-eval.js';
import { elementaryIntervals, mergeAdjacent, portSegments, type Interval } from '../net/intervals.js';
import { formatIp, parseAddressOrCidr, type Family, type IpRange } from '../net/ip.js';
import { PROTOCOLS } from '../policy/model.js';
import type { RuleTable, SetIr } from './ir.js';
import { SetIrSimulator } from './simulate.js';

export function permittedRegionsOfTable(ir: SetIr, table: RuleTable, sim: SetIrSimulator = new SetIrSimulator(ir)): Region[] {
  const ranges: IpRange[] = [];
  const cuts: Record<string, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  for (const rule of [...table.admin, ...table.networkPolicy.rules, ...table.baseline]) {
    for (const [p, lo, hi] of rule.ports ?? []) cuts[p]!.push([lo, hi]);
    const set = rule.set === null ? null : ir.sets[rule.set];
    if (set?.kind === 'addresses') for (const c of [...set.v4, ...set.v6]) ranges.push(parseAddressOrCidr(c)!);
    if (set?.kind === 'ports') {
      for (const [a, p, n] of set.elements) {
        ranges.push(parseAddressOrCidr(a)!);
        cuts[p]!.push([n, n]);
      }
    }
  }
  const intervals: Record<Family, Interval[]> = { 4: elementaryIntervals(4, ranges), 6: elementaryIntervals(6, ranges) };
  const out: Region[] = [];
  for (const protocol of PROTOCOLS) {
    let open: { ports: [number, number]; key: string; peers: (Interval & { family: Family })[] } | null = null;
    for (const [lo, hi] of portSegments(cuts[protocol]!)) {
      const peers: (Interval & { family: Family })[] = [];
      for (const family of [4, 6] as const) {
        // Within a cell every rule answers alike, so its first address stands for it.
        const ok = intervals[family].filter((iv) => sim.evaluateTable(table, formatIp(family, iv.lo), protocol, lo).allowed);
        for (const m of mergeAdjacent(ok)) peers.push({ family, ...m });
      }
      const key = peers.map((p) => `${p.family}:${p.lo}-${p.hi}`).join(',');
      if (open && open.key === key) open.ports = [open.ports[0], hi];
      else {
        if (open && open.key !== '') out.push({ protocol, ports: open.ports, peers: open.peers });
        open = { ports: [lo, hi], key, peers };
      }
    }
    if (open && open.key !== '') out.push({ protocol, ports: open.ports, peers: open.peers });
  }
  return out;
}
