// What one table of the set form permits, as disjoint regions: per protocol, maximal port
// ranges with the same permitted peer addresses. For dataplanes that are allow-only and
// unordered (Neutron security groups) where a table's tiers cannot be written as a union of
// allows over its sets (Deny and Pass that matter). Cells: the elementary intervals cut by every
// member of the sets the table names (a ports set's addresses as points), and per protocol the
// port segments cut by every port the rules and ports sets name; the table is read once per
// cell and segment by the reference reading (simulate.ts).
import { regionsOf, type Region } from '../compile/table-eval.js';
import { elementaryIntervals, portSegments } from '../net/intervals.js';
import type { IpRange } from '../net/ip.js';
import type { RuleTable, SetIr } from './ir.js';
import { elementAddresses, memberBlocks } from './parsed-sets.js';
import { SetIrSimulator } from './simulate.js';

export function permittedRegionsOfTable(ir: SetIr, table: RuleTable, sim: SetIrSimulator = new SetIrSimulator(ir)): Region[] {
  const ranges: IpRange[] = [];
  const cuts: Record<string, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  for (const rule of [...table.admin, ...table.networkPolicy.rules, ...table.baseline]) {
    for (const [p, lo, hi] of rule.ports ?? []) cuts[p]!.push([lo, hi]);
    const set = rule.set === null ? null : ir.sets.get(rule.set);
    if (set?.kind === 'addresses') for (const block of memberBlocks(set)) ranges.push(block);
    if (set?.kind === 'ports') {
      const addresses = elementAddresses(set);
      set.elements.forEach(([, p, n], i) => {
        const { family, value } = addresses[i]!;
        ranges.push({ family, lo: value, hi: value });
        cuts[p]!.push([n, n]);
      });
    }
  }
  const intervals = { 4: elementaryIntervals(4, ranges), 6: elementaryIntervals(6, ranges) };
  // Within a cell every rule answers alike, so its first address stands for it.
  return regionsOf(
    (protocol) => portSegments(cuts[protocol]!),
    intervals,
    (family, address, protocol) => {
      const at = sim.tableAt(table, { family, value: address }, protocol);
      return (port) => at(port).allowed;
    },
  );
}
