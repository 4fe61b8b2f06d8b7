// Renders the set form as one `nft -f` script per node: every set the node's pods need as
// named sets (interval sets of addresses; concatenated address . protocol . port sets for
// egress named ports), one chain per table with a sub-chain per tier, and verdict maps from a
// local pod's address to its table chain. Base chains sit where pod traffic crosses the node:
// forward (routed pod traffic, both sides) and input (pod → its own node, egress side). Node →
// pod traffic leaves through output, which is not hooked, and traffic from the node's own
// addresses is accepted before the ingress side: "traffic to and from the node where a Pod is
// running is always allowed".
//
// Tiers: a table's chain is entered by `jump` from a verdict map, so `return` anywhere below
// it (reached by `goto`, which does not push) goes back to the base chain, where the other
// side's check still runs; `drop` ends the packet. Allow is `return`, Deny is `drop`, and Pass
// (KEP-2091: "skip any remaining ANP rules, and then pass execution to any NetworkPolicies")
// is a `goto` to the next tier's chain.
import type { Family } from '../net/ip.js';
import type { IrSet, PortSpec, RuleTable, SetIr, SetNode, SetRule } from '../sets/ir.js';
import { nftablesSimulator } from './nftables-sim.js';
import { renderEachSetNode, type SetDataplane } from './types.js';
import { podEntries, type PodEntry } from './pod-entries.js';
import { nftText } from './quote.js';

export const NFT_TABLE = 'inet netpolc';

/** Verdict maps: pod address → jump to the pod's table chain. */
export const POD_MAPS = {
  egress: { 4: 'pod_egress_v4', 6: 'pod_egress_v6' },
  ingress: { 4: 'pod_ingress_v4', 6: 'pod_ingress_v6' },
} as const;

/** The node's own addresses (node-local traffic). */
export const NODE_SETS = { 4: 'node_addresses_v4', 6: 'node_addresses_v6' } as const;

const IP = { 4: 'ip', 6: 'ip6' } as const;
const ADDR_TYPE = { 4: 'ipv4_addr', 6: 'ipv6_addr' } as const;
/** The nft set of one family of a set of the set form. */
export const setName = (id: string, family: Family) => `${id}_v${family}`;
/** A table's chains: its own (the Admin tier), then the NetworkPolicy and Baseline tiers. */
export const tableChains = (table: string): [string, string, string] => [table, NP_CHAIN(table), BASELINE_CHAIN(table)];
const NP_CHAIN = (table: string) => `${table}_np`;
const BASELINE_CHAIN = (table: string) => `${table}_baseline`;

function setBlock(name: string, type: string, interval: boolean, elements: readonly string[]): string {
  const lines = [`\tset ${name} {`, `\t\ttype ${type}`];
  if (interval) lines.push('\t\tflags interval');
  if (elements.length > 0) lines.push(`\t\telements = { ${elements.join(', ')} }`);
  return [...lines, '\t}'].join('\n');
}

/** A set as nft sets, one per family; empty ones too, so membership changes never rename anything. */
export function renderSet(id: string, set: IrSet): string[] {
  if (set.kind === 'addresses') return [setBlock(setName(id, 4), ADDR_TYPE[4], true, set.v4), setBlock(setName(id, 6), ADDR_TYPE[6], true, set.v6)];
  return ([4, 6] as const).map((family) =>
    setBlock(
      setName(id, family),
      `${ADDR_TYPE[family]} . inet_proto . inet_service`,
      false,
      set.elements.filter(([a]) => a.includes(':') === (family === 6)).map(([a, p, n]) => `${a} . ${p.toLowerCase()} . ${n}`),
    ),
  );
}

const portText = (lo: number, hi: number) => (lo === hi ? `${lo}` : `${lo}-${hi}`);

/** The port part of a rule: one match per protocol (OR-ed by writing one rule each). */
function portMatches(ports: readonly PortSpec[] | null): string[] {
  if (ports === null) return [''];
  const byProtocol = new Map<string, string[]>();
  for (const [p, lo, hi] of ports) (byProtocol.get(p) ?? byProtocol.set(p, []).get(p)!).push(portText(lo, hi));
  return [...byProtocol].map(([p, list]) => `meta l4proto ${p.toLowerCase()} th dport ${list.length === 1 ? list[0] : `{ ${list.join(', ')} }`}`);
}

/** nft rules for one set rule: per family of the peer set, per protocol of its ports. */
function ruleLines(sets: SetIr['sets'], rule: SetRule, peer: 'saddr' | 'daddr', verdict: string): string[] {
  const out: string[] = [];
  const set = rule.set === null ? null : sets.get(rule.set);
  if (rule.set !== null && !set) throw new Error(`set form references missing set ${rule.set}`);
  if (set?.kind === 'ports') {
    // Egress named ports: the destination's (address, protocol, port) is one set lookup.
    for (const family of [4, 6] as const) out.push(`${IP[family]} ${peer} . meta l4proto . th dport @${setName(rule.set!, family)} ${verdict}`);
    return out;
  }
  for (const ports of portMatches(rule.ports)) {
    if (set) for (const family of [4, 6] as const) out.push([`${IP[family]} ${peer} @${setName(rule.set!, family)}`, ports, verdict].filter(Boolean).join(' '));
    else out.push([ports, verdict].filter(Boolean).join(' '));
  }
  return out;
}

