// Neutron security groups (Kuryr's translation, seed kuryr-network-policy-spec.txt), from the set
// form. Security groups are allow-only and unordered. A table whose tiers are a union of allows
// over its sets (no Deny, no Pass that matters) is written as such: a Neutron address group per
// set and rules with `remote_address_group_id`, so a member change edits an address group, not
// the rules. Any other table becomes the regions it permits (core/sets/regions.ts): "the ip-range
// should be broken into pieces that cover the all ip-block without the exception" — here for any
// number of overlapping excepts and any Deny or Pass, the pieces kept in an address group named
// by its content, one rule per port range naming it. Node-local traffic is a group per node, on
// every port of the node.
import type { Region } from '../compile/table-eval.js';
import { parseAddressOrCidr, parseCidr, rangeToCidrs, type Family } from '../net/ip.js';
import { portableSha256Hex } from '../compile/table-id.js';
import type { RuleTable, SetIr, SetRule } from '../sets/ir.js';
import { permittedRegionsOfTable, RegionClasses } from '../sets/regions.js';
import { SetIrSimulator } from '../sets/simulate.js';
import type { DataplaneSimulator, FlowQuery, SetDataplane } from './types.js';
import { LimitError, spend, type WorkBudget } from '../limits.js';
import { printable } from '../printable.js';

export interface SecurityGroupRule {
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  /** null: any protocol. */
  readonly protocol: 'tcp' | 'udp' | 'sctp' | null;
  readonly port_range_min: number | null;
  readonly port_range_max: number | null;
  /** Exactly one of the two remotes is set. */
  readonly remote_ip_prefix: string | null;
  readonly remote_address_group_id: string | null;
}

/** A Neutron address group: one per set the node's groups name. */
export interface AddressGroup {
  readonly name: string;
  readonly description: string;
  readonly addresses: readonly string[];
}

export interface SecurityGroup {
  readonly name: string;
  readonly description: string;
  readonly security_group_rules: readonly SecurityGroupRule[];
}

export interface SecurityGroupsNode {
  readonly address_groups: readonly AddressGroup[];
  /** Complete rule sets: Neutron's default egress rules must not be added to these groups. */
  readonly security_groups: readonly SecurityGroup[];
  readonly ports: readonly { readonly pod: string; readonly fixed_ips: readonly string[]; readonly security_groups: readonly string[] }[];
}

/**
 * Rules in one security group (one table), and the addresses of the region address groups it
 * adds. Deny and Pass over sets become the regions they leave allowed: a region's addresses are
 * written once, as an address group, and each of its port ranges is one rule naming it. 60
 * AdminNetworkPolicies of 40 rules with port ranges over dual-stack pods and networks still need
 * more than this in one group, and cost seconds to write; such a table is refused as it is
 * written. The generated M snapshot's largest group has 20 rules. A node's groups are not
 * limited together: a crowded node has many groups of ordinary size.
 */
export const OPENSTACK_SG_MAX_RULES_PER_GROUP = 50_000;

const tooManyRules = (table: string) => new LimitError(`openstack-sg needs more than ${OPENSTACK_SG_MAX_RULES_PER_GROUP} security group rules and region addresses for table ${table} (the limit per group): Deny and Pass over these sets leave that many regions and addresses for allow-only security groups; nftables and iptables keep the sets and the tiers`);

const ANY_PREFIX: Record<Family, string> = { 4: '0.0.0.0/0', 6: '::/0' };
const FULL: Record<Family, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

/**
 * A region's addresses of one family: one CIDR as the rule's remote_ip_prefix, more as a Neutron
 * address group named by its content, so every region, table and node that permits the same
 * addresses shares one group (a region's peers repeat across its port ranges: written once, not
 * once per range).
 */
type RegionRemote = { readonly prefix: string } | { readonly group: AddressGroup };

/** The remotes of peer lists already seen, by their ranges. */
type RemoteCache = Map<string, RegionRemote>;

