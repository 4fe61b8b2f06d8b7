// Renders the IR as one `nft -f` script per node: a chain per shared table, named interval
// sets where consecutive rules differ only in one network, and verdict maps from a local pod's
// address to its chain. Base chains sit where pod traffic crosses the node: forward (routed
// pod traffic, both sides) and input (pod → its own node, egress side). Node → pod traffic
// leaves through output, which is not hooked: "traffic to and from the node where a Pod is
// running is always allowed".
import type { Ir, IrNode, IrRule, PortRange } from '../compile/ir.js';
import { parseCidr, parseIp, type Family } from '../net/ip.js';
import { nftablesSimulator } from './nftables-sim.js';
import { renderEachNode, type Dataplane } from './types.js';

export const NFT_TABLE = 'inet netpolc';

/** Verdict maps: pod address → jump to the pod's table chain. */
export const POD_MAPS = {
  egress: { 4: 'pod_egress_v4', 6: 'pod_egress_v6' },
  ingress: { 4: 'pod_ingress_v4', 6: 'pod_ingress_v6' },
} as const;

// Parsing CIDR text is the renderers' hot spot; tables repeat the same few networks.
const families = new Map<string, Family>();

/** The family of an IR network, validated once per distinct text. */
export function familyOf(cidr: string): Family {
  let family = families.get(cidr);
  if (family === undefined) {
    const range = parseCidr(cidr);
    if (!range) throw new Error(`IR network "${cidr}" is not a CIDR`);
    if (families.size > 10_000) families.clear();
    families.set(cidr, (family = range.family));
  }
  return family;
}

/** Consecutive IR rules that differ only in one network: first-match order is kept by a union. */
interface RuleGroup {
  readonly rule: IrRule;
  vary: 'src' | 'dst' | null;
  readonly networks: string[];
}

const samePorts = (a: PortRange | null, b: PortRange | null) => (a === null ? b === null : b !== null && a[0] === b[0] && a[1] === b[1]);

function joinable(g: RuleGroup, r: IrRule): 'src' | 'dst' | null {
  const a = g.rule;
  if (a.action !== r.action || a.protocol !== r.protocol || !samePorts(a.srcPortRange, r.srcPortRange) || !samePorts(a.dstPortRange, r.dstPortRange)) return null;
  if (g.vary !== 'dst' && a.dstNetwork === r.dstNetwork && a.srcNetwork !== '' && r.srcNetwork !== '') return 'src';
  if (g.vary !== 'src' && a.srcNetwork === r.srcNetwork && a.dstNetwork !== '' && r.dstNetwork !== '') return 'dst';
  return null;
}

function groupRules(rules: readonly IrRule[]): RuleGroup[] {
  const groups: RuleGroup[] = [];
  for (const r of rules) {
    const last = groups.at(-1);
    const vary = last ? joinable(last, r) : null;
    if (last && vary) {
      last.vary = vary;
      last.networks.push(vary === 'src' ? r.srcNetwork : r.dstNetwork);
    } else groups.push({ rule: r, vary: null, networks: [] });
  }
  return groups;
}

const portText = (p: PortRange) => (p[0] === p[1] ? `${p[0]}` : `${p[0]}-${p[1]}`);

function protocolMatch(rule: IrRule): string[] {
  const ports = [rule.srcPortRange && `sport ${portText(rule.srcPortRange)}`, rule.dstPortRange && `dport ${portText(rule.dstPortRange)}`].filter((p): p is string => p !== null);
  if (rule.protocol === 'ANY') return ports.length === 0 ? [] : ['meta l4proto { tcp, udp, sctp }', ...ports.map((p) => `th ${p}`)];
  const proto = rule.protocol.toLowerCase();
  return ports.length === 0 ? [`meta l4proto ${proto}`] : ports.map((p) => `${proto} ${p}`);
}

interface ChainText {
  readonly sets: string[];
  readonly rules: string[];
}

