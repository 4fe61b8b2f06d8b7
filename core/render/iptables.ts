// Renders the set form for iptables, one artifact per node: an `ipset restore` payload with
// every set the node's pods need, and iptables-restore / ip6tables-restore payloads that match
// them with `-m set --match-set`. A chain per table with a chain per later tier (Pass is a
// goto), dispatch chains from a local pod's address to its table chain, and two entry chains.
//
// Living with others (kube-proxy, CNI plugins): every chain is netpolc's own (NETPOLC-*, NPC-*),
// restored with --noflush, so a restore flushes and refills only chains it declares and never
// touches anyone else's. The built-in chains reach them through one jump each (`hooks`), which
// the applier inserts once if missing (`iptables -C … || iptables -I …`): iptables-restore has no
// "ensure this rule exists", and appending the jump in the payload would stack a copy per apply.
//
// ipset: each set is filled in a temporary set and swapped in, so packets never see a set half
// filled (ipset restore applies line by line, it is not one transaction).
import type { Family } from '../net/ip.js';
import type { IrSet, PortSpec, RuleTable, SetIr, SetNode, SetRule } from '../sets/ir.js';
import { DISPATCH_CHAINS, ENTRY_CHAINS, iptablesSimulator } from './iptables-sim.js';
import { renderEachSetNode, type SetDataplane } from './types.js';
import { podEntries } from './pod-entries.js';
import { iptablesText } from './quote.js';

export interface IptablesArtifact {
  /** `ipset restore` input: every set the node's pods need, filled atomically (temporary set + swap). */
  readonly ipset: string;
  /** `iptables-restore --noflush` input. */
  readonly ipv4: string;
  /** `ip6tables-restore --noflush` input. */
  readonly ipv6: string;
  /** Rules to insert once in the built-in chains (check with -C first), per family. */
  readonly hooks: readonly string[];
}

/** ipset names are at most 31 characters: `npc-` + the set id (17) + `-4`/`-6`. */
export const ipsetName = (id: string, family: Family, temporary = false) => `${temporary ? 'npt' : 'npc'}-${id}-${family}`;

/** iptables chain names are at most 28 characters; table ids are 17. */
export function chainOf(tableId: string, tier: 'admin' | 'np' | 'baseline' = 'admin'): string {
  const name = `NPC-${tableId}${tier === 'admin' ? '' : tier === 'np' ? '-NP' : '-BL'}`;
  if (name.length > 28 || !/^[\w-]+$/.test(name)) throw new Error(`table id "${tableId}" does not make an iptables chain name`);
  return name;
}

/** hash:net takes prefixes 1–32 (1–128): a whole family is its two halves. */
export function netElements(cidrs: readonly string[], family: Family): string[] {
  return cidrs.flatMap((c) => (c.endsWith('/0') ? (family === 4 ? ['0.0.0.0/1', '128.0.0.0/1'] : ['::/1', '8000::/1']) : [c]));
}

export function ipsetLines(id: string, set: IrSet): string[] {
  const out: string[] = [];
  for (const family of [4, 6] as const) {
    const type = set.kind === 'addresses' ? 'hash:net' : 'hash:ip,port';
    const create = (name: string) => `create ${name} ${type} family ${family === 4 ? 'inet' : 'inet6'} -exist`;
    const [name, temp] = [ipsetName(id, family), ipsetName(id, family, true)];
    const members =
      set.kind === 'addresses'
        ? netElements(family === 4 ? set.v4 : set.v6, family)
        : set.elements.filter(([a]) => a.includes(':') === (family === 6)).map(([a, p, n]) => `${a},${p.toLowerCase()}:${n}`);
    out.push(create(name), create(temp), `flush ${temp}`, ...members.map((m) => `add ${temp} ${m}`), `swap ${temp} ${name}`, `destroy ${temp}`);
  }
  return out;
}

const portText = (lo: number, hi: number) => (lo === hi ? `${lo}` : `${lo}:${hi}`);

/** The match part of a set rule in one family: one variant per port spec (OR by writing several rules). */
function matchVariants(sets: SetIr['sets'], rule: SetRule, side: 'src' | 'dst', family: Family): string[] {
  const set = rule.set === null ? null : sets.get(rule.set);
  if (rule.set !== null && !set) throw new Error(`set form references missing set ${rule.set}`);
  // Egress named ports: the destination's address, protocol and port are one hash:ip,port lookup.
  if (set?.kind === 'ports') return [`-m set --match-set ${ipsetName(rule.set!, family)} ${side},${side}`];
  const addr = set ? `-m set --match-set ${ipsetName(rule.set!, family)} ${side}` : '';
  const ports = rule.ports === null ? [''] : rule.ports.map(([p, lo, hi]: PortSpec) => `-p ${p.toLowerCase()} -m ${p.toLowerCase()} --dport ${portText(lo, hi)}`);
  return ports.map((p) => [addr, p].filter(Boolean).join(' '));
}

function tierRules(sets: SetIr['sets'], chain: string, rules: readonly SetRule[], side: 'src' | 'dst', family: Family, target: (r: SetRule) => string): string[] {
  return rules.flatMap((r) => matchVariants(sets, r, side, family).map((m) => [`-A ${chain}`, m, target(r)].filter(Boolean).join(' ')));
}