function regionRemote(peers: readonly Region['peers'][number][], family: Family, cache: RemoteCache): RegionRemote {
  const key = peers.map((p) => `${p.lo}-${p.hi}`).join(',') + `/${family}`;
  let remote = cache.get(key);
  if (!remote) {
    const whole = peers.length === 1 && peers[0]!.lo === 0n && peers[0]!.hi === FULL[family];
    const cidrs = whole ? [ANY_PREFIX[family]] : peers.flatMap((p) => rangeToCidrs({ family, lo: p.lo, hi: p.hi }));
    const name = `netpolc-region-${portableSha256Hex(cidrs.join(',')).slice(0, 16)}`;
    remote = cidrs.length === 1 ? { prefix: cidrs[0]! } : { group: { name, description: 'netpolc addresses a table permits on some ports (its regions)', addresses: cidrs } };
    cache.set(key, remote);
  }
  return remote;
}

/** Rules for the regions a table permits; `groups` gets the address groups they name. */
function regionRules(regions: readonly Region[], direction: 'ingress' | 'egress', budget: WorkBudget, cache: RemoteCache, groups: Map<string, AddressGroup>): SecurityGroupRule[] {
  const out: SecurityGroupRule[] = [];
  // All three protocols permitting the same full-port peers collapse into one protocol-less rule.
  const full = (r: Region) => r.ports[0] === 1 && r.ports[1] === 65535;
  const key = (r: Region) => r.peers.map((p) => `${p.family}:${p.lo}-${p.hi}`).join(',');
  const anyProto = new Set<string>();
  const fullByProto = regions.filter(full);
  for (const r of fullByProto) if (fullByProto.filter((x) => key(x) === key(r)).length === 3) anyProto.add(key(r));
  const emitted = new Set<string>();
  for (const r of regions) {
    const collapse = full(r) && anyProto.has(key(r));
    if (collapse && emitted.has(key(r))) continue;
    if (collapse) emitted.add(key(r));
    for (const family of [4, 6] as const) {
      const peers = r.peers.filter((p) => p.family === family);
      if (peers.length === 0) continue;
      const remote = regionRemote(peers, family, cache);
      if ('group' in remote && !groups.has(remote.group.name)) {
        // A new group's addresses are written too: counted with the rules.
        spend(budget, 'rules', remote.group.addresses.length);
        groups.set(remote.group.name, remote.group);
      }
      spend(budget, 'rules', 1);
      out.push({
        direction,
        ethertype: family === 4 ? 'IPv4' : 'IPv6',
        protocol: collapse ? null : (r.protocol.toLowerCase() as 'tcp' | 'udp' | 'sctp'),
        port_range_min: collapse || full(r) ? null : r.ports[0],
        port_range_max: collapse || full(r) ? null : r.ports[1],
        remote_ip_prefix: 'prefix' in remote ? remote.prefix : null,
        remote_address_group_id: 'group' in remote ? remote.group.name : null,
      });
    }
  }
  return out;
}

/** The allow rules a table is the union of, or null when Deny or Pass decide something. */
function unionOfAllows(table: RuleTable): readonly SetRule[] | null {
  if (table.admin.some((r) => r.action !== 'allow')) return null;
  if (table.networkPolicy.isolated) return [...table.admin, ...table.networkPolicy.rules];
  // Not isolated: the Baseline tier decides, then default allow; without a Baseline Deny all is allowed.
  return table.baseline.some((r) => r.action === 'deny') ? null : [{ action: 'allow', set: null, ports: null }];
}

const groupName = (setId: string) => `netpolc-${setId}`;