/** One IR table as a chain: PERMIT returns to the caller (the other side's check), DENY drops. */
function renderChain(chain: string, rules: readonly IrRule[]): ChainText {
  const sets: string[] = [];
  const lines: string[] = [];
  groupRules(rules).forEach((g, gi) => {
    const verdict = g.rule.action === 'PERMIT' ? 'return' : 'drop';
    const tail = [...protocolMatch(g.rule), verdict];
    const fixed = (net: string, dir: 'saddr' | 'daddr') => (net === '' ? null : { family: familyOf(net), text: `${familyOf(net) === 4 ? 'ip' : 'ip6'} ${dir} ${net}` });
    if (!g.vary) {
      const src = fixed(g.rule.srcNetwork, 'saddr');
      const dst = fixed(g.rule.dstNetwork, 'daddr');
      // A rule naming one family's source and the other's destination matches no packet.
      if (src && dst && src.family !== dst.family) return;
      lines.push([src?.text, dst?.text, ...tail].filter(Boolean).join(' '));
      return;
    }
    const all = [g.vary === 'src' ? g.rule.srcNetwork : g.rule.dstNetwork, ...g.networks];
    const other = fixed(g.vary === 'src' ? g.rule.dstNetwork : g.rule.srcNetwork, g.vary === 'src' ? 'daddr' : 'saddr');
    for (const family of [4, 6] as const) {
      const nets = all.filter((n) => familyOf(n) === family);
      if (nets.length === 0 || (other && other.family !== family)) continue;
      let operand = nets[0]!;
      if (nets.length > 1) {
        operand = `${chain}_${gi}_v${family}`;
        sets.push([`\tset ${operand} {`, `\t\ttype ${family === 4 ? 'ipv4_addr' : 'ipv6_addr'}`, '\t\tflags interval', '\t\tauto-merge', `\t\telements = { ${nets.join(', ')} }`, '\t}'].join('\n'));
        operand = `@${operand}`;
      }
      const varied = `${family === 4 ? 'ip' : 'ip6'} ${g.vary === 'src' ? 'saddr' : 'daddr'} ${operand}`;
      lines.push((g.vary === 'src' ? [varied, other?.text] : [other?.text, varied]).filter(Boolean).concat(tail).join(' '));
    }
  });
  return { sets, rules: lines };
}

interface PodEntry {
  readonly key: string;
  readonly family: Family;
  readonly value: bigint;
  readonly ip: string;
  readonly ingress: string;
  readonly egress: string;
}

function podEntries(node: IrNode): PodEntry[] {
  const out: PodEntry[] = [];
  for (const [key, pod] of Object.entries(node.pods)) {
    for (const ip of pod.ips) {
      const addr = parseIp(ip);
      if (!addr) throw new Error(`IR pod ${key} has a malformed address "${ip}"`);
      out.push({ key, family: addr.family, value: addr.value, ip, ingress: pod.ingress, egress: pod.egress });
    }
  }
  return out.sort((a, b) => a.family - b.family || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

function renderMap(name: string, family: Family, entries: readonly PodEntry[], side: 'ingress' | 'egress'): string {
  const own = entries.filter((e) => e.family === family);
  const lines = [`\tmap ${name} {`, `\t\ttype ${family === 4 ? 'ipv4_addr' : 'ipv6_addr'} : verdict`];
  if (own.length > 0) lines.push('\t\telements = {', ...own.map((e) => `\t\t\t${e.ip} : jump ${e[side]}, # ${e.key}`), '\t\t}');
  return [...lines, '\t}'].join('\n');
}

/**
 * The tables local pods use, sorted. The node-global table is left out: it serves dataplanes
 * that filter one direction only, and these hook both sides of every pod.
 */
export function referencedTables(node: IrNode): string[] {
  const ids = new Set(Object.values(node.pods).flatMap((p) => [p.ingress, p.egress]));
  for (const id of ids) if (!node.tables[id]) throw new Error(`IR references missing table ${id}`);
  return [...ids].sort();
}

export function renderNode(name: string, node: IrNode): string {
  const rendered = referencedTables(node).map((id) => ({ id, ...renderChain(id, node.tables[id]!) }));
  const entries = podEntries(node);
  const egressMaps = [`\t\tip saddr vmap @${POD_MAPS.egress[4]}`, `\t\tip6 saddr vmap @${POD_MAPS.egress[6]}`];
  const out = [
    `# netpolc: nftables ruleset for node ${name}. Apply with nft -f; re-applying replaces the table atomically.`,
    // Creating then deleting makes the delete valid on a first run, all in one transaction.
    `table ${NFT_TABLE} {}`,
    `delete table ${NFT_TABLE}`,
    `table ${NFT_TABLE} {`,
    ...rendered.flatMap((c) => c.sets),
    renderMap(POD_MAPS.egress[4], 4, entries, 'egress'),
    renderMap(POD_MAPS.egress[6], 6, entries, 'egress'),
    renderMap(POD_MAPS.ingress[4], 4, entries, 'ingress'),
    renderMap(POD_MAPS.ingress[6], 6, entries, 'ingress'),
    ...rendered.map((c) => [`\tchain ${c.id} {`, ...c.rules.map((r) => `\t\t${r}`), '\t}'].join('\n')),
    '\tchain forward {',
    '\t\ttype filter hook forward priority filter; policy accept;',
    // Policies act on connections: replies and related ICMP of an allowed connection pass.
    '\t\tct state established,related accept',
    ...egressMaps,
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

export const nftables: Dataplane<string> = {
  format: 'nftables',
  contentType: 'text/plain; charset=utf-8',
  render(ir: Ir): Record<string, string> {
    return renderEachNode(ir, renderNode);
  },
  simulator: nftablesSimulator,
};
