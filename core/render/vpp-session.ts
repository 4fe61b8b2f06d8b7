// VPPTCP session rules, as Contiv's VPPTCP renderer installs them: each pod's application
// namespace has a local table matching what the pod initiates (its egress rules with the
// ingress rules of local destination pods folded in: CombineRules, from-pod), and one global
// table per node matches connections arriving from outside (local pods' ingress rules:
// BuildGlobalTable, from-pod). Session tables are longest-prefix-match, take single ports
// only ("port ranges always include either all ports or a single one") and carry TCP and UDP:
// SCTP is not handled by the VPP session layer (reported in `warnings`).
import type { Ir, IrNode } from '../compile/ir.js';
import { parsedTable, type ParsedRule } from '../compile/parsed-table.js';
import { candidateRules, permits, segmentsOf } from '../compile/table-eval.js';
import { portSegments } from '../net/intervals.js';
import { parseCidr, parsedAddresses, parseIp, type IpAddr, type IpRange } from '../net/ip.js';
import { lpmRules, type LpmProtocol, type LpmRule } from './lpm-rules.js';
import type { Dataplane, DataplaneSimulator } from './types.js';
import { LimitError, renderBudget, spend, type RenderLimits, type WorkBudget } from '../limits.js';
import { printable } from '../printable.js';

export interface SessionRule {
  readonly transport_proto: LpmProtocol;
  readonly lcl_ip: string;
  readonly lcl_plen: number;
  readonly rmt_ip: string;
  readonly rmt_plen: number;
  readonly lcl_port: number;
  readonly rmt_port: number;
  readonly action_index: 'ALLOW' | 'DENY';
  readonly appns_index: number;
  readonly scope: 'local' | 'global';
  readonly tag: string;
}

export interface VppSessionNode {
  readonly app_namespaces: readonly { readonly index: number; readonly pod: string; readonly ips: readonly string[] }[];
  readonly rules: readonly SessionRule[];
  readonly warnings: readonly string[];
}

const ANY_IP = { 4: '0.0.0.0', 6: '::' } as const;

/**
 * What one node's session rules may cost; past either, the render is refused (LimitError).
 * Rules: session rules on the node (single-port expansion of wide port ranges can explode);
 * lookups: table rules read to build them (many excepted addresses crossed with many port
 * boundaries ask 10⁴ addresses × 10² port segments of tables of 10⁵ rules on a one-megabyte
 * snapshot, minutes and gigabytes before the rule limit could be seen).
 */
export type VppSessionLimits = RenderLimits;

export const VPP_SESSION_LIMITS: VppSessionLimits = { rules: 50_000, lookups: 500_000_000 };

/** A node's budget: the rule limit less the four defaults every node gets, and the lookup limit. */
const nodeBudget = (limits: VppSessionLimits): WorkBudget =>
  renderBudget(
    limits,
    {
      rules: `vpp-session needs more than ${limits.rules} session rules on this node (the limit): VPPTCP session rules take single ports, and port ranges expand to one rule per port`,
      lookups: `vpp-session would read more than ${limits.lookups} table rules to build this node's session rules (the limit): its policies cut addresses and ports too finely for single-port session rules; vpp-acl and nftables take port ranges`,
    },
    4,
  );

function ranges(rules: readonly ParsedRule[], side: 'src' | 'dst'): IpRange[] {
  return rules.flatMap((r) => (r[side] ? [r[side]!] : []));
}

type Segments = Record<LpmProtocol, [number, number][]>;

/** The common refinement of several tables' port segments: every table is uniform within each. */
function segments(tables: readonly (readonly ParsedRule[])[]): Segments {
  const of = (p: LpmProtocol) => portSegments(tables.flatMap((t) => segmentsOf(t, p)));
  return { TCP: of('TCP'), UDP: of('UDP') };
}

/** A refinement refined by one more table: the same cuts as refining by all its tables at once. */
function refined(base: Segments, table: readonly ParsedRule[]): Segments {
  const of = (p: LpmProtocol) => portSegments([...base[p], ...segmentsOf(table, p)]);
  return { TCP: of('TCP'), UDP: of('UDP') };
}

const addressKey = (a: IpAddr) => `${a.family}|${a.value}`;

type Permits = (src: IpAddr | null, dst: IpAddr | null, protocol: LpmProtocol, port: number) => boolean;

/**
 * permits() over one table in the order lpmRules asks: one address on every port segment, then
 * the next. The rules that can match the addresses are picked once per address (one pass over
 * the table), and each segment reads only those. Every rule read is charged to the budget.
 */
