// "who can reach Y" and "what can X reach" where the name stands for several endpoints (the pods
// of a workload or a label selector, a Service's backing pods on their targetPorts, a CIDR's
// regions: core/evaluate/expand.ts): each member is answered as a fixed endpoint of its own, as
// reach.ts answers one pod, and the answer says what all of them share — the pods that reach
// every member (or that every member reaches) alike — and, member by member, what differs.
import type { Cluster } from '../cluster.js';
import type { AddressRegion } from '../evaluate/cidr.js';
import { endLabel, expandName, type Side } from '../evaluate/expand.js';
import { FlowError, type EndpointSpec } from '../evaluate/resolve.js';
import type { Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { groupItems, MAX_GROUPS_IN_TEXT, MAX_MEMBERS, namedPort, otherProtocolsNote, parenthesized, podOf, portPhrase, protocolAsked, reachGroups, type ReachGroup } from './describe.js';
import { plural } from './group.js';
import { hedge, hedged } from './hedge.js';
import type { Query } from './parse.js';
import { MAX_EVALUATIONS, newWork, podsCounted, podsInText, reach, type ReachClass, type SetQuery } from './reach.js';

/**
 * Members answered one by one at most: each is a "who"/"what" question of its own over every
 * pod (all of them share one MAX_EVALUATIONS budget). Past it the asker narrows the name.
 */
export const MAX_SET_MEMBERS = 256;

export interface MemberReach {
  /** How answers list it: "shop/db-0", "10.0.1.0/25", "shop/api-1 (TCP 8080)" when the members' ports differ. */
  readonly label: string;
  readonly fixed: EndpointSpec;
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
  readonly region?: AddressRegion;
  /** The member's own pod: never compared with itself. */
  readonly pod: PodInfo | null;
  readonly classes: readonly ReachClass[];
  /** The Service port it receives the flow for (End.servicePort). */
  readonly servicePort?: string;
  /** The pods that reach it (who) or that it reaches (what), with the ports. */
  readonly reached: ReadonlyMap<PodInfo, string>;
}

/**
 * One endpoint the name stands for, with every member answered for it: a backing pod of a
 * Service is a member per Service port, and counts as one pod.
 */
export interface TargetReach {
  readonly label: string;
  readonly pod: PodInfo | null;
  readonly region?: AddressRegion;
  readonly members: readonly MemberReach[];
  /** The pods that reach it (who) or that it reaches (what) on any of its members' ports, with those ports. */
  readonly reached: ReadonlyMap<PodInfo, string>;
}

export interface Reaches {
  readonly side: Side;
  readonly members: readonly MemberReach[];
  /** The members by endpoint, in the order the name lists them. */
  readonly targets: readonly TargetReach[];
  /**
   * Pods that reach every endpoint (who), or that every endpoint reaches (what), alike — on the
   * same port ranges, or, when one port was asked, on each member's port (the same Service ports)
   * — with the ports.
   */
  readonly common: ReadonlyMap<PodInfo, string>;
  readonly notes: readonly string[];
  readonly evaluations: number;
}

/** Each member's answer, and what they share. */
export function reachEach(cluster: Cluster, q: SetQuery): Reaches {
  const who = q.kind === 'who';
  const field = who ? 'to' : 'from';
  const side = expandName(cluster, who ? q.to : q.from, field, q.port, protocolAsked(q.port, q.protocol));
  const unit = side.unit ?? 'pod';
  if (side.ends.length > MAX_SET_MEMBERS) {
    throw new FlowError(field, `${side.name} stands for ${side.ends.length} ${plural(unit, 2)}; "${who ? 'who can reach' : 'what can … reach'}" answers at most ${MAX_SET_MEMBERS} one by one: narrow it (a label selector with more labels, one workload, a smaller CIDR), or ask "can … reach …" about two names`);
  }
  const notes = [...side.notes];
  const portOf = (e: Side['ends'][number]) => (e.port === null ? (e.protocol ?? 'every port') : `${e.protocol ?? 'TCP'} ${e.port}`);
  const portsDiffer = who && new Set(side.ends.map(portOf)).size > 1;
  const members: MemberReach[] = [];
  let evaluations = 0;
  let first: FlowError | null = null;
  for (const end of side.ends) {
    const mq: SetQuery = who ? { ...q, to: end.spec, port: end.port, protocol: end.protocol } : { ...q, from: end.spec };
    const key = 'pod' in end.spec ? end.spec.pod : end.spec.ip;
    const label = `${endLabel(key, end.region)}${portsDiffer ? ` (${portOf(end)})` : ''}`;
    // Side results are never shared between members: they depend on the fixed endpoint (reach.ts).
    const work = newWork();
    work.evaluations = evaluations;
    let classes: ReachClass[];
    try {
      classes = reach(cluster, mq, work);
    } catch (e) {
      // A member without the named port asked: said, and left out.
      if (!(e instanceof FlowError)) throw e;
      first ??= e;
      notes.push(end.region && !end.region.owner ? `${end.region.name}: ${e.message}` : e.message);
      continue;
    }
    evaluations = work.evaluations;
    const reached = new Map(classes.flatMap((c) => (c.ports === '' ? [] : c.members.map((p) => [p, c.ports] as const))));
    members.push({ label, fixed: end.spec, port: end.port, protocol: end.protocol, ...(end.region ? { region: end.region } : {}), ...(end.servicePort ? { servicePort: end.servicePort } : {}), pod: podOf(cluster, end.spec), classes, reached });
  }
  if (members.length === 0) throw first!;
  const targets = targetsOf(members, (m) => endLabel('pod' in m.fixed ? m.fixed.pod : m.fixed.ip, m.region));
  return { side, members, targets, common: commonOf(cluster, targets), notes, evaluations };
}

/** Members grouped by endpoint: one label (the member's own when it is alone), its ports joined. */
function targetsOf(members: readonly MemberReach[], endpoint: (m: MemberReach) => string): TargetReach[] {
  const by = new Map<string, MemberReach[]>();
  for (const m of members) (by.get(endpoint(m)) ?? by.set(endpoint(m), []).get(endpoint(m))!).push(m);
  return [...by].map(([key, ms]) => {
    const reached = new Map<PodInfo, string>();
    for (const m of ms) for (const [p, ports] of m.reached) reached.set(p, reached.has(p) ? `${reached.get(p)} and ${ports}` : ports);
    return { label: ms.length === 1 ? ms[0]!.label : key, pod: ms[0]!.pod, ...(ms[0]!.region ? { region: ms[0]!.region } : {}), members: ms, reached };
  });
}

/**
 * Pods every endpoint (but the pod itself, which always reaches itself) has alike: on the same
 * port ranges, or reached at all when each member was asked about one port (its own: a
 * Service's targetPort), on the same Service ports. Listed with their ports ("TCP 8080 or TCP
 * 9090" when those differ).
 */
function commonOf(cluster: Cluster, targets: readonly TargetReach[]): Map<PodInfo, string> {
  const common = new Map<PodInfo, string>();
  // How `pod` reaches a target: which members, each by its port ranges or its Service port.
  const how = (t: TargetReach, pod: PodInfo) => t.members.filter((m) => m.reached.has(pod)).map((m) => (m.port === null ? m.reached.get(pod) : (m.servicePort ?? 'reached'))).join(' and ');
  for (const pod of cluster.pods) {
    const others = targets.filter((t) => t.pod !== pod);
    const ports = others.map((t) => t.reached.get(pod));
    if (others.length === 0 || ports.some((p) => p === undefined)) continue;
    if (new Set(others.map((t) => how(t, pod))).size === 1) common.set(pod, [...new Set(ports)].join(' or '));
  }
  return common;
}

/** One member: how many pods it has, and those beyond what all share. */
export interface SetMember {
  readonly member: string;
  readonly region?: AddressRegion;
  readonly reachable: number;
  readonly of: number;
  readonly beyond: readonly ReachGroup[];
  readonly beyondPods: number;
}

export interface SetGroupAnswer {
  readonly kind: 'who-group' | 'what-group';
  readonly text: string;
  readonly query: Query;
  /** How the name was read: "shop/app=db → 2 pods (selector app=db)". */
  readonly resolved: readonly string[];
  /** Members left out and why, and what the budget left unexamined. */
  readonly notes: readonly string[];
  /** What all members share (Reaches.common), by ports. */
  readonly common: readonly ReachGroup[];
  readonly commonPods: number;
  /** Each member, in the order the name lists them. */
  readonly members: readonly SetMember[];
  readonly moreMembers: number;
  readonly work: { readonly members: number; readonly evaluations: number; readonly skippedPods: number; readonly podsWithoutNamedPort: number };
}

export function answerSetGroup(cluster: Cluster, q: SetQuery): SetGroupAnswer {
  const who = q.kind === 'who';
  const r = reachEach(cluster, q);
  const { members, targets, common } = r;
  const commonGroups = reachGroups(cluster, common, null);
  // Counted by endpoint: a backing pod of a Service with several ports is one pod.
  const answered = targets.map((t): SetMember => {
    const beyond = [...t.reached].filter(([p]) => !common.has(p));
    return { member: t.label, ...(t.region ? { region: t.region } : {}), reachable: t.reached.size, of: podsCounted(cluster, q.podsIn, t.pod), beyond: reachGroups(cluster, beyond, t.pod), beyondPods: beyond.length };
  });
  const skipped = (why: ReachClass['skipped']) => members.reduce((n, m) => n + m.classes.filter((c) => c.skipped === why).reduce((k, c) => k + c.members.length, 0), 0);
  const [skippedPods, podsWithoutNamedPort] = [skipped('budget'), skipped('no-such-named-port')];

  // One port asked (each member on its own: a Service's targetPorts): the sentence lists pods
  // without ports; every port asked (a Service's ports among them): each pod with its ports.
  const onePort = q.port !== null;
  const name = q.port;
  const resolved = typeof name !== 'string' ? [] : who
    ? members.flatMap((m) => (typeof m.port === 'number' ? [{ port: m.port, protocol: m.protocol ?? 'TCP' }] : namedPort(m.pod, name, q.protocol) ?? []))
    : members.flatMap((m) => [...m.reached.keys()]).flatMap((p) => namedPort(p, name, q.protocol) ?? []);
  const phrase = portPhrase(q.port, q.protocol, resolved);
  const protocolNote = who ? otherProtocolsNote(cluster, q.to, q.port, q.protocol) : '';
  const list = (gs: readonly ReachGroup[]) => gs.map((g) => (onePort ? groupItems(g) : `${groupItems(g)} (${g.ports})`)).join(', ');
  const n = targets.length;
  const unit = r.side.unit ?? 'pod';
  const every = n === 1 ? `the one ${unit} of ${r.side.name}` : `each of the ${n} ${plural(unit, n)} of ${r.side.name}`;
  const k = common.size;
  const pods = `${k} pod${k === 1 ? '' : 's'}`;
  const differ = answered.filter((m) => m.beyondPods > 0);
  // Nothing shared and nothing beyond: no member has any pod.
  const any = n > 1 && differ.length === 0 ? `any of the ${n} ${plural(unit, n)} of ${r.side.name}` : every;
  const within = podsInText(q.podsIn);
  const head = who
    ? k === 0 ? `No pod${within} can reach ${any}${phrase}` : `${pods}${within} can reach ${every}${phrase}`
    : k === 0 ? `No pod${within} is reached by ${any}${phrase}` : `${every.charAt(0).toUpperCase()}${every.slice(1)} can reach ${pods}${within}${phrase}`;
  const also = k === 0 ? '' : 'also ';
  const parts = differ.slice(0, MAX_GROUPS_IN_TEXT).map((m) => `${m.member} ${also}${who ? 'from' : 'reaches'} ${list(m.beyond.slice(0, MAX_GROUPS_IN_TEXT))}`);
  if (differ.length > MAX_GROUPS_IN_TEXT) parts.push(`and ${differ.length - MAX_GROUPS_IN_TEXT} more ${plural(unit, 2)} differ`);
  const shared = k === 0 ? '' : `: ${list(commonGroups.slice(0, MAX_GROUPS_IN_TEXT))}${commonGroups.length > MAX_GROUPS_IN_TEXT ? ` and ${commonGroups.length - MAX_GROUPS_IN_TEXT} more port sets` : ''}`;
  const rest = parts.length === 0 ? (n > 1 && k > 0 ? ' — the same for each' : '') : k === 0 ? `; only some: ${parts.join('; ')}` : `; besides, ${parts.join('; ')}`;
  const notes = [
    ...(protocolNote ? [protocolNote] : []),
    ...r.notes,
    ...(podsWithoutNamedPort > 0 ? [`${podsWithoutNamedPort} pod verdicts have no port named ${q.port}`] : []),
    ...(skippedPods > 0 ? [`stopped after ${MAX_EVALUATIONS} evaluations: ${skippedPods} pod verdicts not examined; ask about one port or fewer ${plural(unit, 2)}`] : []),
  ];
  const said = `${head}${parenthesized(r.side.resolved)}${shared}${rest}${parenthesized(notes)}.`;
  return {
    kind: who ? 'who-group' : 'what-group',
    text: hedged(said, hedge(cluster, null, members.map((m) => m.pod))),
    query: q,
    resolved: r.side.resolved,
    notes,
    common: commonGroups,
    commonPods: k,
    members: answered.slice(0, MAX_MEMBERS),
    moreMembers: Math.max(0, answered.length - MAX_MEMBERS),
    work: { members: n, evaluations: r.evaluations, skippedPods, podsWithoutNamedPort },
  };
}
