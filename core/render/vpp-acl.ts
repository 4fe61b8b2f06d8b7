// ligato vpp-agent ACLs (acl.proto), as Contiv's ACL renderer builds them: VPP/ACL can only
// filter traffic towards pods after NAT, so tables are combined into the to-pod direction
// (CombineRules), applied on each pod TAP's egress; the node-global table (local pods' egress
// rules) sits on the uplink's egress; a REFLECT ACL on TAP ingress lets replies back in.
// vpp-agent's IpRule has port matches for tcp and udp only: SCTP rules match by protocol
// number without ports, and a table that restricts SCTP ports is reported in `warnings`.
import { combineNode } from '../compile/combine.js';
import { tableId } from '../compile/table-id.js';
import type { Ir, IrNode, IrRule } from '../compile/ir.js';
import { LimitError, renderBudget, type RenderLimits, type WorkBudget } from '../limits.js';
import { parseRules, type ParsedRule } from '../compile/parsed-table.js';
import { permits } from '../compile/table-eval.js';
import { parseIp } from '../net/ip.js';
import type { Dataplane, DataplaneSimulator } from './types.js';
import { printable } from '../printable.js';

interface PortRange {
  readonly lower_port: number;
  readonly upper_port: number;
}
export interface AclRule {
  readonly action: 'DENY' | 'PERMIT' | 'REFLECT';
  readonly ip_rule: {
    readonly ip: { readonly source_network: string; readonly destination_network: string; readonly protocol: number };
    readonly tcp?: { readonly source_port_range: PortRange; readonly destination_port_range: PortRange };
    readonly udp?: { readonly source_port_range: PortRange; readonly destination_port_range: PortRange };
  };
}
export interface Acl {
  readonly name: string;
  readonly rules: readonly AclRule[];
  readonly interfaces: { readonly ingress: readonly string[]; readonly egress: readonly string[] };
}
export interface VppAclNode {
  readonly acls: readonly Acl[];
  /** TAP interface of each local pod and its addresses. */
  readonly interfaces: readonly { readonly name: string; readonly pod: string; readonly ips: readonly string[] }[];
  readonly uplink: string;
  readonly warnings: readonly string[];
}

const PROTO_NUMBER = { ANY: 0, TCP: 6, UDP: 17, SCTP: 132 } as const;
const ALL_PORTS: PortRange = { lower_port: 0, upper_port: 65535 };
export const UPLINK = 'uplink';

// A pod key is "namespace/name" and a namespace (a DNS-1123 label) has no '.', so "tap-ns.name" is
// one interface per pod ("tap-ns-name" made "a-b/c" and "a/b-c" one); printable, as every name is.
const tapName = (pod: string) => `tap-${printable(pod.replace('/', '.'))}`;

/**
 * A flat rule as ACL rules. A rule of any protocol with a port range matches TCP, UDP and SCTP
 * on those ports (compile/table-eval.ts: flows are TCP, UDP or SCTP; the rule combiner merges
 * one port's rules for all three into it), and protocol 0 in an ACL has no port match: it is
 * written as one rule per protocol, or it would match every port of every protocol.
 */
function aclRules(r: IrRule): AclRule[] {
  if (r.protocol !== 'ANY' || r.dstPortRange === null) return [aclRule(r)];
  return (['TCP', 'UDP', 'SCTP'] as const).map((protocol) => aclRule({ ...r, protocol }));
}

function aclRule(r: IrRule): AclRule {
  const ports = r.dstPortRange ? { lower_port: r.dstPortRange[0], upper_port: r.dstPortRange[1] } : ALL_PORTS;
  const l4 = { source_port_range: ALL_PORTS, destination_port_range: ports };
  return {
    action: r.action,
    ip_rule: {
      ip: { source_network: r.srcNetwork, destination_network: r.dstNetwork, protocol: PROTO_NUMBER[r.protocol] },
      ...(r.protocol === 'TCP' ? { tcp: l4 } : {}),
      ...(r.protocol === 'UDP' ? { udp: l4 } : {}),
    },
  };
}

/**
 * What one node's ACLs may cost; past either, the render is refused (LimitError). Rules: ACL
 * rules on the node (CombineRules gives each pod its own copy of its table with pair rules in
 * front); lookups: one per pod pair, table rules read per table and address class, and port
 * segments walked per distinct pair of decisions, combining them (combine.ts).
 */
export type VppAclLimits = RenderLimits;

export const VPP_ACL_LIMITS: VppAclLimits = { rules: 1_000_000, lookups: 500_000_000 };

const nodeBudget = (limits: VppAclLimits): WorkBudget =>
  renderBudget(limits, {
    rules: `vpp-acl needs more than ${limits.rules} ACL rules on this node (the limit): CombineRules folds the other pods' rules into a copy of each pod's table; nftables and iptables keep one table per policy group over shared sets`,
    lookups: `vpp-acl would read more than ${limits.lookups} table rules combining this node's tables (the limit): its pods' tables are too large to combine pair by pair; nftables and iptables keep one table per policy group over shared sets`,
  });

/** ACL rules of a flat rule (aclRules), counted without building them. */
const aclRuleCount = (r: IrRule) => (r.protocol === 'ANY' && r.dstPortRange !== null ? 3 : 1);

