// Answers a parsed chat-ops question: one sentence, plus the verdict and its decision chain
// for "can" questions, or pod sets grouped by namespace and workload label for "who"/"what"
// questions (a bot answer that lists thousands of pods is not an answer).
//
// Bounded work: the other pods fall into classes that every rule treats alike (the compiler's
// policy signature, namespace, labels, address families, node of host-network pods, named
// ports of destinations, membership in the fixed endpoint's CIDR peers). A class is evaluated
// once for one port; for every port, each side once per segment of its own rules' port cuts,
// a side shared by classes (same signature) only once. Past MAX_EVALUATIONS engine calls the
// answer names the pods it skipped. (M-sized bench snapshot: ~55k calls, under 0.5 s.)
import type { Cluster } from '../cluster.js';
import { groupOf } from '../compile/group.js';
import { subjectPod, type Endpoint, type Flow } from '../evaluate/endpoint.js';
import { evaluate, evaluateSide, type SideVerdict, type Verdict } from '../evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../evaluate/resolve.js';
import { portSegments } from '../net/intervals.js';
import { parseIp, rangeContains } from '../net/ip.js';
import { describePolicy, PROTOCOLS, type Direction, type Peer, type Protocol, type Rule } from '../policy/model.js';
import { ipKey, type IpOwner, type PodInfo } from '../snapshot/cluster.js';
import { isParseFailure, parseQuestion, type ParseFailure, type Query } from './parse.js';

export const MAX_EVALUATIONS = 300_000;
/** Items per port set and port sets per sentence; JSON member lists are capped at MAX_MEMBERS. */
export const MAX_ITEMS_IN_TEXT = 5;
export const MAX_GROUPS_IN_TEXT = 4;
export const MAX_MEMBERS = 100;

/** Allowed inclusive port ranges per protocol asked about. */
export type PortRanges = Partial<Record<Protocol, [number, number][]>>;
type CanQuery = Extract<Query, { kind: 'can' }>;
type SetQuery = Extract<Query, { kind: 'who' | 'what' }>;

interface Answered {
  /** One sentence. */
  readonly text: string;
  readonly query: Query;
}
export interface CanAnswer extends Answered {
  readonly kind: 'can';
  readonly allowed: boolean;
  readonly flow: { readonly from: string; readonly to: string; readonly port: number; readonly protocol: Protocol };
  readonly verdict: Verdict;
  /** One line per evaluated side: every tier's message, in order. */
  readonly chain: readonly string[];
}
/** "can A reach B?" without a port: the allowed port ranges. */
export interface CanPortsAnswer extends Answered {
  readonly kind: 'can-ports';
  readonly allowed: boolean;
  readonly ports: string;
  readonly ranges: PortRanges;
}
/** `ports` e.g. "TCP 5432", "all ports"; `members` aggregated: "all 12 pods of namespace shop", "pods app=web in shop (3)", "shop/db". */
export interface ReachGroup {
  readonly ports: string;
  readonly pods: number;
  readonly members: readonly string[];
  readonly moreMembers: number;
}
export interface SetAnswer extends Answered {
  readonly kind: 'who' | 'what';
  readonly reachable: number;
  readonly of: number;
  readonly groups: readonly ReachGroup[];
  readonly work: { readonly classes: number; readonly evaluations: number; readonly skippedPods: number; readonly podsWithoutNamedPort: number };
}
export interface ErrorAnswer extends Answered {
  readonly kind: 'error';
  readonly error: { readonly field: string; readonly message: string };
}
export type Answer = CanAnswer | CanPortsAnswer | SetAnswer | ErrorAnswer;

/** Parse and answer; an unreadable question comes back as the parser's failure. */
export function ask(cluster: Cluster, question: unknown): Answer | ParseFailure {
  const q = parseQuestion(question);
  return isParseFailure(q) ? q : answer(cluster, q);
}

export function answer(cluster: Cluster, query: Query): Answer {
  try {
    if (query.kind !== 'can') return answerSet(cluster, query);
    return query.port === null ? answerCanPorts(cluster, query) : answerCan(cluster, query, query.port);
  } catch (e) {
    // Unknown pods, missing named ports, no shared address family: the asker's to fix.
    if (!(e instanceof FlowError)) throw e;
    return { kind: 'error', text: `I can't answer that: ${e.message}.`, query, error: { field: e.field, message: e.message } };
  }
}