function permitsByAddress(rules: readonly ParsedRule[], budget: WorkBudget): Permits {
  let last: { src: IpAddr | null; dst: IpAddr | null; protocol: LpmProtocol } | null = null;
  let candidates: readonly ParsedRule[] = [];
  const same = (a: IpAddr | null, b: IpAddr | null) => a === b || (a !== null && b !== null && a.family === b.family && a.value === b.value);
  return (src, dst, protocol, port) => {
    if (!last || last.protocol !== protocol || !same(last.src, src) || !same(last.dst, dst)) {
      spend(budget, 'lookups', rules.length);
      candidates = candidateRules(rules, src, dst, protocol);
      last = { src, dst, protocol };
    }
    spend(budget, 'lookups', candidates.length);
    return permits(candidates, src, dst, protocol, port);
  };
}

function renderNode(node: IrNode, limits: VppSessionLimits): VppSessionNode {
  const pods = Object.entries(node.pods).sort(([a], [b]) => (a < b ? -1 : 1));
  const table = (id: string) => parsedTable(node.tables[id]!);
  const local = pods.map(([pod, p], i) => ({ pod, index: i + 1, ips: parsedAddresses(p.ips) as readonly IpAddr[], egress: table(p.egress), ingress: table(p.ingress) }));
  const rules: SessionRule[] = [];
  // The first other local pod holding the address, as a scan of \`local\` in order finds it.
  const otherOwner = (p: (typeof local)[number], dst: IpAddr) => {
    const q = ownerOf.get(addressKey(dst));
    return q !== p ? q : local.find((x) => x !== p && x.ips.some((ip) => ip.family === dst.family && ip.value === dst.value));
  };
  // lcl: the pod's own address (its text) for global rules, any for local ones.
  const toRule = (r: LpmRule, scope: 'local' | 'global', appns: number, lcl: string | null, tag: string): SessionRule => ({
    transport_proto: r.protocol,
    lcl_ip: lcl ?? ANY_IP[r.family],
    lcl_plen: lcl !== null ? (r.family === 4 ? 32 : 128) : 0,
    rmt_ip: r.prefix,
    rmt_plen: r.plen,
    lcl_port: scope === 'global' ? r.port : 0,
    rmt_port: scope === 'local' ? r.port : 0,
    action_index: r.allow ? 'ALLOW' : 'DENY',
    appns_index: appns,
    scope,
    tag,
  });
  // Built once per node, not once per pod: the local pods' ingress segments and who owns each address.
  const ingressSegments = segments([...new Set(local.map((q) => q.ingress))]);
  const ownerOf = new Map<string, (typeof local)[number]>();
  for (const q of local) for (const ip of q.ips) if (!ownerOf.has(addressKey(ip))) ownerOf.set(addressKey(ip), q);
  const budget = nodeBudget(limits);
  for (const p of local) {
    // What the pod initiates: its egress decision, and for a local destination that pod's ingress too.
    const egress = permitsByAddress(p.egress, budget);
    // Local destinations' ingress from this pod's address: one reader per table, as pods share them.
    const ingressOf = new Map<readonly ParsedRule[], Permits>();
    const ingress = (q: (typeof local)[number]) => ingressOf.get(q.ingress) ?? ingressOf.set(q.ingress, permitsByAddress(q.ingress, budget)).get(q.ingress)!;
    const lr = lpmRules({
      cuts: ranges(p.egress, 'dst'),
      points: local.filter((q) => q !== p).flatMap((q) => q.ips),
      segments: refined(ingressSegments, p.egress),
      decide(dst, protocol, port) {
        if (!egress(null, dst, protocol, port)) return false;
        const q = otherOwner(p, dst);
        const own = p.ips.find((ip) => ip.family === dst.family) ?? null;
        return !q || (own !== null && ingress(q)(own, null, protocol, port));
      },
    }, budget);
    for (const r of lr) rules.push(toRule(r, 'local', p.index, null, printable(p.pod)));
  }
  for (const q of local) {
    // Connections arriving from outside the node to this pod: its ingress decision.
    // Only the families the pod has an address of: a global rule names the pod's own address.
    const families = ([4, 6] as const).filter((f) => q.ips.some((ip) => ip.family === f));
    const ingress = permitsByAddress(q.ingress, budget);
    const space = { cuts: ranges(q.ingress, 'src'), points: [], segments: segments([q.ingress]), decide: (src: IpAddr, protocol: LpmProtocol, port: number) => ingress(src, null, protocol, port) };
    for (const r of lpmRules(space, budget, families)) rules.push(toRule(r, 'global', 0, node.pods[q.pod]!.ips[q.ips.findIndex((ip) => ip.family === r.family)]!, printable(q.pod)));
  }
  // Traffic for anything else entering the node is not ours to filter.
  for (const family of [4, 6] as const) for (const proto of ['TCP', 'UDP'] as const) rules.push({ transport_proto: proto, lcl_ip: ANY_IP[family], lcl_plen: 0, rmt_ip: ANY_IP[family], rmt_plen: 0, lcl_port: 0, rmt_port: 0, action_index: 'ALLOW', appns_index: 0, scope: 'global', tag: 'netpolc:default' });
  const sctp = Object.values(node.tables).some((t) => t.some((r) => r.protocol === 'SCTP'));
  return {
    app_namespaces: local.map((p) => ({ index: p.index, pod: p.pod, ips: node.pods[p.pod]!.ips })),
    rules,
    warnings: sctp ? ['SCTP is not handled by the VPP session layer; SCTP rules are not rendered'] : [],
  };
}

