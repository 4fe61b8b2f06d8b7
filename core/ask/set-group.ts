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
import { groupItems, MAX_GROUPS_IN_TEXT, MAX_MEMBERS, parenthesized, podOf, reachGroups, type ReachGroup } from './describe.js';
import { plural } from './group.js';
import { hedge, hedged } from './hedge.js';
import type { Query } from './parse.js';
import { MAX_EVALUATIONS, newWork, reach, type ReachClass, type SetQuery } from './reach.js';

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
  /** The pods that reach it (who) or that it reaches (what), with the ports. */
  readonly reached: ReadonlyMap<PodInfo, string>;
}

export interface Reaches {
  readonly side: Side;
  readonly members: readonly MemberReach[];
  /**
   * Pods that reach every member (who), or that every member reaches (what), alike — on the same
   * port ranges, or, when one port was asked, on each member's port — with the ports.
   */
  readonly common: ReadonlyMap<PodInfo, string>;
  readonly notes: readonly string[];
  readonly evaluations: number;
}

/** Each member's answer, and what they share. */
export function reachEach(cluster: Cluster, q: SetQuery): Reaches {
  const who = q.kind === 'who';
  const field = who ? 'to' : 'from';
  const side = expandName(cluster, who ? q.to : q.from, field, q.port, q.protocol);
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
    members.push({ label, fixed: end.spec, port: end.port, protocol: end.protocol, ...(end.region ? { region: end.region } : {}), pod: podOf(cluster, end.spec), classes, reached });
  }
  if (members.length === 0) throw first!;
  return { side, members, common: commonOf(cluster, members), notes, evaluations };
}

/**
 * Pods every member (but the pod itself, which always reaches itself) has alike: on the same
 * port ranges, or reached at all when each member was asked about one port (its own: a
 * Service's targetPort). Listed with their ports ("TCP 8080 or TCP 9090" when those differ).
 */
function commonOf(cluster: Cluster, members: readonly MemberReach[]): Map<PodInfo, string> {
  const common = new Map<PodInfo, string>();
  for (const pod of cluster.pods) {
    const others = members.filter((m) => m.pod !== pod);
    const ports = others.map((m) => m.reached.get(pod));
    if (others.length === 0 || ports.some((p) => p === undefined)) continue;
    const alike = new Set(others.map((m, i) => (m.port === null ? ports[i] : 'reached')));
    if (alike.size === 1) common.set(pod, [...new Set(ports)].join(' or '));
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
  const { members, common } = r;
  const commonGroups = reachGroups(cluster, common, null);
  const answered = members.map((m): SetMember => {
    const beyond = [...m.reached].filter(([p]) => !common.has(p));
    return { member: m.label, ...(m.region ? { region: m.region } : {}), reachable: m.reached.size, of: cluster.pods.length - (m.pod ? 1 : 0), beyond: reachGroups(cluster, beyond, m.pod), beyondPods: beyond.length };
  });
  const skipped = (why: ReachClass['skipped']) => members.reduce((n, m) => n + m.classes.filter((c) => c.skipped === why).reduce((k, c) => k + c.members.length, 0), 0);
  const [skippedPods, podsWithoutNamedPort] = [skipped('budget'), skipped('no-such-named-port')];

  // One port asked (or one per member, a Service's targetPorts): the sentence lists pods without ports.
  const onePort = members.every((m) => m.port !== null);
  const portPhrase = q.port === null ? (q.protocol ? ` on ${q.protocol}` : '') : typeof q.port === 'number' ? ` on ${q.protocol ?? 'TCP'} ${q.port}` : ` on ${q.port}`;
  const list = (gs: readonly ReachGroup[]) => gs.map((g) => (onePort ? groupItems(g) : `${groupItems(g)} (${g.ports})`)).join(', ');
  const n = members.length;
  const unit = r.side.unit ?? 'pod';
  const every = n === 1 ? `the one ${unit} of ${r.side.name}` : `each of the ${n} ${plural(unit, n)} of ${r.side.name}`;
  const k = common.size;
  const pods = `${k} pod${k === 1 ? '' : 's'}`;
  const differ = answered.filter((m) => m.beyondPods > 0);
  // Nothing shared and nothing beyond: no member has any pod.
  const any = n > 1 && differ.length === 0 ? `any of the ${n} ${plural(unit, n)} of ${r.side.name}` : every;
  const head = who
    ? k === 0 ? `No pod can reach ${any}${portPhrase}` : `${pods} can reach ${every}${portPhrase}`
    : k === 0 ? `No pod is reached by ${any}${portPhrase}` : `${every.charAt(0).toUpperCase()}${every.slice(1)} can reach ${pods}${portPhrase}`;
  const also = k === 0 ? '' : 'also ';
  const parts = differ.slice(0, MAX_GROUPS_IN_TEXT).map((m) => `${m.member} ${also}${who ? 'from' : 'reaches'} ${list(m.beyond.slice(0, MAX_GROUPS_IN_TEXT))}`);
  if (differ.length > MAX_GROUPS_IN_TEXT) parts.push(`and ${differ.length - MAX_GROUPS_IN_TEXT} more ${plural(unit, 2)} differ`);
  const shared = k === 0 ? '' : `: ${list(commonGroups.slice(0, MAX_GROUPS_IN_TEXT))}${commonGroups.length > MAX_GROUPS_IN_TEXT ? ` and ${commonGroups.length - MAX_GROUPS_IN_TEXT} more port sets` : ''}`;
  const rest = parts.length === 0 ? (n > 1 && k > 0 ? ' — the same for each' : '') : k === 0 ? `; only some: ${parts.join('; ')}` : `; besides, ${parts.join('; ')}`;
  const notes = [
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
