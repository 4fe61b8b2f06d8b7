// The reference reading of the set form (ir.ts header): looks a flow up in the source pod's
// egress table and the destination pod's ingress table, tier by tier, with set membership by
// address. Renderers' simulators and the property tests are held against it and the engine.
import { parseIp, type IpAddr, type IpRange } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import type { RuleTable, SetIr, SetRule } from './ir.js';
import { elementAddresses, memberBlocks } from './parsed-sets.js';

export interface SetSide {
  readonly pod: string;
  readonly table: string;
  readonly allowed: boolean;
  /** Which tier decided, and the rule's index within it (null: no rule, e.g. default or isolation). */
  readonly tier: 'node-local' | 'admin' | 'networkpolicy' | 'baseline' | 'default';
  readonly rule: number | null;
}

export interface SetSimulation {
  readonly allowed: boolean;
  readonly loopback: boolean;
  readonly egress: SetSide | null;
  readonly ingress: SetSide | null;
}

interface PodEntry {
  readonly pod: string;
  readonly node: string;
  readonly ingress: string;
  readonly egress: string;
}

const within = (r: IpRange, ip: IpAddr) => r.family === ip.family && r.lo <= ip.value && ip.value <= r.hi;
/** A ports set element by number, so a peer given as numbers needs no printing to be looked up. */
const elementKey = (ip: IpAddr, protocol: Protocol, port: number) => `${ip.family}|${ip.value}|${protocol}|${port}`;

export class SetIrSimulator {
  private readonly pods = new Map<string, PodEntry>();
  private readonly nodeAddresses = new Map<string, Set<string>>();
  private readonly ranges = new Map<string, readonly IpRange[]>();
  private readonly elements = new Map<string, Set<string>>();

  constructor(private readonly ir: SetIr) {
    for (const [node, n] of Object.entries(ir.nodes)) {
      this.nodeAddresses.set(node, new Set(n.addresses));
      for (const [pod, p] of Object.entries(n.pods)) for (const ip of p.ips) this.pods.set(ip, { pod, node, ingress: p.ingress, egress: p.egress });
    }
    for (const [id, s] of ir.sets.entries()) {
      if (s.kind === 'addresses') this.ranges.set(id, memberBlocks(s));
      else {
        const addresses = elementAddresses(s);
        this.elements.set(id, new Set(s.elements.map(([, p, n], i) => elementKey(addresses[i]!, p, n))));
      }
    }
  }

  private matches(rule: SetRule, peer: IpAddr, protocol: Protocol, port: number): boolean {
    if (rule.set !== null) {
      const elements = this.elements.get(rule.set);
      if (elements) return elements.has(elementKey(peer, protocol, port));
      if (!this.ranges.get(rule.set)!.some((r) => within(r, peer))) return false;
    }
    return rule.ports === null || rule.ports.some(([p, lo, hi]) => p === protocol && lo <= port && port <= hi);
  }

  private first(rules: readonly SetRule[], peer: IpAddr, protocol: Protocol, port: number): number {
    for (let i = 0; i < rules.length; i++) if (this.matches(rules[i]!, peer, protocol, port)) return i;
    return -1;
  }

  /** One table, tier by tier (evaluate/decide.ts walkTiers). */
  evaluateTable(table: RuleTable, peerText: string, protocol: Protocol, port: number): Pick<SetSide, 'allowed' | 'tier' | 'rule'> {
    return this.evaluateTableAt(table, parseIp(peerText)!, protocol, port);
  }

  /** evaluateTable for a peer given as numbers. */
  evaluateTableAt(table: RuleTable, peer: IpAddr, protocol: Protocol, port: number): Pick<SetSide, 'allowed' | 'tier' | 'rule'> {
    const a = this.first(table.admin, peer, protocol, port);
    if (a >= 0 && table.admin[a]!.action !== 'pass') return { allowed: table.admin[a]!.action === 'allow', tier: 'admin', rule: a };
    if (table.networkPolicy.isolated) {
      const n = this.first(table.networkPolicy.rules, peer, protocol, port);
      return { allowed: n >= 0, tier: 'networkpolicy', rule: n >= 0 ? n : null };
    }
    const b = this.first(table.baseline, peer, protocol, port);
    if (b >= 0 && table.baseline[b]!.action !== 'pass') return { allowed: table.baseline[b]!.action === 'allow', tier: 'baseline', rule: b };
    return { allowed: true, tier: 'default', rule: null };
  }

  simulate(src: string, dst: string, protocol: Protocol, port: number): SetSimulation {
    const s = this.pods.get(src);
    const d = this.pods.get(dst);
    if (s && d && s.pod === d.pod) return { allowed: true, loopback: true, egress: null, ingress: null };
    const egress: SetSide | null = s ? { pod: s.pod, table: s.egress, ...this.evaluateTable(this.ir.tables.get(s.egress)!, dst, protocol, port) } : null;
    let ingress: SetSide | null = null;
    if (d) {
      ingress = this.nodeAddresses.get(d.node)!.has(src)
        ? { pod: d.pod, table: d.ingress, allowed: true, tier: 'node-local', rule: null }
        : { pod: d.pod, table: d.ingress, ...this.evaluateTable(this.ir.tables.get(d.ingress)!, src, protocol, port) };
    }
    return { allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true), loopback: false, egress, ingress };
  }
}
