// "can A reach B?" where A or B stands for several endpoints (a Service, a label selector, a
// workload, a CIDR's regions: core/evaluate/expand.ts): each pair is answered as its own flow,
// and the answer says whether all, none or some are allowed and, when they differ, which and why.
import type { Cluster } from '../cluster.js';
import { evaluate } from '../evaluate/engine.js';
import { endLabel, type Expanded, type MemberFlow, type Unit } from '../evaluate/expand.js';
import { reasonOf } from '../evaluate/explain.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../evaluate/resolve.js';
import type { Protocol } from '../policy/model.js';
import type { Example } from './chain.js';
import { MAX_GROUPS_IN_TEXT, MAX_ITEMS_IN_TEXT, MAX_MEMBERS, nameOf, otherProtocolsNote, parenthesized, podOf, portOn, portPhrase } from './describe.js';
import { whyNoPort } from './no-port.js';
import { hedge, hedged } from './hedge.js';
import type { Query } from './parse.js';
import { formatPorts, newWork, probe, protocolsOf, rulesOf } from './reach.js';

type CanQuery = Extract<Query, { kind: 'can' }>;

/** One pair of endpoints: `port` as answered ("TCP 5432", or the allowed ranges when every port was asked). */
export interface MemberAnswer {
  /** The endpoints evaluated: pod keys or addresses (a region's address). */
  readonly from: string;
  readonly to: string;
  /** The regions of a CIDR that `from` or `to` answers for. */
  readonly regions?: MemberFlow['regions'];
  readonly port: string;
  readonly allowed: boolean;
  /** The deciding rule (explain.ts), or the allowed ports when every port was asked. */
  readonly reason: string;
}

export interface GroupAnswer {
  readonly kind: 'can-group';
  readonly text: string;
  readonly query: Query;
  readonly allowed: 'all' | 'none' | 'some';
  /** How the names were read: "shop/svc/db → 2 backing pods (selector app=db), port 5432 → targetPort 5432". */
  readonly resolved: readonly string[];
  /** Pods and regions left out and why. */
  readonly notes: readonly string[];
  /** Members by outcome and reason, biggest first (`pods`: how many members). */
  /** `example`: for pairs allowed on no port, one port's flow and chain showing the denial. */
  readonly groups: readonly { readonly allowed: boolean; readonly reason: string; readonly pods: number; readonly members: readonly string[]; readonly example?: Example }[];
  readonly members: readonly MemberAnswer[];
  readonly moreMembers: number;
}

const keyOf = (s: EndpointSpec) => ('pod' in s ? s.pod : s.ip);

/** A member's answer, the port a named one resolved to, and, when no port is allowed, the example that shows why. */
interface Answered {
  readonly member: MemberAnswer;
  readonly at: { readonly port: number; readonly protocol: Protocol } | null;
  readonly example?: Example;
}

function answerMember(cluster: Cluster, m: MemberFlow): Answered {
  const member = { from: keyOf(m.from), to: keyOf(m.to), ...(m.regions ? { regions: m.regions } : {}) };
  if (m.port === null) {
    resolveFlow(cluster, { from: m.from, to: m.to, port: 1, protocol: m.protocol ?? 'TCP' });
    const protocols = protocolsOf({ protocol: m.protocol });
    const sides = { egress: rulesOf(cluster, podOf(cluster, m.from), 'egress'), ingress: rulesOf(cluster, podOf(cluster, m.to), 'ingress') };
    const ports = formatPorts(probe(cluster, m.from, m.to, protocols, newWork(), sides), protocols);
    const port = m.protocol ?? 'every port';
    if (ports !== '') return { member: { ...member, port, allowed: true, reason: `${ports}${ports.startsWith('all') ? '' : ' only'}` }, at: null };
    // No port: why, as "can A reach B?" says it for one pair (no-port.ts).
    const none = whyNoPort(cluster, m.from, m.to, protocols);
    return { member: { ...member, port, allowed: false, reason: none.reason }, at: null, example: none.example };
  }
  const p = portOn(cluster, m.to, m.port, m.protocol);
  const verdict = evaluate(cluster, resolveFlow(cluster, { from: m.from, to: m.to, port: p.port, protocol: p.protocol }));
  return { member: { ...member, port: p.text, allowed: verdict.allowed, reason: reasonOf(verdict) }, at: { port: p.port, protocol: p.protocol } };
}

/** "pods", "regions", "endpoints" (a CIDR holding a ClusterIP: regions and backing pods). */
export const plural = (unit: Unit, n: number): string => `${unit}${n === 1 ? '' : 's'}`;