/** Rules for a union of allows: address groups for address sets, host prefixes for ports-set elements. */
function setRules(ir: SetIr, rules: readonly SetRule[], direction: 'ingress' | 'egress', used: Set<string>): SecurityGroupRule[] {
  const out: SecurityGroupRule[] = [];
  const rule = (ethertype: 'IPv4' | 'IPv6', protocol: SecurityGroupRule['protocol'], ports: readonly [number, number] | null, remote: { ip?: string; group?: string }) =>
    out.push({ direction, ethertype, protocol, port_range_min: ports?.[0] ?? null, port_range_max: ports?.[1] ?? null, remote_ip_prefix: remote.ip ?? null, remote_address_group_id: remote.group ?? null });
  for (const r of rules) {
    const set = r.set === null ? null : ir.sets.get(r.set);
    if (set?.kind === 'ports') {
      for (const [a, p, n] of set.elements) rule(a.includes(':') ? 'IPv6' : 'IPv4', p.toLowerCase() as 'tcp', [n, n], { ip: `${a}/${a.includes(':') ? 128 : 32}` });
      continue;
    }
    // An address group holds both families; a rule names one ethertype, so one rule each.
    const remotes: [('IPv4' | 'IPv6'), { ip?: string; group?: string }][] = set
      ? (used.add(r.set!), [['IPv4', { group: groupName(r.set!) }], ['IPv6', { group: groupName(r.set!) }]])
      : [['IPv4', { ip: ANY_PREFIX[4] }], ['IPv6', { ip: ANY_PREFIX[6] }]];
    for (const [ethertype, remote] of remotes) {
      if (r.ports === null) rule(ethertype, null, null, remote);
      else for (const [p, lo, hi] of r.ports) rule(ethertype, p.toLowerCase() as 'tcp', lo === 1 && hi === 65535 ? null : [lo, hi], remote);
    }
  }
  return out;
}

function render(ir: SetIr): Record<string, SecurityGroupsNode> {
  const out: Record<string, SecurityGroupsNode> = {};
  const sim = new SetIrSimulator(ir);
  // A table's rules are the same on every node that uses it: made once, with the sets they name.
  const tableRules = new Map<string, { readonly rules: SecurityGroupRule[]; readonly sets: ReadonlySet<string>; readonly regionGroups: ReadonlyMap<string, AddressGroup> }>();
  const remotes: RemoteCache = new Map();
  // Tables share the large sets of broad AdminNetworkPolicy peers: their address classes are made once.
  const classes = new RegionClasses();
  const rulesOf = (id: string) => {
    let made = tableRules.get(id);
    if (!made) {
      const table = ir.tables.get(id)!;
      const allows = unionOfAllows(table);
      const sets = new Set<string>();
      const regionGroups = new Map<string, AddressGroup>();
      // Refused as it is written, not once all of it is.
      const budget: WorkBudget = { rules: OPENSTACK_SG_MAX_RULES_PER_GROUP, lookups: Infinity, exceeded: () => tooManyRules(id) };
      made = { rules: allows ? setRules(ir, allows, table.direction, sets) : regionRules(permittedRegionsOfTable(ir, table, sim, classes), table.direction, budget, remotes, regionGroups), sets, regionGroups };
      tableRules.set(id, made);
    }
    return made;
  };
  for (const nodeName of Object.keys(ir.nodes).sort()) {
    try {
      out[nodeName] = renderNode(nodeName);
    } catch (e) {
      if (e instanceof LimitError) throw new LimitError(`node ${printable(nodeName)}: ${e.message}`);
      throw e;
    }
  }
  return out;

  function renderNode(nodeName: string): SecurityGroupsNode {
    const node = ir.nodes[nodeName]!;
    const groups = new Map<string, SecurityGroup>();
    const used = new Set<string>();
    const regionGroups = new Map<string, AddressGroup>();
    const group = (id: string) => {
      const table = ir.tables.get(id)!;
      const name = `netpolc-${id}`;
      if (!groups.has(name)) {
        const { rules, sets, regionGroups: regional } = rulesOf(id);
        for (const set of sets) used.add(set);
        for (const [groupName, g] of regional) regionGroups.set(groupName, g);
        groups.set(name, { name, description: `netpolc table ${id} (${table.direction})`, security_group_rules: rules });
      }
      return name;
    };
    // "traffic to and from the node where a Pod is running is always allowed": a group per node.
    const local = `netpolc-node-${printable(nodeName)}`;
    groups.set(local, {
      name: local,
      description: `node-local traffic into pods of node ${printable(nodeName)}`,
      security_group_rules: node.addresses.map((a) => ({ direction: 'ingress' as const, ethertype: a.includes(':') ? ('IPv6' as const) : ('IPv4' as const), protocol: null, port_range_min: null, port_range_max: null, remote_ip_prefix: `${a}/${a.includes(':') ? 128 : 32}`, remote_address_group_id: null })),
    });
    const ports = Object.entries(node.pods).map(([pod, p]) => ({ pod, fixed_ips: p.ips, security_groups: [group(p.ingress), group(p.egress), local] }));
    const addressGroups: AddressGroup[] = [...used].sort().map((id) => {
      const set = ir.sets.get(id)!;
      return { name: groupName(id), description: `netpolc set ${id}`, addresses: set.kind === 'addresses' ? [...set.v4, ...set.v6] : [] };
    });
    for (const name of [...regionGroups.keys()].sort()) addressGroups.push(regionGroups.get(name)!);
    return { address_groups: addressGroups, security_groups: [...groups.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), ports };
  }
}