const ownerOf = (cluster: Cluster, spec: EndpointSpec): IpOwner | undefined => {
  if ('pod' in spec) return cluster.podByKey.has(spec.pod) ? { kind: 'pod', pod: cluster.podByKey.get(spec.pod)! } : undefined;
  const ip = parseIp(spec.ip);
  return ip ? cluster.ipOwners.get(ipKey(ip)) : undefined;
};
function podOf(cluster: Cluster, spec: EndpointSpec): PodInfo | null {
  const o = ownerOf(cluster, spec);
  return o?.kind === 'pod' ? o.pod : null;
}
/** An address says whose it is: "10.0.0.7 (pod shop/web)". */
function nameOf(cluster: Cluster, spec: EndpointSpec): string {
  const o = 'pod' in spec ? undefined : ownerOf(cluster, spec);
  return 'pod' in spec ? spec.pod : o ? `${spec.ip} (${o.kind === 'pod' ? `pod ${o.pod.key}` : `node ${o.node.name}`})` : spec.ip;
}

/** A named port of the destination: of the asked protocol, or else the one it declares (TCP first). */
function namedPort(pod: PodInfo | null, name: string, protocol: Protocol | null): { port: number; protocol: Protocol } | null {
  const found = (pod?.namedPorts ?? []).filter((np) => np.name === name && (protocol === null || np.protocol === protocol));
  return found.sort((a, b) => PROTOCOLS.indexOf(a.protocol) - PROTOCOLS.indexOf(b.protocol))[0] ?? null;
}
function portOn(cluster: Cluster, to: EndpointSpec, port: number | string, protocol: Protocol | null): { port: number; protocol: Protocol; text: string } {
  if (typeof port === 'number') return { port, protocol: protocol ?? 'TCP', text: `${protocol ?? 'TCP'} ${port}` };
  const np = namedPort(podOf(cluster, to), port, protocol);
  if (!np) throw new FlowError('port', `${nameOf(cluster, to)} has no ${protocol ? `${protocol} ` : ''}port named "${port}"`);
  return { ...np, text: `${np.protocol} ${np.port} (${port})` };
}

const ruleText = (s: SideVerdict) => `${describePolicy(s.policy!)} rule ${s.rule!.index}${s.rule!.name ? ` "${s.rule!.name}"` : ''}`;
/** A Pass is part of why: the Admin tier delegated the decision. */
function passedDown(s: SideVerdict): string {
  const pass = s.trace.find((t) => t.outcome === 'pass');
  return pass?.policy ? ` after ${describePolicy(pass.policy)} passed it down` : '';
}

/** The clause after the dash: which rule on which side decided. */
function reasonOf(v: Verdict): string {
  if (v.reason === 'loopback') return 'a pod can always reach itself';
  if (v.reason === 'node-local') return "traffic from the pod's own node is always allowed";
  const sides = (['egress', 'ingress'] as const).flatMap((dir) => (v[dir] ? [{ dir, s: v[dir]! }] : []));
  if (v.allowed) {
    const decided = sides.filter(({ s }) => s.policy !== null);
    if (decided.length === 0) return `allowed by default${sides.map(({ s }) => passedDown(s)).find((p) => p) ?? ': no policy decides'}`;
    return decided.map(({ dir, s }) => `${decided.length > 1 ? `${dir} ` : ''}allowed by ${ruleText(s)}${passedDown(s)}`).join(' and ');
  }
  return sides
    .filter(({ s }) => !s.allowed)
    // No deciding policy on a denied side: NetworkPolicy isolation, whose message names the policies.
    .map(({ dir, s }) => (s.policy ? `denied at ${dir} by ${ruleText(s)}${passedDown(s)}` : `denied at ${dir}: ${s.trace[s.trace.length - 1]?.message}`))
    .join(' and ');
}

