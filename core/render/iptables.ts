// Renders the IR as iptables-restore / ip6tables-restore payloads, one pair per node: a chain
// per shared table, dispatch chains that send a local pod's address to its table chain, and the
// hooks in FORWARD (routed pod traffic, both sides) and INPUT (pod → its own node, egress side).
// Node → pod traffic leaves through OUTPUT, which stays open ("traffic to and from the node
// where a Pod is running is always allowed").
//
// Layout: a full `*filter` table, applied WITHOUT --noflush. iptables-restore has no "ensure
// this rule exists": with --noflush our own chains are flushed by their `:CHAIN` lines, but the
// jumps from FORWARD/INPUT would be appended again on every apply (and a `-D` of a jump that is
// not there aborts the whole restore). Replacing the filter table is atomic and idempotent; the
// price is that this payload owns the node's filter table. Where other writers share it, use
// the nftables renderer, which owns a table of its own.
import type { Ir, IrNode, IrRule, PortRange } from '../compile/ir.js';
import { parseIp, type Family } from '../net/ip.js';
import { DISPATCH_CHAINS, iptablesSimulator } from './iptables-sim.js';
import { familyOf, referencedTables } from './flat-tables.js';
import { renderEachNode, type Dataplane } from './types.js';

export interface IptablesPayloads {
  readonly ipv4: string;
  readonly ipv6: string;
}

/** iptables chain names are at most 28 characters; table ids are 17. */
export function chainOf(tableId: string): string {
  const name = `NPC-${tableId}`;
  if (name.length > 28 || !/^[\w-]+$/.test(name)) throw new Error(`table id "${tableId}" does not make an iptables chain name`);
  return name;
}

const portText = (p: PortRange) => (p[0] === p[1] ? `${p[0]}` : `${p[0]}:${p[1]}`);

/** The protocol part of a rule: one variant per protocol (ANY with ports is TCP, UDP and SCTP). */
function protocolVariants(rule: IrRule): string[] {
  const ports = [rule.srcPortRange && `--sport ${portText(rule.srcPortRange)}`, rule.dstPortRange && `--dport ${portText(rule.dstPortRange)}`].filter((p): p is string => p !== null);
  if (rule.protocol === 'ANY' && ports.length === 0) return [''];
  const protocols = rule.protocol === 'ANY' ? ['tcp', 'udp', 'sctp'] : [rule.protocol.toLowerCase()];
  return protocols.map((p) => [`-p ${p}`, ...(ports.length > 0 ? [`-m ${p}`, ...ports] : [])].join(' '));
}

/** One IR table in one family: PERMIT returns to the caller (the other side's check), DENY drops. */
function chainRules(chain: string, rules: readonly IrRule[], family: Family): string[] {
  const out: string[] = [];
  for (const rule of rules) {
    const nets = [rule.srcNetwork && `-s ${rule.srcNetwork}`, rule.dstNetwork && `-d ${rule.dstNetwork}`];
    // A rule about the other family's addresses matches nothing here.
    if ([rule.srcNetwork, rule.dstNetwork].some((n) => n !== '' && familyOf(n) !== family)) continue;
    const target = rule.action === 'PERMIT' ? '-j RETURN' : '-j DROP';
    for (const proto of protocolVariants(rule)) out.push([`-A ${chain}`, ...nets, proto, target].filter(Boolean).join(' '));
  }
  return out;
}

function dispatchRules(node: IrNode, family: Family): string[] {
  const entries = Object.entries(node.pods).flatMap(([key, pod]) =>
    pod.ips.flatMap((ip) => {
      const addr = parseIp(ip);
      if (!addr) throw new Error(`IR pod ${key} has a malformed address "${ip}"`);
      return addr.family === family ? [{ key, ip, value: addr.value, pod }] : [];
    }),
  );
  entries.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const host = family === 4 ? 32 : 128;
  // -g: when the table chain returns (PERMIT), control goes back to FORWARD/INPUT, past the dispatch.
  return entries.flatMap((e) => [
    `# ${e.key}`,
    `-A ${DISPATCH_CHAINS.egress} -s ${e.ip}/${host} -g ${chainOf(e.pod.egress)}`,
    `-A ${DISPATCH_CHAINS.ingress} -d ${e.ip}/${host} -g ${chainOf(e.pod.ingress)}`,
  ]);
}

export function renderPayload(name: string, node: IrNode, family: Family): string {
  const ids = referencedTables(node);
  const lines = [
    `# netpolc: ${family === 4 ? 'iptables' : 'ip6tables'}-restore payload for node ${name}. Apply without --noflush: it replaces the filter table.`,
    '*filter',
    ':INPUT ACCEPT [0:0]',
    ':FORWARD ACCEPT [0:0]',
    ':OUTPUT ACCEPT [0:0]',
    `:${DISPATCH_CHAINS.egress} - [0:0]`,
    `:${DISPATCH_CHAINS.ingress} - [0:0]`,
    ...ids.map((id) => `:${chainOf(id)} - [0:0]`),
    // Policies act on connections: replies and related ICMP of an allowed connection pass.
    '-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    // Neighbour discovery is link plumbing, not a flow: a pod must resolve its gateway.
    ...(family === 6 ? ['neighbour-solicitation', 'neighbour-advertisement'].map((t) => `-A INPUT -p ipv6-icmp -m icmp6 --icmpv6-type ${t} -j ACCEPT`) : []),
    `-A INPUT -j ${DISPATCH_CHAINS.egress}`,
    '-A FORWARD -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    `-A FORWARD -j ${DISPATCH_CHAINS.egress}`,
    `-A FORWARD -j ${DISPATCH_CHAINS.ingress}`,
    ...dispatchRules(node, family),
    ...ids.flatMap((id) => chainRules(chainOf(id), node.tables[id]!, family)),
    'COMMIT',
  ];
  return `${lines.join('\n')}\n`;
}

export const iptables: Dataplane<IptablesPayloads> = {
  format: 'iptables',
  contentType: 'application/json',
  render(ir: Ir): Record<string, IptablesPayloads> {
    return renderEachNode(ir, (n, node) => ({ ipv4: renderPayload(n, node, 4), ipv6: renderPayload(n, node, 6) }));
  },
  simulator: iptablesSimulator,
};
