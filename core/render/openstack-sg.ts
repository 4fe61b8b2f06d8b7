// Neutron security groups (Kuryr's translation, seed kuryr-network-policy-spec.txt): allow-only
// and unordered, so each table becomes the regions it permits; "the ip-range should be broken
// into pieces that cover the all ip-block without the exception" — here for any number of
// overlapping excepts, since the regions come from first-match evaluation.
import { parseRules, permittedRegions } from '../compile/table-eval.js';
import type { Ir } from '../compile/ir.js';
import { parseCidr, rangeToCidrs, type Family } from '../net/ip.js';
import type { Dataplane, DataplaneSimulator, FlowQuery } from './types.js';

export interface SecurityGroupRule {
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  /** null: any protocol. */
  readonly protocol: 'tcp' | 'udp' | 'sctp' | null;
  readonly port_range_min: number | null;
  readonly port_range_max: number | null;
  readonly remote_ip_prefix: string;
}

export interface SecurityGroup {
  readonly name: string;
  readonly description: string;
  readonly security_group_rules: readonly SecurityGroupRule[];
}

export interface SecurityGroupsNode {
  /** Complete rule sets: Neutron's default egress rules must not be added to these groups. */
  readonly security_groups: readonly SecurityGroup[];
  readonly ports: readonly { readonly pod: string; readonly fixed_ips: readonly string[]; readonly security_groups: readonly string[] }[];
}

const ANY_PREFIX: Record<Family, string> = { 4: '0.0.0.0/0', 6: '::/0' };
const FULL: Record<Family, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

function groupRules(rules: Parameters<typeof parseRules>[0], direction: 'ingress' | 'egress'): SecurityGroupRule[] {
  const regions = permittedRegions(parseRules(rules), direction === 'ingress' ? 'src' : 'dst');
  const out: SecurityGroupRule[] = [];
  // All three protocols permitting the same full-port peers collapse into one protocol-less rule.
  const full = (r: (typeof regions)[number]) => r.ports[0] === 1 && r.ports[1] === 65535;
  const key = (r: (typeof regions)[number]) => r.peers.map((p) => `${p.family}:${p.lo}-${p.hi}`).join(',');
  const anyProto = new Set<string>();
  const fullByProto = regions.filter(full);
  for (const r of fullByProto) if (fullByProto.filter((x) => key(x) === key(r)).length === 3) anyProto.add(key(r));
  const emitted = new Set<string>();
  for (const r of regions) {
    const collapse = full(r) && anyProto.has(key(r));
    if (collapse && emitted.has(key(r))) continue;
    if (collapse) emitted.add(key(r));
    for (const peer of r.peers) {
      const prefixes = peer.lo === 0n && peer.hi === FULL[peer.family] ? [ANY_PREFIX[peer.family]] : rangeToCidrs({ family: peer.family, lo: peer.lo, hi: peer.hi });
      for (const prefix of prefixes) {
        out.push({
          direction,
          ethertype: peer.family === 4 ? 'IPv4' : 'IPv6',
          protocol: collapse ? null : (r.protocol.toLowerCase() as 'tcp' | 'udp' | 'sctp'),
          port_range_min: collapse || full(r) ? null : r.ports[0],
          port_range_max: collapse || full(r) ? null : r.ports[1],
          remote_ip_prefix: prefix,
        });
      }
    }
  }
  return out;
}

function render(ir: Ir): Record<string, SecurityGroupsNode> {
  const out: Record<string, SecurityGroupsNode> = {};
  for (const [nodeName, node] of Object.entries(ir.nodes)) {
    const groups = new Map<string, SecurityGroup>();
    const group = (id: string, direction: 'ingress' | 'egress') => {
      const name = `netpolc-${id}-${direction}`;
      if (!groups.has(name)) groups.set(name, { name, description: `netpolc table ${id} (${direction})`, security_group_rules: groupRules(node.tables[id]!, direction) });
      return name;
    };
    const ports = Object.entries(node.pods).map(([pod, p]) => ({ pod, fixed_ips: p.ips, security_groups: [group(p.ingress, 'ingress'), group(p.egress, 'egress')] }));
    out[nodeName] = { security_groups: [...groups.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), ports };
  }
  return out;
}

function simulator(rendered: Record<string, SecurityGroupsNode>): DataplaneSimulator {
  const groups = new Map<string, SecurityGroup>();
  const portByIp = new Map<string, { pod: string; groups: string[] }>();
  for (const node of Object.values(rendered)) {
    for (const g of node.security_groups) groups.set(g.name, g);
    for (const p of node.ports) for (const ip of p.fixed_ips) portByIp.set(ip, { pod: p.pod, groups: [...p.security_groups] });
  }
  // A port allows what any rule of any of its groups allows, in that direction.
  const allows = (port: { groups: string[] }, direction: 'ingress' | 'egress', remote: string, flow: FlowQuery) => {
    const ip = parseCidr(`${remote}/${remote.includes(':') ? 128 : 32}`)!;
    return port.groups.some((name) =>
      groups.get(name)!.security_group_rules.some((r) => {
        if (r.direction !== direction || r.ethertype !== (ip.family === 4 ? 'IPv4' : 'IPv6')) return false;
        if (r.protocol !== null && r.protocol !== flow.protocol.toLowerCase()) return false;
        if (r.port_range_min !== null && (flow.port < r.port_range_min || flow.port > r.port_range_max!)) return false;
        const net = parseCidr(r.remote_ip_prefix)!;
        return net.lo <= ip.lo && ip.lo <= net.hi;
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

export const openstackSg: Dataplane<SecurityGroupsNode> = { format: 'openstack-sg', contentType: 'application/json', render, simulator };