/** Every node's ACLs, each within `limits` (VPP_ACL_LIMITS as the format renders). */
export function renderVppAcl(ir: Ir, limits: VppAclLimits = VPP_ACL_LIMITS): Record<string, VppAclNode> {
  const out: Record<string, VppAclNode> = {};
  for (const [nodeName, node] of Object.entries(ir.nodes)) {
    try {
      out[nodeName] = renderNode(node, limits);
    } catch (e) {
      if (e instanceof LimitError) throw new LimitError(`node ${printable(nodeName)}: ${e.message}`);
      throw e;
    }
  }
  return out;
}

function renderNode(node: IrNode, limits: VppAclLimits): VppAclNode {
  const budget = nodeBudget(limits);
  const { local, global } = combineNode(node, 'to-pod', budget);
  const byTable = new Map<string, { rules: IrRule[]; taps: string[] }>();
  for (const pod of Object.keys(local).sort()) {
    const id = tableId(local[pod]!);
    const entry = byTable.get(id) ?? byTable.set(id, { rules: local[pod]!, taps: [] }).get(id)!;
    entry.taps.push(tapName(pod));
  }
  const warnings = [...byTable.values()].some((t) => t.rules.some((r) => (r.protocol === 'SCTP' || r.protocol === 'ANY') && r.dstPortRange)) ? ['SCTP port ranges cannot be expressed in the vpp-agent ACL model (no sctp port match); those rules match every SCTP port'] : [];
  // The ACL rules themselves, exactly, before they are written: the budget above counted flat rules.
  let written = 1; // the REFLECT rule
  for (const t of [...byTable.values(), { rules: global }]) for (const r of t.rules) written += aclRuleCount(r);
  if (written > limits.rules) throw budget.exceeded('rules');
  const taps = Object.keys(node.pods).sort().map(tapName);
  const acls: Acl[] = [
    ...[...byTable.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, t]) => ({ name: `netpolc-local-${id}`, rules: t.rules.flatMap(aclRules), interfaces: { ingress: [], egress: t.taps } })),
    { name: `netpolc-global-${tableId(global)}`, rules: global.flatMap(aclRules), interfaces: { ingress: [], egress: [UPLINK] } },
    // Contiv: "the egress ACL of the source pod should not block the replied SYN-ACK" — reflexive ACL on TAP ingress.
    { name: 'netpolc-reflect', rules: [{ action: 'REFLECT', ip_rule: { ip: { source_network: '', destination_network: '', protocol: 0 } } }], interfaces: { ingress: taps, egress: [] } },
  ];
  return { acls, interfaces: Object.entries(node.pods).sort(([a], [b]) => (a < b ? -1 : 1)).map(([pod, p]) => ({ name: tapName(pod), pod, ips: p.ips })), uplink: UPLINK, warnings };
}

/** Reads the ACLs back into first-match tables, without the IR. */
function toTable(acl: Acl): ParsedRule[] {
  const proto = Object.fromEntries(Object.entries(PROTO_NUMBER).map(([k, v]) => [v, k])) as Record<number, IrRule['protocol']>;
  return parseRules(
    acl.rules
      .filter((r) => r.action !== 'REFLECT')
      .map((r) => {
        const l4 = r.ip_rule.tcp ?? r.ip_rule.udp;
        const range = l4 && !(l4.destination_port_range.lower_port === 0 && l4.destination_port_range.upper_port === 65535) ? ([l4.destination_port_range.lower_port, l4.destination_port_range.upper_port] as const) : null;
        return { action: r.action as 'PERMIT' | 'DENY', protocol: proto[r.ip_rule.ip.protocol]!, srcNetwork: r.ip_rule.ip.source_network, srcPortRange: null, dstNetwork: r.ip_rule.ip.destination_network, dstPortRange: range };
      }),
  );
}

function simulator(rendered: Record<string, VppAclNode>): DataplaneSimulator {
  const tapOf = new Map<string, { node: string; tap: string; pod: string }>();
  const egressAcl = new Map<string, ParsedRule[]>(); // `${node}/${interface}` → table
  for (const [nodeName, n] of Object.entries(rendered)) {
    for (const i of n.interfaces) for (const ip of i.ips) tapOf.set(ip, { node: nodeName, tap: i.name, pod: i.pod });
    for (const acl of n.acls) for (const itf of acl.interfaces.egress) egressAcl.set(`${nodeName}/${itf}`, toTable(acl));
  }
  const pass = (key: string, src: string, dst: string, flow: { protocol: 'TCP' | 'UDP' | 'SCTP'; port: number }) => {
    const table = egressAcl.get(key);
    return !table || permits(table, parseIp(src), parseIp(dst), flow.protocol, flow.port);
  };
  return {
    allowed(flow) {
      const s = tapOf.get(flow.src);
      const d = tapOf.get(flow.dst);
      if (s && d && s.pod === d.pod) return true;
      // Leaving the source's node through its uplink: the global ACL (local pods' egress rules).
      if (s && (!d || d.node !== s.node) && !pass(`${s.node}/${UPLINK}`, flow.src, flow.dst, flow)) return false;
      // Delivered to the destination TAP: its combined ACL.
      return !d || pass(`${d.node}/${d.tap}`, flow.src, flow.dst, flow);
    },
  };
}

export const vppAcl: Dataplane<VppAclNode> = { format: 'vpp-acl', contentType: 'application/json', render: (ir) => renderVppAcl(ir), simulator };
