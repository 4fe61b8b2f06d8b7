// Contiv's rule combination for dataplanes that filter one direction only (seed
// contiv-vpp-policies.txt, "Rule transformations"), parametrised by which side is filtered:
//  - 'from-pod' (VPPTCP, and the IR's `global`): a pod's table filters what it sends.
//    CombineRules folds the ingress rules of local destination pods into each source pod's
//    egress table; the node-global table applies local pods' ingress rules to traffic that
//    enters the node.
//  - 'to-pod' (VPP ACL): a pod's table filters what it receives. CombineRules folds the
//    egress rules of local source pods into each pod's ingress table; the global table
//    applies local pods' egress rules to traffic that leaves the node.
import { parsedAddresses, type IpAddr } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import type { IrNode, IrRule } from './ir.js';
import { CanonicalChunks, canonicalRules } from './table-id.js';
import { appendRules, canonicalRun, rulesOfRuns, type RuleRun } from './runs.js';
import { parsedTable } from './parsed-table.js';
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

/**
 * CombineRules for one (own, other) pair: "if egressTCP is not subset of ingressTCP …
 * insert … (pod2-IP, ANY, ANY, port, TCP, PERMIT) … insert (pod2-IP, ANY, ANY, ANY, ANY, DENY)".
 * `own` and `other`: each table's decisions for this pair, per protocol (from-pod: own sends to
 * the other pod's address, the other pod receives from own's). Both are uniform within their
 * own segments, so the pair is read on the union of their segment starts.
 * Returns the rules to put first in the own table, or [] when the own table already decides alike.
 */
function pairRules(own: (p: Protocol) => PortVerdicts, other: (p: Protocol) => PortVerdicts, otherIp: string, mode: CombineMode, budget: WorkBudget | undefined): IrRule[] {
  const permitted: IrRule[] = [];
  let differs = false;
  for (const proto of PROTOCOLS) {
    const [a, b] = [own(proto), other(proto)];
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
      if (last && last.protocol === proto && last.dstPortRange && last.dstPortRange[1] + 1 === lo) permitted[permitted.length - 1] = { ...last, dstPortRange: [last.dstPortRange[0], hi] };
      else permitted.push({ action: 'PERMIT', protocol: proto, srcNetwork: mode === 'to-pod' ? host(otherIp) : '', srcPortRange: null, dstNetwork: mode === 'from-pod' ? host(otherIp) : '', dstPortRange: [lo, hi] });
    }
  }
  if (!differs) return [];
  const deny: IrRule = { action: 'DENY', protocol: 'ANY', srcNetwork: mode === 'to-pod' ? host(otherIp) : '', srcPortRange: null, dstNetwork: mode === 'from-pod' ? host(otherIp) : '', dstPortRange: null };
  return [...permitted.map((r) => (r.dstPortRange && r.dstPortRange[0] === 1 && r.dstPortRange[1] === 65535 ? { ...r, dstPortRange: null } : r)), deny];
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
 * CombineRules on one node. With a budget, the table rules read deciding (and the segments of
 * every pod pair) are spent as `lookups`, and each local table's rules as `rules` once per
 * distinct table (a pod whose table gains no pair rules shares its table's).
 */
export function combineNode(node: IrNode, mode: CombineMode, budget?: WorkBudget): CombinedNode {
  const pods = Object.entries(node.pods).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const table = (id: string) => parsedTable(node.tables[id]!);
  const ownSide = mode === 'from-pod' ? 'egress' : 'ingress';
  const otherSide = mode === 'from-pod' ? 'ingress' : 'egress';

  // A table's decisions for one address on one side, per protocol: pods share tables, so each
  // (table, address) is read once per node, not once per pod pair (100 pods: 10⁴ pairs).
  const decided = new Map<string, PortVerdicts>();
  const verdictsAt = (id: string, side: 'src' | 'dst', ip: IpAddr, text: string) => (proto: Protocol): PortVerdicts => {
    const key = `${id}|${side}|${text}|${proto}`;
    let v = decided.get(key);
    if (!v) {
      const rules = table(id);
      spend(budget, 'lookups', rules.length);
      decided.set(key, (v = { starts: segmentStarts(rules, proto), allowed: side === 'src' ? portVerdicts(rules, ip, null, proto) : portVerdicts(rules, null, ip, proto) }));
    }
    return v;
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
        const rules = pairRules(verdictsAt(pod[ownSide], ownPeerSide, peer, other.ips[i]!), verdictsAt(other[otherSide], otherPeerSide, ownAddresses[own]!, pod.ips[own]!), other.ips[i]!, mode, budget);
        for (const r of rules) front.push(r);
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