function answerCan(cluster: Cluster, q: CanQuery, asked: number | string): CanAnswer {
  const p = portOn(cluster, q.to, asked, q.protocol);
  const verdict = evaluate(cluster, resolveFlow(cluster, { from: q.from, to: q.to, port: p.port, protocol: p.protocol }));
  const [from, to] = [nameOf(cluster, q.from), nameOf(cluster, q.to)];
  const chain = verdict.reason
    ? [reasonOf(verdict)]
    : (['egress', 'ingress'] as const).flatMap((dir) => {
        const s = verdict[dir];
        return s ? [`${dir} of ${dir === 'egress' ? from : to}: ${s.trace.map((t) => t.message).join(' → ')} ⇒ ${s.allowed ? 'allowed' : 'denied'}`] : [];
      });
  const yes = verdict.allowed;
  const text = `${yes ? 'Yes' : 'No'}: ${from} ${yes ? 'can' : 'cannot'} reach ${to} on ${p.text} — ${reasonOf(verdict)}.`;
  return { kind: 'can', text, query: q, allowed: yes, flow: { from, to, port: p.port, protocol: p.protocol }, verdict, chain };
}

/** Host-network pods are never subjects: none of their rules apply. */
const rulesOf = (cluster: Cluster, pod: PodInfo | null, dir: Direction): readonly Rule[] => (pod && !pod.hostNetwork ? groupOf(cluster, pod, dir).rules : []);

/** Port cuts per protocol: inside one segment every rule involved answers alike. */
function cutsOf(rules: readonly Rule[], destination: PodInfo | null): Record<Protocol, [number, number][]> {
  const cuts: Record<Protocol, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  for (const r of rules) for (const m of r.ports ?? []) if (m.type === 'range') cuts[m.protocol].push([m.lo, m.hi]);
  for (const np of destination?.namedPorts ?? []) cuts[np.protocol].push([np.port, np.port]);
  return cuts;
}

/** Engine calls made (a whole flow or one side), and side results shared between classes. */
export interface Work {
  evaluations: number;
  readonly sides: Map<string, [number, number][]>;
}
const newWork = (): Work => ({ evaluations: 0, sides: new Map() });

