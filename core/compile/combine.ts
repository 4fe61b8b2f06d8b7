// Contiv's rule combination for dataplanes that filter one direction only (seed
// contiv-vpp-policies.txt, "Rule transformations"), parametrised by which side is filtered:
//  - 'from-pod' (VPPTCP, and the IR's `global`): a pod's table filters what it sends.
//    CombineRules folds the ingress rules of local destination pods into each source pod's
//    egress table; the node-global table applies local pods' ingress rules to traffic that
//    enters the node.
//  - 'to-pod' (VPP ACL): a pod's table filters what it receives. CombineRules folds the
//    egress rules of local source pods into each pod's ingress table; the global table
//    applies local pods' egress rules to traffic that leaves the node.
import { addressSlots, type AddressSlots } from '../classes/addresses.js';
import { parsedAddresses, type Cidr, type IpAddr, type IpRange } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import type { IrNode, IrRule } from './ir.js';
import { CanonicalChunks, canonicalRules } from './table-id.js';
import { appendRules, canonicalRun, rulesOfRuns, type RuleRun } from './runs.js';
import { parsedTable, type ParsedRule } from './parsed-table.js';
import { portVerdicts, segmentStarts } from './table-eval.js';
import { spend, type WorkBudget } from '../limits.js';

export type CombineMode = 'from-pod' | 'to-pod';

export interface CombinedNode {
  /** Per local pod: its combined table (egress table for from-pod, ingress for to-pod). */
  readonly local: Record<string, IrRule[]>;
  readonly global: IrRule[];
}

const host = (ip: string) => `${ip}/${ip.includes(':') ? 128 : 32}`;

/** A table's decision per port segment for one address pair and protocol (table-eval.ts portVerdicts). */
interface PortVerdicts {
  readonly starts: readonly number[];
  readonly allowed: readonly boolean[];
}

/** A table's decisions for one address class on one side, per protocol (PROTOCOLS order), with a number to memoise pairs by. */
interface ClassVerdicts {
  readonly id: number;
  readonly byProtocol: readonly PortVerdicts[];
}

/** What CombineRules adds for a pair, whatever the other pod's address: nothing, or these PERMIT port ranges then a DENY. */
interface PairTemplate {
  readonly differs: boolean;
  readonly permitted: readonly (readonly [Protocol, number, number])[];
}

/**
 * CombineRules for one (own, other) pair: "if egressTCP is not subset of ingressTCP …
 * insert … (pod2-IP, ANY, ANY, port, TCP, PERMIT) … insert (pod2-IP, ANY, ANY, ANY, ANY, DENY)".
 * `own` and `other`: each table's decisions for this pair, per protocol (from-pod: own sends to
 * the other pod's address, the other pod receives from own's). Both are uniform within their
 * own segments, so the pair is read on the union of their segment starts.
 */
function pairTemplate(own: ClassVerdicts, other: ClassVerdicts, budget: WorkBudget | undefined): PairTemplate {
  const permitted: [Protocol, number, number][] = [];
  let differs = false;
  PROTOCOLS.forEach((proto, p) => {
    const [a, b] = [own.byProtocol[p]!, other.byProtocol[p]!];
    spend(budget, 'lookups', a.starts.length + b.starts.length);
    let [i, j] = [0, 0];
    while (i < a.starts.length || j < b.starts.length) {
      // The next start of either table (both begin at 1); the segment runs to the one after.
      const lo = Math.min(a.starts[i] ?? 65536, b.starts[j] ?? 65536);
      if (a.starts[i] === lo) i++;
      if (b.starts[j] === lo) j++;
      const hi = Math.min(a.starts[i] ?? 65536, b.starts[j] ?? 65536) - 1;
      const ownAllows = a.allowed[i - 1]!;
      const both = ownAllows && b.allowed[j - 1]!;
      if (ownAllows !== both) differs = true;
      if (!both) continue;
      const last = permitted[permitted.length - 1];
      if (last && last[0] === proto && last[2] + 1 === lo) last[2] = hi;
      else permitted.push([proto, lo, hi]);
    }
  });
  return { differs, permitted };
}

/** The rules to put first in the own table for the other pod's address, or [] when the own table already decides alike. */
function pairRules(t: PairTemplate, otherIp: string, mode: CombineMode): IrRule[] {
  if (!t.differs) return [];
  const [src, dst] = mode === 'to-pod' ? [host(otherIp), ''] : ['', host(otherIp)];
  const out: IrRule[] = t.permitted.map(([protocol, lo, hi]) => ({ action: 'PERMIT', protocol, srcNetwork: src, srcPortRange: null, dstNetwork: dst, dstPortRange: lo === 1 && hi === 65535 ? null : [lo, hi] }));
  out.push({ action: 'DENY', protocol: 'ANY', srcNetwork: src, srcPortRange: null, dstNetwork: dst, dstPortRange: null });
  return out;
}