/** A table in one family: Allow returns to the entry chain (the other side's check runs), Deny drops. */
export function tableRules(sets: SetIr['sets'], id: string, table: RuleTable, family: Family): string[] {
  const side = table.direction === 'ingress' ? 'src' : 'dst';
  const [admin, np, baseline] = [chainOf(id), chainOf(id, 'np'), chainOf(id, 'baseline')];
  return [
    ...tierRules(sets, admin, table.admin, side, family, (r) => (r.action === 'allow' ? '-j RETURN' : r.action === 'deny' ? '-j DROP' : `-g ${np}`)),
    `-A ${admin} -g ${np}`,
    // "if any NetworkPolicy selects the pod for that direction, the flow is allowed iff one of
    // their rules matches, and that answer is final"; otherwise the tier is skipped.
    ...(table.networkPolicy.isolated ? [...tierRules(sets, np, table.networkPolicy.rules, side, family, () => '-j RETURN'), `-A ${np} -j DROP`] : [`-A ${np} -g ${baseline}`]),
    // Baseline Pass goes to the default, allow: RETURN as well.
    ...tierRules(sets, baseline, table.baseline, side, family, (r) => (r.action === 'deny' ? '-j DROP' : '-j RETURN')),
  ];
}

export function dispatchRules(node: Pick<SetNode, 'pods'>, family: Family): string[] {
  const host = family === 4 ? 32 : 128;
  // -g: when the table chain returns (allowed), control goes back to the entry chain, past the dispatch.
  return podEntries(node.pods)
    .filter((e) => e.family === family)
    .flatMap((e) => [`# ${iptablesText(e.key)}`, `-A ${DISPATCH_CHAINS.egress} -s ${e.ip}/${host} -g ${chainOf(e.egress)}`, `-A ${DISPATCH_CHAINS.ingress} -d ${e.ip}/${host} -g ${chainOf(e.ingress)}`]);
}

export function renderPayload(ir: SetIr, name: string, node: SetNode, family: Family): string {
  const tables = node.tables.map((id) => {
    const table = ir.tables.get(id);
    if (!table) throw new Error(`set form node ${name} needs missing table ${id}`);
    return [id, table] as const;
  });
  const own = [ENTRY_CHAINS.forward, ENTRY_CHAINS.input, DISPATCH_CHAINS.egress, DISPATCH_CHAINS.ingress, ...tables.flatMap(([id]) => [chainOf(id), chainOf(id, 'np'), chainOf(id, 'baseline')])];
  const nodeAddresses = node.addresses.filter((a) => a.includes(':') === (family === 6));
  const lines = [
    `# netpolc: ${family === 4 ? 'iptables' : 'ip6tables'}-restore --noflush payload for node ${iptablesText(name)} (set form): only netpolc's own chains are declared, flushed and filled.`,
    '*filter',
    ...own.map((c) => `:${c} - [0:0]`),
    // Policies act on connections: replies and related ICMP of an allowed connection pass.
    `-A ${ENTRY_CHAINS.input} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`,
    // Neighbour discovery is link plumbing, not a flow: a pod must resolve its gateway.
    ...(family === 6 ? ['neighbour-solicitation', 'neighbour-advertisement'].map((t) => `-A ${ENTRY_CHAINS.input} -p ipv6-icmp -m icmp6 --icmpv6-type ${t} -j RETURN`) : []),
    `-A ${ENTRY_CHAINS.input} -j ${DISPATCH_CHAINS.egress}`,
    `-A ${ENTRY_CHAINS.forward} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`,
    `-A ${ENTRY_CHAINS.forward} -j ${DISPATCH_CHAINS.egress}`,
    // Node-local: from this node's own addresses into its pods, before the ingress side.
    ...nodeAddresses.map((a) => `-A ${ENTRY_CHAINS.forward} -s ${a}/${family === 4 ? 32 : 128} -j RETURN`),
    `-A ${ENTRY_CHAINS.forward} -j ${DISPATCH_CHAINS.ingress}`,
    ...dispatchRules(node, family),
    ...tables.flatMap(([id, t]) => tableRules(ir.sets, id, t, family)),
    'COMMIT',
  ];
  return `${lines.join('\n')}\n`;
}

export function renderIpset(ir: SetIr, name: string, node: SetNode): string {
  const lines = node.sets.flatMap((id) => {
    const set = ir.sets.get(id);
    if (!set) throw new Error(`set form node ${name} needs missing set ${id}`);
    return ipsetLines(id, set);
  });
  return `${[`# netpolc: ipset restore payload for node ${iptablesText(name)}: each set filled in a temporary set, then swapped in.`, ...lines].join('\n')}\n`;
}

/** The jumps from the built-in chains into netpolc's entry chains, inserted once (first, so a later ACCEPT does not skip them). */
export const HOOKS: readonly string[] = [`-I FORWARD 1 -j ${ENTRY_CHAINS.forward}`, `-I INPUT 1 -j ${ENTRY_CHAINS.input}`];

export const iptables: SetDataplane<IptablesArtifact> = {
  format: 'iptables',
  contentType: 'application/json',
  input: 'sets',
  render(ir: SetIr): Record<string, IptablesArtifact> {
    return renderEachSetNode(ir, (n, node) => ({ ipset: renderIpset(ir, n, node), ipv4: renderPayload(ir, n, node, 4), ipv6: renderPayload(ir, n, node, 6), hooks: HOOKS }));
  },
  simulator: iptablesSimulator,
};