export function answerGroup(cluster: Cluster, q: CanQuery, x: Expanded): GroupAnswer {
  const notes = [...x.notes];
  const answered: Answered[] = [];
  let first: FlowError | null = null;
  for (const m of x.flows) {
    try {
      answered.push(answerMember(cluster, m));
    } catch (e) {
      // A member without the named port, or without an address family the other side has: said, and left out.
      if (!(e instanceof FlowError)) throw e;
      first ??= e;
      notes.push(e.message);
    }
  }
  if (answered.length === 0) throw first!;
  const members = answered.map((a) => a.member);
  const yes = members.filter((m) => m.allowed).length;
  const allowed = yes === members.length ? 'all' : yes === 0 ? 'none' : 'some';

  const bothSides = x.names.from !== null && x.names.to !== null;
  const ports = new Set(members.map((m) => m.port));
  const [fromLabel, toLabel] = [(m: MemberAnswer) => endLabel(m.from, m.regions?.from), (m: MemberAnswer) => endLabel(m.to, m.regions?.to)];
  const endsOf = (m: MemberAnswer) => (bothSides ? `${fromLabel(m)} → ${toLabel(m)}` : x.names.to !== null ? toLabel(m) : fromLabel(m));
  const label = (m: MemberAnswer) => `${endsOf(m)}${ports.size > 1 ? ` (${m.port})` : ''}`;
  const byReason = new Map<string, { allowed: boolean; reason: string; labels: string[]; example?: Example }>();
  for (const { member: m, example } of answered) {
    const key = `${m.allowed}|${m.reason}`;
    const g = byReason.get(key) ?? byReason.set(key, { allowed: m.allowed, reason: m.reason, labels: [], ...(example ? { example } : {}) }).get(key)!;
    g.labels.push(label(m));
  }
  const groups = [...byReason.values()]
    .sort((a, b) => Number(b.allowed) - Number(a.allowed) || b.labels.length - a.labels.length)
    .map((g) => ({ allowed: g.allowed, reason: g.reason, pods: g.labels.length, members: g.labels.slice(0, MAX_MEMBERS), ...(g.example ? { example: g.example } : {}) }));

  const [from, to] = [x.names.from ?? nameOf(cluster, q.from), x.names.to ?? nameOf(cluster, q.to)];
  const phrase = portPhrase(q.port, q.protocol, answered.flatMap((a) => a.at ?? []));
  // Counted by pairs of endpoints (pods, regions), never by pair and port: a Service with several
  // ports (asked without one) is each pair on each of its ports, said as such.
  const pairs = new Map<string, number>();
  for (const m of members) pairs.set(endsOf(m), (pairs.get(endsOf(m)) ?? 0) + 1);
  const n = pairs.size;
  const unit = bothSides ? (x.units.from === 'pod' && x.units.to === 'pod' ? 'pod pair' : 'pair') : (x.units.from ?? x.units.to ?? 'pod');
  const what = n === 1 ? unit : `${unit}s`;
  const [fewest, most] = [Math.min(...pairs.values()), Math.max(...pairs.values())];
  const onPorts = most === 1 ? '' : fewest === most ? ` on ${most} Service ports${n > 1 ? ' each' : ''}` : ` on ${fewest}-${most} Service ports`;
  // On several ports one pair can be allowed on one and denied on another: the outcomes say which.
  const some = most > 1 ? `${n} ${what}` : `${yes} of ${n} ${what}`;
  const count = `${n === 1 ? `its one ${what}` : allowed === 'all' ? `all ${n} ${what}` : allowed === 'none' ? `none of ${n} ${what}` : some}${onPorts}`;
  const note = otherProtocolsNote(cluster, q.to, q.port, q.protocol);
  if (note) notes.unshift(note);
  const items = (labels: readonly string[], total: number) => `${labels.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${total > MAX_ITEMS_IN_TEXT ? ` and ${total - MAX_ITEMS_IN_TEXT} more` : ''}`;
  const why = groups.slice(0, MAX_GROUPS_IN_TEXT).map((g) => `${g.reason}: ${items(g.members, g.pods)}`);
  const more = groups.length - MAX_GROUPS_IN_TEXT;
  if (more > 0) why.push(`and ${more} more ${more === 1 ? 'outcome' : 'outcomes'}`);
  const head = allowed === 'all' ? `Yes: ${from} can reach ${to}` : allowed === 'none' ? `No: ${from} cannot reach ${to}` : `Partly: ${from} can reach ${to}`;
  const text = `${head}${phrase}${parenthesized(x.resolved)} — ${count}: ${why.join('; ')}${parenthesized(notes)}.`;
  const pods = x.flows.flatMap((m) => [podOf(cluster, m.from), podOf(cluster, m.to)]);
  return {
    kind: 'can-group',
    text: hedged(text, hedge(cluster, allowed === 'all' ? true : allowed === 'none' ? false : null, pods)),
    query: q,
    allowed,
    resolved: x.resolved,
    notes,
    groups,
    members: members.slice(0, MAX_MEMBERS),
    moreMembers: Math.max(0, members.length - MAX_MEMBERS),
  };
}
