// A reference dataplane for the IR: looks a flow up in the source pod's egress table and the
// destination pod's ingress table, first match wins (Contiv's mock renderer, TestTraffic).
import { parseCidr, parseIp, type IpAddr, type IpRange } from '../net/ip.js';
import type { Ir, IrRule } from './ir.js';

interface CompiledRule {
  readonly rule: IrRule;
  readonly index: number;
  readonly permit: boolean;
  readonly protocol: string;
  readonly src: IpRange | null;
  readonly dst: IpRange | null;
  readonly ports: readonly [number, number] | null;
  readonly srcPorts: readonly [number, number] | null;
}

export interface SimulatedSide {
  readonly pod: string;
  readonly table: string;
  readonly allowed: boolean;
  readonly rule: IrRule | null;
  readonly index: number;
}

export interface Simulation {
  readonly allowed: boolean;
  readonly loopback: boolean;
  readonly egress: SimulatedSide | null;
  readonly ingress: SimulatedSide | null;
}

const inRange = (r: IpRange | null, ip: IpAddr) => r === null || (r.family === ip.family && r.lo <= ip.value && ip.value <= r.hi);

export class IrSimulator {
  private readonly podByIp = new Map<string, { pod: string; node: string; ingress: string; egress: string }>();
  private readonly tables = new Map<string, CompiledRule[]>();

  constructor(ir: Ir) {
    for (const [node, n] of Object.entries(ir.nodes)) {
      for (const [id, rules] of Object.entries(n.tables)) {
        if (this.tables.has(`${node}/${id}`)) continue;
        this.tables.set(
          `${node}/${id}`,
          rules.map((rule, index) => ({
            rule,
            index,
            permit: rule.action === 'PERMIT',
            protocol: rule.protocol,
            src: rule.srcNetwork ? parseCidr(rule.srcNetwork) : null,
            dst: rule.dstNetwork ? parseCidr(rule.dstNetwork) : null,
            ports: rule.dstPortRange,
            srcPorts: rule.srcPortRange,
          })),
        );
      }
      for (const [pod, p] of Object.entries(n.pods)) {
        for (const ip of p.ips) this.podByIp.set(ip, { pod, node, ingress: `${node}/${p.ingress}`, egress: `${node}/${p.egress}` });
      }
    }
  }

  private lookup(table: string, src: IpAddr, dst: IpAddr, protocol: string, port: number): { allowed: boolean; rule: IrRule | null; index: number } {
    for (const r of this.tables.get(table) ?? []) {
      if (r.protocol !== 'ANY' && r.protocol !== protocol) continue;
      if (!inRange(r.src, src) || !inRange(r.dst, dst)) continue;
      if (r.ports && (port < r.ports[0] || port > r.ports[1])) continue;
      // Flows here carry no source port; a rule that restricts it cannot be said to match.
      if (r.srcPorts) continue;
      return { allowed: r.permit, rule: r.rule, index: r.index };
    }
    // Every table ends with a catch-all; reaching here would be a compiler bug.
    return { allowed: false, rule: null, index: -1 };
  }

  simulate(srcText: string, dstText: string, protocol: string, port: number): Simulation {
    const src = parseIp(srcText)!;
    const dst = parseIp(dstText)!;
    const s = this.podByIp.get(srcText);
    const d = this.podByIp.get(dstText);
    if (s && d && s.pod === d.pod) return { allowed: true, loopback: true, egress: null, ingress: null };
    const egress = s ? { pod: s.pod, table: s.egress, ...this.lookup(s.egress, src, dst, protocol, port) } : null;
    const ingress = d ? { pod: d.pod, table: d.ingress, ...this.lookup(d.ingress, src, dst, protocol, port) } : null;
    return { allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true), loopback: false, egress, ingress };
  }

  /** The rules of a table, for failure reports. */
  table(key: string): readonly IrRule[] {
    return (this.tables.get(key) ?? []).map((r) => r.rule);
  }
}
