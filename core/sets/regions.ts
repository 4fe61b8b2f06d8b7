// What one table of the set form permits, as disjoint regions: per protocol, maximal port
// ranges with the same permitted peer addresses. For dataplanes that are allow-only and
// unordered (Neutron security groups) where a table's tiers cannot be written as a union of
// allows over its sets (Deny and Pass that matter). The table's rules read an address only
// through set membership (and, for a ports set, the elements at that address), so addresses
// that every set the table names holds alike are decided alike on every port: they are one
// class (classes/addresses.ts, by partition refinement), however many pod addresses cut the
// space. The table is read once per class and protocol by the reference reading (simulate.ts),
// at each port segment cut by every port the rules and ports sets name.
import { addressSlots, refinedClasses, type AddressClasses } from '../classes/addresses.js';
import { regionsOf, type Region } from '../compile/table-eval.js';
import { portSegments } from '../net/intervals.js';
import type { IpRange } from '../net/ip.js';
import { normalise } from '../net/ranges.js';
import type { Protocol } from '../policy/model.js';
import type { AddressSet, PortSet, RuleTable, SetIr } from './ir.js';
import { elementAddresses, memberBlocks } from './parsed-sets.js';
import { SetIrSimulator } from './simulate.js';

// Per set object (sets are immutable and shared by the tables naming them): what it tells apart.
const addressRanges = new WeakMap<AddressSet, readonly IpRange[]>();
const pointGroups = new WeakMap<PortSet, readonly (readonly IpRange[])[]>();

/** An address set's members as sorted, disjoint ranges. */
function rangesOf(set: AddressSet): readonly IpRange[] {
  let ranges = addressRanges.get(set);
  if (!ranges) addressRanges.set(set, (ranges = normalise(memberBlocks(set).map(({ family, lo, hi }) => ({ family, lo, hi })))));
  return ranges;
}

/**
 * A ports set's addresses grouped by the elements they carry (protocol and port, in element
 * order): a rule over the set matches two addresses of one group on the same ports.
 */
function groupsOf(set: PortSet): readonly (readonly IpRange[])[] {
  let groups = pointGroups.get(set);
  if (!groups) {
    const addresses = elementAddresses(set);
    const byAddress = new Map<string, { ip: IpRange; ports: string }>();
    set.elements.forEach(([, protocol, port], i) => {
      const { family, value } = addresses[i]!;
      const key = `${family}:${value}`;
      const at = byAddress.get(key);
      if (at) at.ports += `,${protocol}/${port}`;
      else byAddress.set(key, { ip: { family, lo: value, hi: value }, ports: `${protocol}/${port}` });
    });
    const byPorts = new Map<string, IpRange[]>();
    for (const { ip, ports } of byAddress.values()) {
      const group = byPorts.get(ports);
      if (group) group.push(ip);
      else byPorts.set(ports, [ip]);
    }
    pointGroups.set(set, (groups = [...byPorts.values()].map(normalise)));
  }
  return groups;
}

/** Range lists with at least this many ranges are classed once for every table that names the same ones. */
export const SHARED_RANGES = 1024;
/** Classes of large lists kept at once: each holds every interval they cut (10⁵ for sets of 10⁴ pods). */
const SHARED_KEPT = 16;

/**
 * The address classes of tables' sets, for the tables of one set form: the classes of the large
 * lists a table names (the sets of broad AdminNetworkPolicy peers, which most tables share) are
 * made once and refined by each table's small lists (classes/addresses.ts refinedClasses), rather
 * than every boundary of every list sorted again per table: 10⁵ boundaries for each of 10⁴ tables
 * at L. The same classes either way, so the same regions.
 */
export class RegionClasses {
  private readonly listIds = new WeakMap<readonly IpRange[], number>();
  private listCount = 0;
  private readonly shared = new Map<string, AddressClasses>();

  /** `sharedRanges`: from how many ranges a list is large (tests take others, to reach both paths with small inputs). */
  constructor(private readonly sharedRanges = SHARED_RANGES) {}

  of(lists: readonly (readonly IpRange[])[]): AddressClasses {
    const large = lists.filter((l) => l.length >= this.sharedRanges);
    const small = lists.filter((l) => l.length < this.sharedRanges);
    const key = large.map((l) => this.idOf(l)).sort((a, b) => a - b).join(',');
    let base = this.shared.get(key);
    if (!base) {
      base = addressSlots(large);
      this.shared.set(key, base);
      if (this.shared.size > SHARED_KEPT) this.shared.delete(this.shared.keys().next().value!);
    }
    return small.length === 0 ? base : refinedClasses(base, small);
  }

  private idOf(list: readonly IpRange[]): number {
    let id = this.listIds.get(list);
    if (id === undefined) this.listIds.set(list, (id = this.listCount++));
    return id;
  }
}

export function permittedRegionsOfTable(ir: SetIr, table: RuleTable, sim: SetIrSimulator = new SetIrSimulator(ir), classes: RegionClasses = new RegionClasses()): Region[] {
  const sets: (readonly IpRange[])[] = [];
  const named = new Set<string>();
  const cuts: Record<Protocol, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  for (const rule of [...table.admin, ...table.networkPolicy.rules, ...table.baseline]) {
    for (const [p, lo, hi] of rule.ports ?? []) cuts[p].push([lo, hi]);
    if (rule.set === null) continue;
    const set = ir.sets.get(rule.set)!;
    if (set.kind === 'ports') for (const [, p, n] of set.elements) cuts[p].push([n, n]);
    if (named.has(rule.set)) continue;
    named.add(rule.set);
    if (set.kind === 'addresses') sets.push(rangesOf(set));
    else sets.push(...groupsOf(set));
  }
  // Within a class every rule answers alike, so its first address stands for it.
  return regionsOf((protocol) => portSegments(cuts[protocol]), classes.of(sets), (family, address, protocol) => {
    const at = sim.tableAt(table, { family, value: address }, protocol);
    return (port) => at(port).allowed;
  });
}