function simulator(rendered: Record<string, SecurityGroupsNode>): DataplaneSimulator {
  const groups = new Map<string, SecurityGroup>();
  const addressGroups = new Map<string, ReturnType<typeof parseAddressOrCidr>[]>();
  const portByIp = new Map<string, { pod: string; groups: string[] }>();
  // Groups are per node (node-local), so a port's groups are looked up on its own node's list.
  for (const [nodeName, node] of Object.entries(rendered)) {
    for (const g of node.security_groups) groups.set(`${nodeName}/${g.name}`, g);
    for (const a of node.address_groups) addressGroups.set(`${nodeName}/${a.name}`, a.addresses.map((x) => parseAddressOrCidr(x)));
    for (const p of node.ports) for (const ip of p.fixed_ips) portByIp.set(ip, { pod: p.pod, groups: p.security_groups.map((g) => `${nodeName}/${g}`) });
  }
  // A port allows what any rule of any of its groups allows, in that direction.
  const allows = (port: { groups: string[] }, direction: 'ingress' | 'egress', remote: string, flow: FlowQuery) => {
    const ip = parseCidr(`${remote}/${remote.includes(':') ? 128 : 32}`)!;
    return port.groups.some((name) =>
      groups.get(name)!.security_group_rules.some((r) => {
        if (r.direction !== direction || r.ethertype !== (ip.family === 4 ? 'IPv4' : 'IPv6')) return false;
        if (r.protocol !== null && r.protocol !== flow.protocol.toLowerCase()) return false;
        if (r.port_range_min !== null && (flow.port < r.port_range_min || flow.port > r.port_range_max!)) return false;
        const nets = r.remote_address_group_id !== null ? addressGroups.get(`${name.slice(0, name.indexOf('/'))}/${r.remote_address_group_id}`) ?? [] : [parseCidr(r.remote_ip_prefix!)];
        return nets.some((net) => net !== null && net.family === ip.family && net.lo <= ip.lo && ip.lo <= net.hi);
      }),
    );
  };
  return {
    allowed(flow) {
      const src = portByIp.get(flow.src);
      const dst = portByIp.get(flow.dst);
      if (src && dst && src.pod === dst.pod) return true;
      return (!src || allows(src, 'egress', flow.dst, flow)) && (!dst || allows(dst, 'ingress', flow.src, flow));
    },
  };
}

export const openstackSg: SetDataplane<SecurityGroupsNode> = { format: 'openstack-sg', contentType: 'application/json', input: 'sets', render, simulator };