/** Every node's session rules, each within `limits` (VPP_SESSION_LIMITS as the format renders). */
export function renderVppSession(ir: Ir, limits: VppSessionLimits = VPP_SESSION_LIMITS): Record<string, VppSessionNode> {
  return Object.fromEntries(
    Object.entries(ir.nodes).map(([name, node]) => {
      try {
        return [name, renderNode(node, limits)];
      } catch (e) {
        if (e instanceof LimitError) throw new LimitError(`node ${name}: ${e.message}`);
        throw e;
      }
    }),
  );
}

interface IndexedRule {
  readonly rule: SessionRule;
  readonly lcl: IpRange;
  readonly rmt: IpRange;
}

const within = (r: IpRange, a: IpAddr) => r.family === a.family && r.lo <= a.value && a.value <= r.hi;

function simulator(rendered: Record<string, VppSessionNode>): DataplaneSimulator {
  const owner = new Map<string, { node: string; pod: string; appns: number }>();
  const tables = new Map<string, IndexedRule[]>(); // `${node}|${scope}|${appns}|${proto}`
  for (const [name, n] of Object.entries(rendered)) {
    for (const a of n.app_namespaces) for (const ip of a.ips) owner.set(ip, { node: name, pod: a.pod, appns: a.index });
    for (const rule of n.rules) {
      const key = `${name}|${rule.scope}|${rule.scope === 'local' ? rule.appns_index : 0}|${rule.transport_proto}`;
      const list = tables.get(key) ?? tables.set(key, []).get(key)!;
      list.push({ rule, lcl: parseCidr(`${rule.lcl_ip}/${rule.lcl_plen}`)!, rmt: parseCidr(`${rule.rmt_ip}/${rule.rmt_plen}`)! });
    }
  }
  /** Most specific match: local prefix, then remote prefix, then an exact port. */
  const best = (rules: readonly IndexedRule[]) =>
    rules.reduce<SessionRule | null>((b, { rule: r }) => (!b || r.lcl_plen > b.lcl_plen || (r.lcl_plen === b.lcl_plen && (r.rmt_plen > b.rmt_plen || (r.rmt_plen === b.rmt_plen && r.lcl_port + r.rmt_port > 0 && b.lcl_port + b.rmt_port === 0))) ? r : b), null);
  return {
    allowed(flow) {
      if (flow.protocol === 'SCTP') throw new Error('vpp-session does not carry SCTP');
      const s = owner.get(flow.src);
      const d = owner.get(flow.dst);
      if (s && d && s.pod === d.pod) return true;
      const src = parseIp(flow.src)!;
      const dst = parseIp(flow.dst)!;
      if (s) {
        const rules = tables.get(`${s.node}|local|${s.appns}|${flow.protocol}`) ?? [];
        const hit = best(rules.filter((r) => within(r.rmt, dst) && (r.rule.rmt_port === 0 || r.rule.rmt_port === flow.port)));
        if (hit && hit.action_index === 'DENY') return false;
      }
      if (d && (!s || s.node !== d.node)) {
        const rules = tables.get(`${d.node}|global|0|${flow.protocol}`) ?? [];
        const hit = best(rules.filter((r) => within(r.lcl, dst) && within(r.rmt, src) && (r.rule.lcl_port === 0 || r.rule.lcl_port === flow.port)));
        if (hit && hit.action_index === 'DENY') return false;
      }
      return true;
    },
  };
}

export const vppSession: Dataplane<VppSessionNode> = { format: 'vpp-session', contentType: 'application/json', render: (ir) => renderVppSession(ir), simulator };