// Per table object and side: its rules' networks on that side cut the addresses into classes
// (classes/addresses.ts). A rule whose other side names a network never matches a lookup that
// leaves that side open, and the rest match an address iff their network on this side holds it,
// so addresses of one class get the same decisions: a table is read once per class, not once
// per local pod address (100 pods on a node: 10⁴ pairs).
const sideClasses = new WeakMap<readonly ParsedRule[], Partial<Record<'src' | 'dst', AddressSlots>>>();

function classesOf(rules: readonly ParsedRule[], side: 'src' | 'dst'): AddressSlots {
  let bySide = sideClasses.get(rules);
  if (!bySide) sideClasses.set(rules, (bySide = {}));
  return (bySide[side] ??= addressSlots(normalisedNetworks(rules.map((r) => r[side]))));
}

/** Each distinct network once, as a one-range set (addressSlots reads each set as sorted, disjoint ranges). */
function normalisedNetworks(networks: readonly (Cidr | null)[]): IpRange[][] {
  const seen = new Map<string, IpRange[]>();
  for (const n of networks) if (n) seen.set(`${n.family}:${n.lo}-${n.hi}`, [{ family: n.family, lo: n.lo, hi: n.hi }]);
  return [...seen.values()];
}

/** The other side's rules scoped to one local pod address (BuildGlobalTable: "change rule's source IP from ANY to pod's IP address"). */
function scoped(rules: readonly IrRule[], podIps: readonly string[], mode: CombineMode): IrRule[] {
  const out: IrRule[] = [];
  // Explicit literals, hosts and families computed once: node-global tables hold every local pod's rules.
  const hosts = podIps.map((ip) => ({ net: host(ip), v6: ip.includes(':') }));
  for (const r of rules) {
    const peerNet = mode === 'from-pod' ? r.srcNetwork : r.dstNetwork;
    const peerV6 = peerNet.includes(':');
    for (const h of hosts) {
      if (peerNet && peerV6 !== h.v6) continue;
      out.push(
        mode === 'from-pod'
          ? { action: r.action, protocol: r.protocol, srcNetwork: r.srcNetwork, srcPortRange: r.srcPortRange, dstNetwork: h.net, dstPortRange: r.dstPortRange }
          : { action: r.action, protocol: r.protocol, srcNetwork: h.net, srcPortRange: r.srcPortRange, dstNetwork: r.dstNetwork, dstPortRange: r.dstPortRange },
      );
    }
  }
  return out;
}

/**
 * CombineRules on one node. With a budget, every pod pair, the table rules read deciding each
 * (table, address class) and the segments walked for each distinct pair of decisions are spent
 * as `lookups`, and each local table's rules as `rules` once per distinct table (a pod whose
 * table gains no pair rules shares its table's).
 */
export function combineNode(node: IrNode, mode: CombineMode, budget?: WorkBudget): CombinedNode {
  const pods = Object.entries(node.pods).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const table = (id: string) => parsedTable(node.tables[id]!);
  const ownSide = mode === 'from-pod' ? 'egress' : 'ingress';
  const otherSide = mode === 'from-pod' ? 'ingress' : 'egress';

  // A table's decisions for one address class on one side, per protocol: pods share tables and
  // addresses share classes, so each (table, class) is read once per node.
  const decided = new Map<string, ClassVerdicts>();
  const verdictsAt = (id: string, side: 'src' | 'dst', ip: IpAddr): ClassVerdicts => {
    const rules = table(id);
    const key = `${id}|${side}|${classesOf(rules, side).slot(ip)}`;
    let v = decided.get(key);
    if (!v) {
      spend(budget, 'lookups', rules.length * PROTOCOLS.length);
      const byProtocol = PROTOCOLS.map((proto) => ({ starts: segmentStarts(rules, proto), allowed: side === 'src' ? portVerdicts(rules, ip, null, proto) : portVerdicts(rules, null, ip, proto) }));
      decided.set(key, (v = { id: decided.size, byProtocol }));
    }
    return v;
  };
  // What a pair adds depends only on the two tables' decisions: once per pair of them.
  const templates = new Map<number, Map<number, PairTemplate>>();
  const templateOf = (own: ClassVerdicts, other: ClassVerdicts): PairTemplate => {
    let byOther = templates.get(own.id);
    if (!byOther) templates.set(own.id, (byOther = new Map()));
    let t = byOther.get(other.id);
    if (!t) byOther.set(other.id, (t = pairTemplate(own, other, budget)));
    return t;
  };
  // from-pod: own sends to the peer (own egress: dst = peer; the other's ingress: src = own).
  const [ownPeerSide, otherPeerSide] = mode === 'from-pod' ? (['dst', 'src'] as const) : (['src', 'dst'] as const);
  const local: Record<string, IrRule[]> = {};
  const unchangedTables = new Set<string>();
  for (const [key, pod] of pods) {
    const ownAddresses = parsedAddresses(pod.ips);
    const front: IrRule[] = [];
    for (const [otherKey, other] of pods) {
      if (otherKey === key) continue;
      const otherAddresses = parsedAddresses(other.ips);
      for (let i = 0; i < other.ips.length; i++) {
        const peer = otherAddresses[i]!;
        const own = ownAddresses.findIndex((ip) => ip!.family === peer.family);
        if (own < 0) continue;
        // Each pair is a lookup however much is memoised: a node of 20,000 pods is 4·10⁸ pairs.
        spend(budget, 'lookups', 1);
        const t = templateOf(verdictsAt(pod[ownSide], ownPeerSide, peer), verdictsAt(other[otherSide], otherPeerSide, ownAddresses[own]!));
        for (const r of pairRules(t, other.ips[i]!, mode)) front.push(r);
      }
    }
    const own = node.tables[pod[ownSide]]!;
    const shared = front.length === 0 && unchangedTables.has(pod[ownSide]);
    if (front.length === 0) unchangedTables.add(pod[ownSide]);
    spend(budget, 'rules', front.length + (shared ? 0 : own.length));
    local[key] = [...front, ...own];
  }
  return { local, global: globalTable(node, mode, budget) };
}