const EVERY: [number, number][] = [[1, 65535]];
function intersect(a: readonly [number, number][], b: readonly [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; a[i]![1] < b[j]![1] ? i++ : j++) {
    const [lo, hi] = [Math.max(a[i]![0], b[j]![0]), Math.min(a[i]![1], b[j]![1])];
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

/** Sides probed over every port: rules of each, keys to share a side's result between classes, which side to try first. */
interface Sides {
  readonly egress: readonly Rule[];
  readonly ingress: readonly Rule[];
  readonly keys?: Partial<Record<Direction, string>>;
  readonly first?: Direction;
}

/**
 * Allowed port ranges of one flow: at `port` only, by one evaluation, or at every port. A
 * side's verdict is constant between the port cuts of its own rules (and the destination's
 * named ports), so each side is probed on its own segments and the two intersected; a side
 * that allows nothing spares the other; a side whose key was seen (same family) is reused.
 */
function probe(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, protocols: readonly Protocol[], work: Work, at: number | Sides): PortRanges {
  const all = (r: [number, number][]): PortRanges => Object.fromEntries(protocols.map((p) => [p, r]));
  let flow: Flow;
  try {
    flow = resolveFlow(cluster, { from, to, port: typeof at === 'number' ? at : 1, protocol: protocols[0]! });
  } catch (e) {
    if (e instanceof FlowError) return all([]); // no shared address family: not reachable, as in the matrix
    throw e;
  }
  work.evaluations++;
  const whole = evaluate(cluster, flow);
  if (typeof at === 'number') return all(whole.allowed ? [[at, at]] : []);
  if (whole.reason) return all(EVERY); // loopback, node-local: any port
  const { keys = {}, first = 'egress' } = at;
  const [src, dst] = [subjectPod(flow.from), subjectPod(flow.to)];
  const side = (dir: Direction, subject: PodInfo | null, peer: Endpoint, rules: readonly Rule[], protocol: Protocol) => {
    if (!subject) return EVERY;
    const key = keys[dir] === undefined ? undefined : `${dir}|${protocol}|${flow.family}|${keys[dir]}`;
    const seen = key === undefined ? undefined : work.sides.get(key);
    if (seen) return seen;
    const allowed: [number, number][] = [];
    if (key !== undefined) work.sides.set(key, allowed);
    for (const [lo, hi] of portSegments(cutsOf(rules, dst)[protocol])) {
      work.evaluations++;
      if (!evaluateSide(cluster, dir, subject, peer, { ...flow, port: lo, protocol }).allowed) continue;
      const last = allowed[allowed.length - 1];
      if (last && last[1] + 1 === lo) last[1] = hi;
      else allowed.push([lo, hi]);
    }
    return allowed;
  };
  const egress = (protocol: Protocol) => side('egress', src, flow.to, at.egress, protocol);
  const ingress = (protocol: Protocol) => side('ingress', dst, flow.from, at.ingress, protocol);
  // The side shared by many classes first: when it allows nothing, the other is never evaluated.
  const [a, b] = first === 'egress' ? [egress, ingress] : [ingress, egress];
  return Object.fromEntries(protocols.map((p) => {
    const one = a(p);
    return [p, one.length === 0 ? [] : intersect(one, b(p))];
  }));
}

const isEveryPort = (r: readonly [number, number][] | undefined) => r?.length === 1 && r[0]![0] === 1 && r[0]![1] === 65535;
/** "all ports", "TCP 5432", "all UDP ports and TCP 80, 443, 8000-8999"; "" for none. */
function formatPorts(ranges: PortRanges, protocols: readonly Protocol[]): string {
  if (protocols.length === PROTOCOLS.length && protocols.every((p) => isEveryPort(ranges[p]))) return 'all ports';
  const each = protocols.filter((p) => (ranges[p]?.length ?? 0) > 0).map((p) => {
    const r = ranges[p]!;
    if (isEveryPort(r)) return `all ${p} ports`;
    const shown = r.slice(0, 6).map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`));
    return `${p} ${shown.join(', ')}${r.length > 6 ? ` and ${r.length - 6} more ranges` : ''}`;
  });
  return each.join(' and ');
}
const protocolsOf = (q: Query): readonly Protocol[] => (q.protocol ? [q.protocol] : PROTOCOLS);

function answerCanPorts(cluster: Cluster, q: CanQuery): CanPortsAnswer {
  // One resolution up front turns unknown pods and address-family mismatches into errors.
  resolveFlow(cluster, { from: q.from, to: q.to, port: 1, protocol: q.protocol ?? 'TCP' });
  const sides = { egress: rulesOf(cluster, podOf(cluster, q.from), 'egress'), ingress: rulesOf(cluster, podOf(cluster, q.to), 'ingress') };
  const ranges = probe(cluster, q.from, q.to, protocolsOf(q), newWork(), sides);
  const ports = formatPorts(ranges, protocolsOf(q));
  const [from, to] = [nameOf(cluster, q.from), nameOf(cluster, q.to)];
  const text = ports === ''
    ? `No: ${from} cannot reach ${to} on any ${q.protocol ? `${q.protocol} ` : ''}port.`
    : `Yes: ${from} can reach ${to} on ${ports}${ports.startsWith('all') ? '' : ' only'} (ask about one port for the decision chain).`;
  return { kind: 'can-ports', text, query: q, allowed: ports !== '', ports, ranges };
}

/** Pods every rule treats alike, and what the one evaluated for them all found. */
export interface ReachClass {
  readonly members: readonly PodInfo[];
  /** null: not examined, for the reason in `skipped`. */
  readonly ranges: PortRanges | null;
  readonly skipped?: 'budget' | 'no-such-named-port';
  /** formatPorts of ranges, or the one port asked ("TCP 5432 (postgres)"); "" when not reachable. */
  readonly ports: string;
}

const cidrBits = (peers: readonly Extract<Peer, { type: 'cidrs' }>[], pod: PodInfo) =>
  peers.map((p) => pod.ips.map((ip) => +(p.ranges.some((r) => rangeContains(r, ip)) && !p.except.some((r) => rangeContains(r, ip)))).join('')).join('.');

/** Who reaches the fixed endpoint (or what it reaches), one evaluation per class and port segment. */
export function reach(cluster: Cluster, q: SetQuery, work: Work = newWork()): ReachClass[] {
  const who = q.kind === 'who';
  const fixed = who ? q.to : q.from;
  const fixedPod = podOf(cluster, fixed);
  if ('pod' in fixed && !fixedPod) throw new FlowError(who ? 'to' : 'from', `no pod "${fixed.pod}" in the snapshot`);
  const fixedRules = rulesOf(cluster, fixedPod, who ? 'ingress' : 'egress');
  const cidrPeers = fixedRules.flatMap((r) => r.peers.filter((p): p is Extract<Peer, { type: 'cidrs' }> => p.type === 'cidrs'));
  const fixedPort = who && q.port !== null ? portOn(cluster, fixed, q.port, q.protocol) : null;

  // A class key has two halves: what the pod's own side depends on (its policies: the group
  // signature) and what the fixed endpoint's side sees of it (its identity as a peer).
  const classes = new Map<string, { members: PodInfo[]; rules: readonly Rule[]; signature: string; identity: string }>();
  for (const pod of cluster.pods) {
    if (pod === fixedPod) continue;
    const group = pod.hostNetwork ? null : groupOf(cluster, pod, who ? 'egress' : 'ingress');
    const signature = group?.signature ?? `host@${pod.nodeName}`;
    const labels = JSON.stringify(Object.entries(pod.labels).sort());
    const identity = [pod.hostNetwork ? `host@${pod.nodeName}` : '', pod.namespace, labels, pod.ips.map((i) => i.family).join(), cidrBits(cidrPeers, pod), who ? '' : JSON.stringify(pod.namedPorts)].join('|');
    const key = `${signature}|${identity}`;
    (classes.get(key) ?? classes.set(key, { members: [], rules: group?.rules ?? [], signature, identity }).get(key)!).members.push(pod);
  }

  return [...classes.values()].map(({ members, rules, signature, identity }): ReachClass => {
    const rep = members[0]!;
    const [from, to] = who ? [{ pod: rep.key }, fixed] : [fixed, { pod: rep.key }];
    if (work.evaluations >= MAX_EVALUATIONS) return { members, ranges: null, ports: '', skipped: 'budget' };
    if (q.port === null) {
      const sides: Sides = who
        ? { egress: rules, ingress: fixedRules, keys: { egress: signature, ingress: identity }, first: 'egress' }
        : { egress: fixedRules, ingress: rules, keys: { egress: identity, ingress: signature }, first: 'ingress' };
      const ranges = probe(cluster, from, to, protocolsOf(q), work, sides);
      return { members, ranges, ports: formatPorts(ranges, protocolsOf(q)) };
    }
    const p = fixedPort ?? (typeof q.port === 'number' || namedPort(rep, q.port, q.protocol) ? portOn(cluster, to, q.port, q.protocol) : null);
    if (!p) return { members, ranges: null, ports: '', skipped: 'no-such-named-port' };
    const ranges = probe(cluster, from, to, [p.protocol], work, p.port);
    return { members, ranges, ports: ranges[p.protocol]!.length > 0 ? p.text : '' };
  });
}

function answerSet(cluster: Cluster, q: SetQuery): SetAnswer {
  const work = newWork();
  const classes = reach(cluster, q, work);
  const fixed = q.kind === 'who' ? q.to : q.from;
  const fixedPod = podOf(cluster, fixed);
  const byPorts = new Map<string, PodInfo[]>();
  for (const c of classes) if (c.ports !== '') (byPorts.get(c.ports) ?? byPorts.set(c.ports, []).get(c.ports)!).push(...c.members);
  const groups = [...byPorts].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).map(([ports, pods]): ReachGroup => {
    const members = describePods(cluster, pods, fixedPod);
    return { ports, pods: pods.length, members: members.slice(0, MAX_MEMBERS), moreMembers: Math.max(0, members.length - MAX_MEMBERS) };
  });
  const count = (why: ReachClass['skipped']) => classes.filter((c) => c.skipped === why).reduce((n, c) => n + c.members.length, 0);
  const [skippedPods, podsWithoutNamedPort] = [count('budget'), count('no-such-named-port')];
  const reachable = groups.reduce((n, g) => n + g.pods, 0);
  const of = cluster.pods.length - (fixedPod ? 1 : 0);

  const pods = `${fixedPod ? 'other ' : ''}pod${of === 1 ? '' : 's'}`;
  // One port asked: it goes in the sentence once, unless named ports differ between destinations.
  const onePort = q.port !== null && groups.length === 1;
  const portPhrase = onePort ? ` on ${groups[0]!.ports}` : q.port === null ? (q.protocol ? ` on ${q.protocol}` : '') : typeof q.port === 'number' ? ` on ${q.protocol ?? 'TCP'} ${q.port}` : ` on ${q.port}`;
  const items = (g: ReachGroup) => {
    const more = g.members.length + g.moreMembers - MAX_ITEMS_IN_TEXT;
    return `${g.members.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  };
  const listed = groups.slice(0, MAX_GROUPS_IN_TEXT).map((g) => (onePort ? items(g) : `${items(g)} (${g.ports})`));
  if (groups.length > MAX_GROUPS_IN_TEXT) listed.push(`and ${groups.length - MAX_GROUPS_IN_TEXT} more port sets`);
  const notes = [
    ...(podsWithoutNamedPort > 0 ? [`${podsWithoutNamedPort} have no port named ${q.port}`] : []),
    ...(skippedPods > 0 ? [`stopped after ${MAX_EVALUATIONS} evaluations: ${skippedPods} not examined; ask about one port`] : []),
  ];
  const tail = `${listed.length > 0 ? `: ${listed.join('; ')}` : ''}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}.`;
  const name = nameOf(cluster, fixed);
  const text = q.kind === 'who'
    ? reachable === 0 ? `No pod can reach ${name}${portPhrase} (0 of ${of} ${pods})${tail}` : `${reachable} of ${of} ${pods} can reach ${name}${portPhrase}${tail}`
    : reachable === 0 ? `${name} can reach no pod${portPhrase} (0 of ${of} ${pods})${tail}` : `${name} can reach ${reachable} of ${of} ${pods}${portPhrase}${tail}`;
  return { kind: q.kind, text, query: q, reachable, of, groups, work: { classes: classes.length, evaluations: work.evaluations, skippedPods, podsWithoutNamedPort } };
}

// Preferred when several labels pick out the same pods; hash and per-pod labels never name a workload.
const WORKLOAD_KEYS = ['app.kubernetes.io/name', 'app', 'k8s-app', 'name', 'app.kubernetes.io/component', 'component'];
const NOT_WORKLOAD = new Set(['pod-template-hash', 'controller-revision-hash', 'pod-template-generation', 'statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index']);

/**
 * Whole namespaces ("all 12 pods of namespace shop"), else labels that pick out exactly some
 * of these pods of a namespace ("pods app=web in shop (3)"; one pass, biggest first, never
 * overlapping), else pod keys. `exclude` (the pod asked about) counts as no namespace member.
 */
export function describePods(cluster: Cluster, pods: readonly PodInfo[], exclude: PodInfo | null): string[] {
  const other = exclude ? 'other ' : '';
  if (pods.length > 1 && pods.length === cluster.pods.length - (exclude ? 1 : 0)) return [`all ${pods.length} ${other}pods in the cluster`];
  const byNs = new Map<string, Set<PodInfo>>();
  for (const p of pods) (byNs.get(p.namespace) ?? byNs.set(p.namespace, new Set()).get(p.namespace)!).add(p);
  const out: string[] = [];
  for (const [ns, chosen] of [...byNs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const all = (cluster.podsByNamespace.get(ns) ?? []).filter((p) => p !== exclude);
    if (chosen.size === all.length && all.length > 1) {
      out.push(`all ${all.length} ${exclude?.namespace === ns ? other : ''}pods of namespace ${ns}`);
      continue;
    }
    const total = new Map<string, number>();
    const picked = new Map<string, PodInfo[]>();
    for (const p of all) {
      for (const [k, v] of Object.entries(p.labels)) {
        if (NOT_WORKLOAD.has(k)) continue;
        const kv = `${k}=${v}`;
        total.set(kv, (total.get(kv) ?? 0) + 1);
        if (chosen.has(p)) (picked.get(kv) ?? picked.set(kv, []).get(kv)!).push(p);
      }
    }
    const rank = (kv: string) => {
      const i = WORKLOAD_KEYS.indexOf(kv.slice(0, kv.indexOf('=')));
      return i < 0 ? WORKLOAD_KEYS.length : i;
    };
    // A label names a group only if every pod of the namespace carrying it is in the set.
    const labels = [...picked].filter(([kv, ps]) => ps.length >= 2 && ps.length === total.get(kv)).sort((a, b) => b[1].length - a[1].length || rank(a[0]) - rank(b[0]) || (a[0] < b[0] ? -1 : 1));
    const covered = new Set<PodInfo>();
    for (const [kv, ps] of labels) {
      if (ps.some((p) => covered.has(p))) continue;
      out.push(`pods ${kv} in ${ns} (${ps.length})`);
      for (const p of ps) covered.add(p);
    }
    for (const p of chosen) if (!covered.has(p)) out.push(p.key);
  }
  return out;
}
