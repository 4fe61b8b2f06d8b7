// The baseline: a naive Contiv-style expansion (seeds/contiv-vpp-policies.txt, GenerateRules).
// Per pod and direction, for every policy that selects the pod, for every rule, for every peer
// ("match"): one rule per (peer address × port, protocol), no sharing between pods and no
// compaction (no range merging, no deduplication across peers), then one catch-all rule.
//
//   - peer "all endpoints" (a rule without from/to): one rule per port with network ANY;
//   - pods: every matched pod's address as a /32 (/128);
//   - nodes (ANP/BANP): every matched node address;
//   - ipBlock / networks: the CIDR with the excepts subtracted (Contiv's subtractSubnet),
//     i.e. the minimal CIDRs of the remainder;
//   - ports: a rule without ports is one ANY rule; `protocol` without a number is one rule
//     for every port of that protocol; a named port resolves on the destination pod (the
//     subject for ingress, each peer pod for egress) and is dropped where it does not resolve;
//     a numeric range (endPort, portRange) is either one rule per port (`expandRanges`:
//     Contiv's 6-tuples carry a single port) or one rule carrying the range.
//   - ANP/BANP rules expand the same way whatever their action (Allow → PERMIT, Deny → DENY,
//     Pass → PERMIT as a placeholder): this is a size model, not a tiered dataplane.
//   - the catch-all ("deny the rest", or default-allow under tiers) is added once per pod and
//     direction that any policy selects; unselected pods get an empty table.
//
// Two implementations share only `naivePolicies`: `naiveCounts` counts rules and JSON bytes
// analytically with per-rule caches (it never materialises the rules, so it runs at M and L
// where the expansion is billions of rules); `naiveRulesOf` materialises one pod×direction
// (used on samples to check the counter exactly).
import type { Cluster } from '../core/cluster.js';
import { subjectSelects } from '../core/evaluate/match.js';
import { formatIp, rangeToCidrs, type Family, type IpRange } from '../core/net/ip.js';
import { rulesFor, type Direction, type Peer, type Policy, type PortMatch, type Rule } from '../core/policy/model.js';
import type { PodInfo } from '../core/snapshot/cluster.js';
import { peerRule, type IrRule } from '../core/compile/ir.js';
import { namespaceMatches } from '../core/evaluate/match.js';

export interface NaiveOptions {
  /** One rule per port of a numeric range (Contiv's single-port 6-tuple) instead of one per range. */
  readonly expandRanges: boolean;
}

/** Policies that select the pod for a direction, in tier order (as the engine reads them). */
export function naivePolicies(cluster: Cluster, pod: PodInfo, dir: Direction): Policy[] {
  const selecting = (list: readonly Policy[]) => list.filter((p) => (rulesFor(p, dir)?.length ?? 0) > 0 && subjectSelects(cluster, p, pod));
  const nps = (cluster.policies.byNamespace.get(pod.namespace) ?? []).filter((p) => rulesFor(p, dir) !== null && subjectSelects(cluster, p, pod));
  return [...selecting(cluster.policies.admin), ...nps, ...selecting(cluster.policies.baseline)];
}

/** Subjects of the IR: pods with addresses that are not host-network. */
export function isSubject(pod: PodInfo): boolean {
  return !pod.hostNetwork && pod.ips.length > 0;
}

// --- shared pieces ------------------------------------------------------------------------

interface PortEntry {
  readonly protocol: 'ANY' | 'TCP' | 'UDP' | 'SCTP';
  readonly range: readonly [number, number] | null;
}

const ALL_PORTS: PortEntry = { protocol: 'ANY', range: null };

