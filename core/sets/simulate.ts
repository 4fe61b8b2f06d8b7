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

type Decision = Pick<SetSide, 'allowed' | 'tier' | 'rule'>;

/** A ports set's elements by peer and protocol, so a peer given as numbers needs no printing to be looked up. */
const peerKey = (ip: IpAddr, protocol: Protocol) => `${ip.family}|${ip.value}|${protocol}`;

const portsMatch = (rule: SetRule, protocol: Protocol, port: number) => rule.ports === null || rule.ports.some(([p, lo, hi]) => p === protocol && lo <= port && port <= hi);

/** An address set's members as sorted disjoint ranges: membership by binary search, not a scan of 10³ pod addresses. */
class AddressBlocks {
  private readonly ranges: readonly IpRange[];
  constructor(blocks: readonly IpRange[]) {
    const sorted = [...blocks].sort((a, b) => a.family - b.family || (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
    const merged: IpRange[] = [];
    for (const r of sorted) {
      const last = merged[merged.length - 1];
      if (last && last.family === r.family && r.lo <= last.hi) merged[merged.length - 1] = { ...last, hi: r.hi > last.hi ? r.hi : last.hi };
      else merged.push(r);
    }
    this.ranges = merged;
  }

  has(ip: IpAddr): boolean {
    // The last range starting at or before ip, in (family, lo) order.
    let [lo, hi] = [0, this.ranges.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.ranges[mid]!;
      if (r.family < ip.family || (r.family === ip.family && r.lo <= ip.value)) lo = mid + 1;
      else hi = mid - 1;
    }
    const r = this.ranges[hi];
    return r !== undefined && r.family === ip.family && ip.value <= r.hi;
  }
}

export class SetIrSimulator {
  private readonly pods = new Map<string, PodEntry>();
  private readonly nodeAddresses = new Map<string, Set<string>>();
  private readonly blocks = new Map<string, AddressBlocks>();
  /** Per ports set: the ports it holds for each peer and protocol (peerKey). */
  private readonly elements = new Map<string, Map<string, Set<number>>>();

  constructor(private readonly ir: SetIr) {
    for (const [node, n] of Object.entries(ir.nodes)) {
      this.nodeAddresses.set(node, new Set(n.addresses));
      for (const [pod, p] of Object.entries(n.pods)) for (const ip of p.ips) this.pods.set(ip, { pod, node, ingress: p.ingress, egress: p.egress });
    }
    for (const [id, s] of ir.sets.entries()) {
      if (s.kind === 'addresses') this.blocks.set(id, new AddressBlocks(memberBlocks(s)));
      else {
        const addresses = elementAddresses(s);
        const byPeer = new Map<string, Set<number>>();
        s.elements.forEach(([, p, n], i) => {
          const key = peerKey(addresses[i]!, p);
          (byPeer.get(key) ?? byPeer.set(key, new Set()).get(key)!).add(n);
        });
        this.elements.set(id, byPeer);
      }
    }
  }

  /**
   * What a rule needs of the port once its set is read for a peer and protocol: null when the
   * peer is not in its set (it cannot match), 'ports' when its own ports decide, or the ports a
   * ports set holds for the peer (a ports set's elements are what it matches).
   */
  private peerPart(rule: SetRule, peer: IpAddr, protocol: Protocol): null | 'ports' | ReadonlySet<number> {
    if (rule.set === null) return 'ports';
    const byPeer = this.elements.get(rule.set);
    if (byPeer) return byPeer.get(peerKey(peer, protocol)) ?? null;
    return this.blocks.get(rule.set)!.has(peer) ? 'ports' : null;
  }

  /** One tier's first matching rule on a port, its sets read for one peer (`parts`, peerPart). */
  private static first(rules: readonly SetRule[], parts: readonly (null | 'ports' | ReadonlySet<number>)[], protocol: Protocol, port: number): number {
    for (let i = 0; i < rules.length; i++) {
      const part = parts[i]!;
      if (part === null) continue;
      if (part === 'ports' ? portsMatch(rules[i]!, protocol, port) : part.has(port)) return i;
    }
    return -1;
  }

  /** One table, tier by tier (evaluate/decide.ts walkTiers). */
  evaluateTable(table: RuleTable, peerText: string, protocol: Protocol, port: number): Decision {
    return this.evaluateTableAt(table, parseIp(peerText)!, protocol, port);
  }

  /** evaluateTable for a peer given as numbers. */
  evaluateTableAt(table: RuleTable, peer: IpAddr, protocol: Protocol, port: number): Decision {
    return this.tableAt(table, peer, protocol)(port);
  }

  /**
   * evaluateTableAt for one peer and protocol, on any port: set membership is read once for the
   * peer, then each port reads only the rules' ports (regions ask every port segment of a cell).
   */
  tableAt(table: RuleTable, peer: IpAddr, protocol: Protocol): (port: number) => Decision {
    const parts = (rules: readonly SetRule[]) => rules.map((r) => this.peerPart(r, peer, protocol));
    const [admin, np, baseline] = [parts(table.admin), parts(table.networkPolicy.rules), parts(table.baseline)];
    const first = SetIrSimulator.first;
    return (port) => {
      const a = first(table.admin, admin, protocol, port);
      if (a >= 0 && table.admin[a]!.action !== 'pass') return { allowed: table.admin[a]!.action === 'allow', tier: 'admin', rule: a };
      if (table.networkPolicy.isolated) {
        const n = first(table.networkPolicy.rules, np, protocol, port);
        return { allowed: n >= 0, tier: 'networkpolicy', rule: n >= 0 ? n : null };
      }
      const b = first(table.baseline, baseline, protocol, port);
      if (b >= 0 && table.baseline[b]!.action !== 'pass') return { allowed: table.baseline[b]!.action === 'allow', tier: 'baseline', rule: b };
      return { allowed: true, tier: 'default', rule: null };
    };
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