function chainBlock(name: string, lines: readonly string[]): string {
  return [`\tchain ${name} {`, ...lines.map((l) => `\t\t${l}`), '\t}'].join('\n');
}

const VERDICT = { allow: 'return', deny: 'drop' } as const;

/** A table as chains: admin (the table's own chain), NetworkPolicy, Baseline. */
export function renderTable(sets: SetIr['sets'], id: string, table: RuleTable): string[] {
  const peer = table.direction === 'ingress' ? 'saddr' : 'daddr';
  const np = NP_CHAIN(id);
  const baseline = BASELINE_CHAIN(id);
  const admin = table.admin.flatMap((r) => ruleLines(sets, r, peer, r.action === 'pass' ? `goto ${np}` : VERDICT[r.action]));
  // "if any NetworkPolicy selects the pod for that direction, the flow is allowed iff one of
  // their rules matches, and that answer is final"; otherwise the tier is skipped.
  const npLines = table.networkPolicy.isolated ? [...table.networkPolicy.rules.flatMap((r) => ruleLines(sets, r, peer, 'return')), 'drop'] : [`goto ${baseline}`];
  // Baseline Pass goes to the default, allow: `return` as well.
  const baselineLines = table.baseline.flatMap((r) => ruleLines(sets, r, peer, r.action === 'deny' ? 'drop' : 'return'));
  return [chainBlock(id, [...admin, `goto ${np}`]), chainBlock(np, npLines), chainBlock(baseline, baselineLines)];
}

function renderMap(name: string, family: Family, entries: readonly PodEntry[], side: 'ingress' | 'egress'): string {
  const own = entries.filter((e) => e.family === family);
  const lines = [`\tmap ${name} {`, `\t\ttype ${ADDR_TYPE[family]} : verdict`];
  if (own.length > 0) lines.push('\t\telements = {', ...own.map((e) => `\t\t\t${e.ip} : jump ${e[side]}, # ${nftText(e.key)}`), '\t\t}');
  return [...lines, '\t}'].join('\n');
}

export function renderNode(ir: SetIr, name: string, node: SetNode): string {
  const entries = podEntries(node.pods);
  const nodeAddresses = { 4: node.addresses.filter((a) => !a.includes(':')), 6: node.addresses.filter((a) => a.includes(':')) };
  const egressMaps = [`\t\tip saddr vmap @${POD_MAPS.egress[4]}`, `\t\tip6 saddr vmap @${POD_MAPS.egress[6]}`];
  const out = [
    `# netpolc: nftables ruleset for node ${nftText(name)} (set form). Apply with nft -f; re-applying replaces the table atomically.`,
    // Creating then deleting makes the delete valid on a first run, all in one transaction.
    `table ${NFT_TABLE} {}`,
    `delete table ${NFT_TABLE}`,
    `table ${NFT_TABLE} {`,
    ...node.sets.flatMap((id) => {
      const set = ir.sets.get(id);
      if (!set) throw new Error(`set form node ${name} needs missing set ${id}`);
      return renderSet(id, set);
    }),
    setBlock(NODE_SETS[4], ADDR_TYPE[4], false, nodeAddresses[4]),
    setBlock(NODE_SETS[6], ADDR_TYPE[6], false, nodeAddresses[6]),
    renderMap(POD_MAPS.egress[4], 4, entries, 'egress'),
    renderMap(POD_MAPS.egress[6], 6, entries, 'egress'),
    renderMap(POD_MAPS.ingress[4], 4, entries, 'ingress'),
    renderMap(POD_MAPS.ingress[6], 6, entries, 'ingress'),
    ...node.tables.flatMap((id) => {
      const table = ir.tables.get(id);
      if (!table) throw new Error(`set form node ${name} needs missing table ${id}`);
      return renderTable(ir.sets, id, table);
    }),
    '\tchain forward {',
    '\t\ttype filter hook forward priority filter; policy accept;',
    // Policies act on connections: replies and related ICMP of an allowed connection pass.
    '\t\tct state established,related accept',
    ...egressMaps,
    // Node-local: from this node's own addresses into its pods, before the ingress side.
    `\t\tip saddr @${NODE_SETS[4]} accept`,
    `\t\tip6 saddr @${NODE_SETS[6]} accept`,
    `\t\tip daddr vmap @${POD_MAPS.ingress[4]}`,
    `\t\tip6 daddr vmap @${POD_MAPS.ingress[6]}`,
    '\t}',
    '\tchain input {',
    '\t\ttype filter hook input priority filter; policy accept;',
    '\t\tct state established,related accept',
    // Neighbour discovery is link plumbing, not a flow: a pod must resolve its gateway.
    '\t\ticmpv6 type { nd-neighbor-solicit, nd-neighbor-advert } accept',
    ...egressMaps,
    '\t}',
    '}',
  ];
  return `${out.join('\n')}\n`;
}

export const nftables: SetDataplane<string> = {
  format: 'nftables',
  contentType: 'text/plain; charset=utf-8',
  input: 'sets',
  render(ir: SetIr): Record<string, string> {
    return renderEachSetNode(ir, (name, node) => renderNode(ir, name, node));
  },
  simulator: nftablesSimulator,
};