/** Port entries that do not depend on the peer: numbers, ranges, and (ingress) names resolved on the subject. */
function fixedPorts(ports: readonly PortMatch[], dir: Direction, subject: PodInfo, expand: boolean, out: (e: PortEntry, times: number, sumTextLen: number) => void): void {
  for (const m of ports) {
    if (m.type === 'range') {
      if (m.lo <= 1 && m.hi >= 65535) out({ protocol: m.protocol, range: null }, 1, 4);
      else if (m.lo === m.hi || !expand) out({ protocol: m.protocol, range: [m.lo, m.hi] }, 1, `[${m.lo},${m.hi}]`.length);
      else out({ protocol: m.protocol, range: null }, m.hi - m.lo + 1, sumSinglePortText(m.lo, m.hi));
    } else if (dir === 'ingress') {
      for (const e of namedOn(m, subject)) out(e, 1, `[${e.range![0]},${e.range![1]}]`.length);
    }
  }
}

function namedOn(m: Extract<PortMatch, { type: 'named' }>, pod: PodInfo): PortEntry[] {
  const out: PortEntry[] = [];
  const seen = new Set<string>();
  for (const np of pod.namedPorts) {
    if (np.name !== m.name || (m.protocol !== null && m.protocol !== np.protocol)) continue;
    const k = `${np.protocol}/${np.port}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ protocol: np.protocol, range: [np.port, np.port] });
  }
  return out;
}

/** Σ over p in [lo, hi] of the length of "[p,p]". */
function sumSinglePortText(lo: number, hi: number): number {
  let sum = 0;
  for (let d = 1, start = 1; start <= hi; d++, start *= 10) {
    const a = Math.max(lo, start);
    const b = Math.min(hi, start * 10 - 1);
    if (a <= b) sum += (b - a + 1) * (2 * d + 3);
  }
  return sum;
}

/** Minimal CIDRs of each range minus the excepts (Contiv's subtractSubnet). */
export function subtractCidrs(ranges: readonly IpRange[], except: readonly IpRange[]): string[] {
  const out: string[] = [];
  for (const r of ranges) {
    let pieces: { lo: bigint; hi: bigint }[] = [{ lo: r.lo, hi: r.hi }];
    for (const e of except) {
      if (e.family !== r.family) continue;
      const next: { lo: bigint; hi: bigint }[] = [];
      for (const p of pieces) {
        if (e.hi < p.lo || e.lo > p.hi) {
          next.push(p);
          continue;
        }
        if (p.lo < e.lo) next.push({ lo: p.lo, hi: e.lo - 1n });
        if (e.hi < p.hi) next.push({ lo: e.hi + 1n, hi: p.hi });
      }
      pieces = next;
    }
    for (const p of pieces) out.push(...rangeToCidrs({ family: r.family, lo: p.lo, hi: p.hi }));
  }
  return out;
}

const hostCidr = (family: Family, value: bigint) => `${formatIp(family, value)}/${family === 4 ? 32 : 128}`;

function nsMatchesFor(cluster: Cluster, peer: Extract<Peer, { type: 'pods' }>, nsIdx: number, subject: PodInfo): boolean {
  return namespaceMatches(cluster, peer.namespaces, cluster.namespaces[nsIdx]!, subject);
}

function peerPods(cluster: Cluster, peer: Extract<Peer, { type: 'pods' }>, subject: PodInfo): PodInfo[] {
  const out: PodInfo[] = [];
  for (const ns of cluster.namespaces) {
    if (!nsMatchesFor(cluster, peer, ns.idx, subject)) continue;
    for (const pod of cluster.podsByNamespace.get(ns.name) ?? []) {
      if (!isSubject(pod)) continue;
      if (peer.pods === null || cluster.selectors.matchesPod(peer.pods, pod.idx)) out.push(pod);
    }
  }
  return out;
}

const isRelative = (p: Peer) => p.type === 'pods' && p.namespaces.type !== 'selector' && p.namespaces.type !== 'name';
const ACTION = { allow: 'PERMIT', deny: 'DENY', pass: 'PERMIT' } as const;

// --- materialised (one pod × direction) ---------------------------------------------------

/** Every naive rule of one pod and direction, in GenerateRules order. */
export function naiveRulesOf(cluster: Cluster, pod: PodInfo, dir: Direction, opts: NaiveOptions): IrRule[] {
  const policies = naivePolicies(cluster, pod, dir);
  if (policies.length === 0) return [];
  const out: IrRule[] = [];
  const rule = (action: 'PERMIT' | 'DENY', net: string, e: PortEntry): IrRule => peerRule(dir, action, e.protocol, net, e.range);
  for (const policy of policies) {
    for (const r of rulesFor(policy, dir)!) {
      const action = ACTION[r.action];
      const fixed: PortEntry[] = [];
      if (r.ports === null) fixed.push(ALL_PORTS);
      else {
        for (const m of r.ports) {
          if (m.type === 'range') {
            if (m.lo <= 1 && m.hi >= 65535) fixed.push({ protocol: m.protocol, range: null });
            else if (m.lo === m.hi || !opts.expandRanges) fixed.push({ protocol: m.protocol, range: [m.lo, m.hi] });
            else for (let p = m.lo; p <= m.hi; p++) fixed.push({ protocol: m.protocol, range: [p, p] });
          } else if (dir === 'ingress') fixed.push(...namedOn(m, pod));
        }
      }
      const named = dir === 'egress' && r.ports !== null ? r.ports.filter((m): m is Extract<PortMatch, { type: 'named' }> => m.type === 'named') : [];
      for (const peer of r.peers) {
        switch (peer.type) {
          case 'none':
            break;
          case 'any':
            for (const e of fixed) out.push(rule(action, '', e));
            break;
          case 'pods':
            for (const p of peerPods(cluster, peer, pod)) {
              const entries = [...fixed, ...named.flatMap((m) => namedOn(m, p))];
              for (const ip of p.ips) for (const e of entries) out.push(rule(action, hostCidr(ip.family, ip.value), e));
            }
            break;
          case 'nodes':
            for (const node of cluster.nodes) {
              if (!cluster.selectors.matchesNode(peer.selector, node.idx)) continue;
              for (const ip of node.ips) for (const e of fixed) out.push(rule(action, hostCidr(ip.family, ip.value), e));
            }
            break;
          case 'cidrs':
            for (const c of subtractCidrs(peer.ranges, peer.except)) for (const e of fixed) out.push(rule(action, c, e));
            break;
        }
      }
    }
  }
  out.push({ action: naiveIsolated(cluster, pod, dir, policies) ? 'DENY' : 'PERMIT', protocol: 'ANY', srcNetwork: '', srcPortRange: null, dstNetwork: '', dstPortRange: null });
  return out;
}

function naiveIsolated(cluster: Cluster, pod: PodInfo, dir: Direction, policies: readonly Policy[]): boolean {
  return policies.some((p) => p.tier === 'networkpolicy' && !p.legacy) || (dir === 'ingress' && cluster.namespaces[pod.nsIdx]!.legacyIngressIsolation);
}

// --- counted (whole cluster) --------------------------------------------------------------

/** Bytes of `{"action":"","protocol":"","srcNetwork":"","srcPortRange":null,"dstNetwork":"","dstPortRange":}`. */
const RULE_CONST = JSON.stringify({ action: '', protocol: '', srcNetwork: '', srcPortRange: null, dstNetwork: '', dstPortRange: null }).length - 'null'.length;

interface Tally {
  rules: number;
  /** Σ JSON bytes of the rules (without the commas between them). */
  bytes: number;
}

export interface NaiveResult {
  readonly expandRanges: boolean;
  /** Σ over pods and directions. */
  readonly rules: number;
  /** Bytes of JSON.stringify of the naive IR (see naiveIrJson), computed. */
  readonly bytes: number;
  readonly rulesPerNode: ReadonlyMap<string, number>;
  /** Pod × direction tables that are not empty. */
  readonly nonEmptyTables: number;
  readonly podDirections: number;
  /** Rules of each pod × direction, for spot checks: key "ns/pod|dir". */
  readonly perPodDir: ReadonlyMap<string, Tally>;
}

/** Addresses of a peer as (count, Σ text length); pods also kept for egress named ports. */
interface AddrSet {
  readonly n: number;
  readonly len: number;
  readonly pods: readonly PodInfo[];
}

export function naiveCounts(cluster: Cluster, nodeNames: readonly string[], opts: NaiveOptions): NaiveResult {
  const addrCache = new Map<string, AddrSet>();
  const ruleCache = new Map<string, Tally>();
  const cidrCache = new Map<Peer, AddrSet>();
  const textLen = new Map<number, number>(); // pod idx → Σ len of its host CIDRs
  const podAddrLen = (p: PodInfo) => {
    let l = textLen.get(p.idx);
    if (l === undefined) {
      l = p.ips.reduce((s, ip) => s + hostCidr(ip.family, ip.value).length, 0);
      textLen.set(p.idx, l);
    }
    return l;
  };

  const addrsOf = (peer: Peer, subject: PodInfo): AddrSet => {
    switch (peer.type) {
      case 'none':
        return { n: 0, len: 0, pods: [] };
      case 'any':
        return { n: 1, len: 0, pods: [] };
      case 'cidrs': {
        let a = cidrCache.get(peer);
        if (!a) {
          const cidrs = subtractCidrs(peer.ranges, peer.except);
          a = { n: cidrs.length, len: cidrs.reduce((s, c) => s + c.length, 0), pods: [] };
          cidrCache.set(peer, a);
        }
        return a;
      }
      case 'nodes': {
        const key = `n${peer.selector}`;
        let a = addrCache.get(key);
        if (!a) {
          let n = 0;
          let len = 0;
          for (const node of cluster.nodes) {
            if (!cluster.selectors.matchesNode(peer.selector, node.idx)) continue;
            for (const ip of node.ips) {
              n++;
              len += hostCidr(ip.family, ip.value).length;
            }
          }
          a = { n, len, pods: [] };
          addrCache.set(key, a);
        }
        return a;
      }
      case 'pods': {
        const m = peer.namespaces;
        const nsKey = m.type === 'selector' ? `s${m.selector}` : m.type === 'name' ? `=${m.name}` : `${m.type}:${'keys' in m ? m.keys.join(',') : ''}@${subject.namespace}`;
        const key = `p${nsKey}|${peer.pods ?? '*'}`;
        let a = addrCache.get(key);
        if (!a) {
          const pods = peerPods(cluster, peer, subject);
          a = { n: pods.reduce((s, p) => s + p.ips.length, 0), len: pods.reduce((s, p) => s + podAddrLen(p), 0), pods };
          addrCache.set(key, a);
        }
        return a;
      }
    }
  };

  const ruleTally = (policy: Policy, r: Rule, dir: Direction, subject: PodInfo): Tally => {
    const relative = r.peers.some(isRelative);
    const ingressNamed = dir === 'ingress' && (r.ports ?? []).some((m) => m.type === 'named');
    const key = `${policy.id}|${dir}|${r.index}|${relative ? subject.namespace : ''}|${ingressNamed ? subject.namedPorts.map((np) => `${np.name}=${np.port}/${np.protocol}`).join(',') : ''}`;
    const hit = ruleCache.get(key);
    if (hit) return hit;
    const actionLen = ACTION[r.action].length;
    // Fixed port entries: count m, Σ(len(protocol) + len(portRange text)).
    let m = 0;
    let sumE = 0;
    const addEntry = (e: PortEntry, times: number, sumText: number) => {
      m += times;
      sumE += times * e.protocol.length + sumText;
    };
    if (r.ports === null) addEntry(ALL_PORTS, 1, 4);
    else fixedPorts(r.ports, dir, subject, opts.expandRanges, addEntry);
    const named = dir === 'egress' && r.ports !== null ? r.ports.filter((x): x is Extract<PortMatch, { type: 'named' }> => x.type === 'named') : [];
    const t: Tally = { rules: 0, bytes: 0 };
    const add = (n: number, len: number, mm: number, sum: number) => {
      // n addresses × mm entries: each rule = CONST + action + network + protocol + ports.
      t.rules += n * mm;
      t.bytes += n * mm * (RULE_CONST + actionLen) + mm * len + n * sum;
    };
    for (const peer of r.peers) {
      const a = addrsOf(peer, subject);
      if (peer.type === 'pods' && named.length > 0) {
        for (const p of a.pods) {
          let pm = m;
          let ps = sumE;
          for (const nm of named) {
            for (const e of namedOn(nm, p)) {
              pm++;
              ps += e.protocol.length + `[${e.range![0]},${e.range![1]}]`.length;
            }
          }
          add(p.ips.length, podAddrLen(p), pm, ps);
        }
      } else add(a.n, a.len, m, sumE);
    }
    ruleCache.set(key, t);
    return t;
  };

  const catchAllBytes = (action: 'PERMIT' | 'DENY') => RULE_CONST + action.length + 'ANY'.length + 4;
  const rulesPerNode = new Map<string, number>();
  const perPodDir = new Map<string, Tally>();
  let rules = 0;
  let nonEmpty = 0;
  let podDirs = 0;
  // Bytes of {"nodes":{"<node>":{"pods":{"<pod>":{"ips":[…],"ingress":[…],"egress":[…]},…}},…}}.
  let bytes = '{"nodes":{}}'.length;
  const byNode = new Map<string, PodInfo[]>();
  for (const p of cluster.pods) {
    if (!isSubject(p) || !p.nodeName) continue;
    let l = byNode.get(p.nodeName);
    if (!l) byNode.set(p.nodeName, (l = []));
    l.push(p);
  }
  nodeNames.forEach((nodeName, ni) => {
    bytes += (ni > 0 ? 1 : 0) + JSON.stringify(nodeName).length + 1 + '{"pods":{}}'.length;
    let nodeRules = 0;
    (byNode.get(nodeName) ?? []).forEach((pod, pi) => {
      bytes += (pi > 0 ? 1 : 0) + JSON.stringify(pod.key).length + 1 + JSON.stringify({ ips: pod.ips.map((ip) => formatIp(ip.family, ip.value)), ingress: [], egress: [] }).length;
      for (const dir of ['ingress', 'egress'] as const) {
        podDirs++;
        const policies = naivePolicies(cluster, pod, dir);
        const tally: Tally = { rules: 0, bytes: 0 };
        if (policies.length > 0) {
          for (const policy of policies) {
            for (const r of rulesFor(policy, dir)!) {
              const t = ruleTally(policy, r, dir, pod);
              tally.rules += t.rules;
              tally.bytes += t.bytes;
            }
          }
          tally.rules += 1;
          tally.bytes += catchAllBytes(naiveIsolated(cluster, pod, dir, policies) ? 'DENY' : 'PERMIT');
          nonEmpty++;
        }
        perPodDir.set(`${pod.key}|${dir}`, tally);
        // Rules plus the commas between them.
        bytes += tally.bytes + Math.max(0, tally.rules - 1);
        nodeRules += tally.rules;
      }
    });
    rules += nodeRules;
    rulesPerNode.set(nodeName, nodeRules);
  });
  return { expandRanges: opts.expandRanges, rules, bytes, rulesPerNode, nonEmptyTables: nonEmpty, podDirections: podDirs, perPodDir };
}

/** The naive IR of the given pods, materialised (small clusters or samples only). */
export function naiveIrJson(cluster: Cluster, nodeNames: readonly string[], opts: NaiveOptions): string {
  const nodes: Record<string, { pods: Record<string, { ips: string[]; ingress: IrRule[]; egress: IrRule[] }> }> = {};
  for (const n of nodeNames) nodes[n] = { pods: {} };
  for (const p of cluster.pods) {
    if (!isSubject(p) || !p.nodeName || !nodes[p.nodeName]) continue;
    nodes[p.nodeName]!.pods[p.key] = { ips: p.ips.map((ip) => formatIp(ip.family, ip.value)), ingress: naiveRulesOf(cluster, p, 'ingress', opts), egress: naiveRulesOf(cluster, p, 'egress', opts) };
  }
  return JSON.stringify({ nodes });
}
