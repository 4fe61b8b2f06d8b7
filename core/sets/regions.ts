// What one table of the set form permits, as disjoint regions: per protocol, maximal port
// ranges with the same permitted peer addresses. For dataplanes that are allow-only and
// unordered (Neutron security groups) where a table's tiers cannot be written as a union of
// allows over its sets (Deny and Pass that matter). Cells: the elementary intervals cut by every
// member of the sets the table names (a ports set's addresses as points), and per protocol the
// port segments cut by every port the rules and ports sets name; the table is read once per
// cell and segment by the reference reading (simulate.ts).
import { regionsOf, type Region } from '../compile/table-eval.js';
import { elementaryIntervals, portSegments } from '../net/intervals.js';
import type { Interval } from '../net/intervals.js';
import type { Family, IpRange } from '../net/ip.js';
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
    [...cellKeys(ir, table, 4, intervals[4]), ...cellKeys(ir, table, 6, intervals[6])],
  );
}

/**
 * Per cell, which of the table's rules its addresses can match: the rules whose address set holds
 * it, and for a cell that is a ports set's element its own address (those elements decide per
 * address). Cells with equal keys get equal decisions on every port, so a table is read once per
 * key, not once per cell: one class of pods is one key, however many addresses it has. Found by
 * one sweep of each set's blocks along the cells, not a search per cell.
 */
function cellKeys(ir: SetIr, table: RuleTable, family: Family, cells: readonly Interval[]): string[] {
  const keys = cells.map(() => '');
  const rules = [...table.admin, ...table.networkPolicy.rules, ...table.baseline];
  rules.forEach((rule, i) => {
    const set = rule.set === null ? null : ir.sets.get(rule.set);
    if (set?.kind === 'addresses') {
      const blocks = memberBlocks(set).filter((b) => b.family === family).sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
      let b = 0;
      cells.forEach((cell, c) => {
        while (b < blocks.length && blocks[b]!.hi < cell.lo) b++;
        if (b < blocks.length && blocks[b]!.lo <= cell.lo) keys[c] += `${i},`;
      });
    } else if (set?.kind === 'ports') {
      const points = new Set(elementAddresses(set).filter((a) => a.family === family).map((a) => a.value));
      cells.forEach((cell, c) => {
        if (points.has(cell.lo)) keys[c] += `${i}@${cell.lo},`;
      });
    }
  });
  return keys;
}