// "add rule to allow the rest of the traffic"
const PERMIT_REST: RuleRun = { action: 'PERMIT', protocol: 'ANY', srcPortRange: null, dstPortRange: null, varies: 'srcNetwork', fixed: '', networks: [''] };

/** BuildGlobalTable alone: the other side's rules of every local pod, scoped to its addresses, then PERMIT. */
export function globalTable(node: IrNode, mode: CombineMode, budget?: WorkBudget): IrRule[] {
  const otherSide = mode === 'from-pod' ? 'ingress' : 'egress';
  const global: IrRule[] = [];
  for (const [, pod] of Object.entries(node.pods).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const some = scoped(node.tables[pod[otherSide]]!, pod.ips, mode);
    spend(budget, 'rules', some.length);
    for (const r of some) global.push(r);
  }
  appendRules(global, PERMIT_REST);
  return global;
}

/** A local pod as globalOfRuns reads it: its addresses, and its other-side table as consecutive runs. */
export interface GlobalPod {
  readonly ips: readonly string[];
  readonly parts: readonly (readonly RuleRun[])[];
}

// Per run: the networks scoped keeps for a pod address of each family (peer "" or the same family).
const keptCache = new WeakMap<RuleRun, { v4: readonly string[]; v6: readonly string[] }>();

function kept(run: RuleRun, v6: boolean): readonly string[] {
  if (run.family !== undefined) return (run.family === 6) === v6 ? run.networks : [];
  let k = keptCache.get(run);
  if (!k) {
    const nets = run.networks;
    const has6 = nets.some((n) => n.includes(':'));
    const has4 = nets.some((n) => n !== '' && !n.includes(':'));
    k = { v4: has6 ? nets.filter((n) => !n.includes(':')) : nets, v6: has4 ? nets.filter((n) => n === '' || n.includes(':')) : nets };
    keptCache.set(run, k);
  }
  return v6 ? k.v6 : k.v4;
}

/**
 * globalTable(node, mode) and its canonical form (in pieces), from the runs of the local pods'
 * tables, pods given in key order. A single-address pod's share of a run is the same run with
 * the pod's address as the fixed network: no rule is scoped or encoded one by one.
 * `tooMany()` is thrown once the rules and the closing PERMIT would pass `maxRules`.
 */
export function globalOfRuns(pods: readonly GlobalPod[], mode: CombineMode, maxRules: number, tooMany: () => Error): { rules: IrRule[]; canonical: string[] } {
  const scopedSide = mode === 'from-pod' ? 'dstNetwork' : 'srcNetwork';
  const rules: IrRule[] = [];
  const canonical = new CanonicalChunks();
  for (const pod of pods) {
    const ip = pod.ips.length === 1 ? pod.ips[0]! : null;
    const fixed = ip === null ? '' : host(ip);
    const v6 = ip !== null && ip.includes(':');
    for (const runs of pod.parts) {
      for (const run of runs) {
        if (ip === null || run.varies === scopedSide) {
          // Several addresses interleave per rule, or the run varies the scoped side: as scoped writes it.
          const some = scoped(rulesOfRuns([run]), pod.ips, mode);
          for (const r of some) rules.push(r);
          canonical.add(canonicalRules(some).slice(1, -1));
          continue;
        }
        const networks = kept(run, v6);
        appendRules(rules, run, fixed, networks);
        canonical.add(canonicalRun(run, fixed, networks));
      }
    }
    // Checked per pod: a pod's share is its own table once per address, each within the limit.
    if (rules.length + 1 > maxRules) throw tooMany();
  }
  appendRules(rules, PERMIT_REST);
  canonical.add(canonicalRun(PERMIT_REST));
  return { rules, canonical: canonical.finish() };
}
