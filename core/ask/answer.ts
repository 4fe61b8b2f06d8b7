// Answers a parsed chat-ops question: one sentence, plus the verdict and its decision chain
// for "can" questions, or pod sets grouped by namespace and workload label for "who"/"what"
// questions (a bot answer that lists thousands of pods is not an answer). By stage: parse.ts
// reads the question, reach.ts finds ports and pod sets, describe.ts names things, this file
// writes the sentences.
import type { Cluster } from '../cluster.js';
import { expandFlow } from '../evaluate/expand.js';
import { INTERNET, named } from '../evaluate/names.js';
import { FlowError, NoVerdict, type EndpointSpec } from '../evaluate/resolve.js';
import { groupItems, MAX_GROUPS_IN_TEXT, namedPort, nameOf, podOf, portPhrase, protocolAsked, reachGroups, type ReachGroup } from './describe.js';
import { type Example } from './chain.js';
import { answerCan, answerCanPorts, type Answered, type CanAnswer, type CanPortsAnswer, type ErrorAnswer, type NoVerdictAnswer } from './can.js';
import { answerChanged, type ChangedAnswer } from './changed.js';
import { answerExposed, type ExposedAnswer } from './exposed.js';
import { answerMetadata, type MetadataAnswer } from './metadata.js';
import { answerPolicies, type PoliciesAnswer } from './policies.js';
import { answerGroup, type GroupAnswer } from './group.js';
import { answerSetGroup, type SetGroupAnswer } from './set-group.js';
import { answerPortList, answerSetPortList, type PortListAnswer, type SetListAnswer } from './port-list.js';
import { hedge, hedged } from './hedge.js';
import { isParseFailure, readQuestion, type ParseFailure, type Query, type ReadQuestion } from './parse.js';
import { CLUSTER_DNS } from './endpoints.js';
import type { CanQuery } from './query.js';
import { MAX_EVALUATIONS, newWork, podsCounted, podsInText, reach, type ReachClass, type SetQuery } from './reach.js';

export { MAX_EVALUATIONS, reach, type PortRanges, type ReachClass, type Work } from './reach.js';

export { MAX_GROUPS_IN_TEXT, MAX_ITEMS_IN_TEXT, MAX_MEMBERS, type ReachGroup } from './describe.js';
export type { GroupAnswer, MemberAnswer } from './group.js';
export type { SetGroupAnswer, SetMember } from './set-group.js';
export type { ChangedAnswer } from './changed.js';
export type { PortListAnswer, SetListAnswer } from './port-list.js';
export type { CanAnswer, CanPortsAnswer, ErrorAnswer, NoVerdictAnswer } from './can.js';

export interface SetAnswer extends Answered {
  readonly kind: 'who' | 'what';
  readonly reachable: number;
  readonly of: number;
  readonly groups: readonly ReachGroup[];
  readonly work: { readonly classes: number; readonly evaluations: number; readonly skippedPods: number; readonly podsWithoutNamedPort: number };
}
export type Answer = PoliciesAnswer | CanAnswer | CanPortsAnswer | PortListAnswer | SetListAnswer<SetAnswer | SetGroupAnswer | ExposedAnswer | MetadataAnswer> | GroupAnswer | SetAnswer | SetGroupAnswer | ExposedAnswer | MetadataAnswer | ChangedAnswer | NoVerdictAnswer | ErrorAnswer;

/** Under a text answer's sentence: the flow's decision chain, or each example flow's (as many as the sentence names groups). */
export function chainLines(a: Answer): string[] {
  const lines = (e: Example, tag = '') => e.chain.map((l) => `${tag}${e.from} → ${e.to} on ${e.protocol} ${e.port}: ${l}`);
  switch (a.kind) {
    case 'can':
      return [...a.chain];
    case 'can-ports':
      return a.example ? lines(a.example) : [];
    case 'can-list':
      // A port's own chain lines name its flow only for a group; a single flow's are tagged with it.
      return a.answers.flatMap((sub) => (sub.kind === 'can' ? sub.chain.map((l) => `${sub.flow.protocol} ${sub.flow.port}: ${l}`) : chainLines(sub)));
    case 'who-list':
    case 'what-list':
    case 'exposed-list':
    case 'metadata-list':
      return a.answers.flatMap((sub) => chainLines(sub));
    case 'can-group':
      return a.groups.filter((g) => g.example).slice(0, MAX_GROUPS_IN_TEXT).flatMap((g) => lines(g.example!));
    case 'exposed':
      return a.groups.slice(0, MAX_GROUPS_IN_TEXT).flatMap((g) => lines(g.example));
    case 'metadata':
      return a.classes.slice(0, MAX_GROUPS_IN_TEXT).flatMap((c) => lines(c.example));
    case 'changed':
      return a.changes.slice(0, MAX_GROUPS_IN_TEXT).flatMap((c) => [...lines(c.example.before, `version ${a.since}, `), ...lines(c.example.after, `version ${a.version}, `)]);
    default:
      return [];
  }
}

/** Parse and answer; an unreadable question comes back as the parser's failure. */
export function ask(cluster: Cluster, question: unknown): Answer | ParseFailure {
  const read = readQuestion(question);
  return isParseFailure(read) ? read : answerRead(cluster, read);
}

const isClusterDns = (spec: EndpointSpec | undefined) => spec !== undefined && 'pod' in spec && spec.pod === CLUSTER_DNS;
const endpointAt = (q: Query, field: 'from' | 'to'): EndpointSpec | undefined => (field in q ? (q as unknown as Record<typeof field, EndpointSpec>)[field] : undefined);

/**
 * The answer to a question as read. A bare name the question's namespace went to (`-n shop`, `in
 * shop`, "db in shop") that is not in that namespace is then read as written, as a name without
 * one (in the one namespace that has it): "can prometheus reach db in shop" asks about the one
 * prometheus there is, and the answer names where it is. When that fails too, the first error stands.
 */
export function answerRead(cluster: Cluster, read: ReadQuestion): Answer {
  const first = answer(cluster, read.query);
  if (first.kind === 'error' && (read.query.kind === 'exposed' || read.query.kind === 'exposed-list')) return exposedByName(cluster, read.query, first);
  const dns = read.query.kind === 'policies' ? read.query.subject : endpointAt(read.query, 'to');
  if (first.kind === 'error' && first.error.field === 'to' && isClusterDns(dns)) {
    const message = `the snapshot has no Service ${CLUSTER_DNS.replace('/svc/', '/')}, the name most clusters give their DNS; ask about your cluster's DNS Service by its name (e.g. openshift-dns/svc/dns-default)`;
    return { ...first, text: `I can't answer that: ${message}.`, error: { field: 'to', message } };
  }
  if (first.kind !== 'error' || (first.error.field !== 'from' && first.error.field !== 'to')) return first;
  const field = first.error.field;
  const [asked, written] = [endpointAt(read.query, field), endpointAt(read.unscoped, field)];
  if (asked === undefined || written === undefined || JSON.stringify(asked) === JSON.stringify(written)) return first;
  const again = answer(cluster, { ...read.query, [field]: written } as Query);
  return again.kind === 'error' && again.error.field === field ? first : again;
}

/**
 * "is web exposed to the internet", where web is no namespace: whether the internet reaches what
 * the name stands for (a pod, a workload, a Service), as "can the internet reach web" asks. The
 * namespace's error stands when the name is not an endpoint either.
 */
function exposedByName(cluster: Cluster, q: Extract<Query, { kind: 'exposed' | 'exposed-list' }>, first: ErrorAnswer): Answer {
  if (cluster.nsByName.has(q.namespace) || cluster.podsByNamespace.has(q.namespace)) return first;
  const [from, to] = [{ ip: INTERNET }, { pod: q.namespace }];
  const again = q.kind === 'exposed' ? answer(cluster, { kind: 'can', from, to, port: q.port, protocol: q.protocol }) : answer(cluster, { kind: 'can-list', from, to, ports: q.ports, protocol: q.protocol });
  return again.kind === 'error' ? first : again;
}

export function answer(cluster: Cluster, query: Query): Answer {
  if (query.kind === 'can') return answerReach(cluster, query);
  // Each port as its own question.
  if (query.kind === 'can-list') return answered(query, () => answerPortList(cluster, query, (q) => answerReach(cluster, q)));
  if (query.kind === 'who-list' || query.kind === 'what-list' || query.kind === 'exposed-list' || query.kind === 'metadata-list') {
    return answered(query, () => answerSetPortList(query, (q) => answered(q, () => (q.kind === 'exposed' ? answerExposed(cluster, q) : q.kind === 'metadata' ? answerMetadata(cluster, q) : answerSet(cluster, q)))));
  }
  return answered(query, () => {
    if (query.kind === 'exposed') return answerExposed(cluster, query);
    if (query.kind === 'metadata') return answerMetadata(cluster, query);
    if (query.kind === 'policies') return answerPolicies(cluster, query);
    // Two versions: only a stored cluster has them (answerSince, from functions/services/ask.ts).
    if (query.kind === 'changed') throw new FlowError('from', '"what changed … since version N" compares two stored versions of a cluster: ask it about a stored cluster (GET /v1/clusters/{cluster}/ask, or POST /v1/ask with cluster), not a snapshot sent along');
    return answerSet(cluster, query);
  });
}

/** "can X reach Y [on P]": one flow's verdict or port ranges, or each member's for a name standing for several. */
function answerReach(cluster: Cluster, query: CanQuery): CanAnswer | CanPortsAnswer | GroupAnswer | ErrorAnswer | NoVerdictAnswer {
  return answered(query, () => {
    const x = expandFlow(cluster, { from: query.from, to: query.to, port: query.port, protocol: protocolAsked(query.port, query.protocol) });
    if (x.grouped) return answerGroup(cluster, query, x);
    // `shop/pod/web`, a workload's only endpoint: answered as the endpoint names.ts read.
    const one = { ...query, from: x.flows[0]!.from, to: x.flows[0]!.to };
    return one.port === null ? answerCanPorts(cluster, one) : answerCan(cluster, one, one.port);
  });
}

/** "what changed for X since version N": `before` is version N, `after` the version asked about. */
export function answerSince(before: Cluster, after: Cluster, query: Extract<Query, { kind: 'changed' }>, versions: { readonly since: string; readonly version: string }): Answer {
  return answered(query, () => answerChanged(before, after, query, versions));
}

function answered<A extends Answer>(query: Query, f: () => A): A | ErrorAnswer | NoVerdictAnswer {
  try {
    return f();
  } catch (e) {
    if (e instanceof NoVerdict) return { kind: 'no-verdict', text: `I can't give a verdict: ${e.message}.`, query, reason: e.message };
    // Unknown names, ambiguous ones, missing named ports, no shared address family: the asker's to fix.
    if (!(e instanceof FlowError)) throw e;
    return { kind: 'error', text: `I can't answer that: ${e.message}${e.message.endsWith('?') ? '' : '.'}`, query, error: { field: e.field, message: e.message } };
  }
}

function answerSet(cluster: Cluster, asked: SetQuery): SetAnswer | SetGroupAnswer {
  const field = asked.kind === 'who' ? 'to' : 'from';
  const n = named(cluster, asked.kind === 'who' ? asked.to : asked.from, field, asked.port, asked.protocol);
  // A name for several endpoints: each answered, what they share and what differs (set-group.ts).
  if (n.kind !== 'one') return answerSetGroup(cluster, asked);
  // `shop/pod/web`, `10.0.0.7/32`: answered as the endpoint names.ts read.
  const q: SetQuery = asked.kind === 'who' ? { ...asked, to: n.spec } : { ...asked, from: n.spec };
  const work = newWork();
  const classes = reach(cluster, q, work);
  const fixed = q.kind === 'who' ? q.to : q.from;
  const fixedPod = podOf(cluster, fixed);
  const groups = reachGroups(cluster, classes.flatMap((c) => (c.ports === '' ? [] : c.members.map((p) => [p, c.ports] as const))), fixedPod);
  const count = (why: ReachClass['skipped']) => classes.filter((c) => c.skipped === why).reduce((n, c) => n + c.members.length, 0);
  const [skippedPods, podsWithoutNamedPort] = [count('budget'), count('no-such-named-port')];
  const reachable = groups.reduce((n, g) => n + g.pods, 0);
  const of = podsCounted(cluster, q.podsIn, fixedPod);
  const within = podsInText(q.podsIn);

  const pods = `${fixedPod && (q.podsIn === undefined || fixedPod.namespace === q.podsIn) ? 'other ' : ''}pod${of === 1 ? '' : 's'}`;
  // One port asked: it goes in the sentence once, unless named ports differ between destinations.
  const onePort = q.port !== null && groups.length === 1;
  // A named port: what it resolved to on the fixed destination, or on each destination.
  const destinations = q.kind === 'who' ? [fixedPod] : classes.filter((c) => !c.skipped).flatMap((c) => c.members);
  const resolved = typeof q.port === 'string' ? destinations.flatMap((p) => namedPort(p, q.port as string, q.protocol) ?? []) : [];
  const phrase = onePort ? ` on ${groups[0]!.ports}` : portPhrase(q.port, q.protocol, resolved);
  const listed = groups.slice(0, MAX_GROUPS_IN_TEXT).map((g) => (onePort ? groupItems(g) : `${groupItems(g)} (${g.ports})`));
  if (groups.length > MAX_GROUPS_IN_TEXT) listed.push(`and ${groups.length - MAX_GROUPS_IN_TEXT} more port sets`);
  const notes = [
    ...(podsWithoutNamedPort > 0 ? [`${podsWithoutNamedPort} have no port named ${q.port}`] : []),
    ...(skippedPods > 0 ? [`stopped after ${MAX_EVALUATIONS} evaluations: ${skippedPods} not examined; ask about one port`] : []),
  ];
  const tail = `${listed.length > 0 ? `: ${listed.join('; ')}` : ''}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}.`;
  const name = nameOf(cluster, fixed);
  const said = q.kind === 'who'
    ? reachable === 0 ? `No pod${within} can reach ${name}${phrase} (0 of ${of} ${pods})${tail}` : `${reachable} of ${of} ${pods}${within} can reach ${name}${phrase}${tail}`
    : reachable === 0 ? `${name} can reach no pod${within}${phrase} (0 of ${of} ${pods})${tail}` : `${name} can reach ${reachable} of ${of} ${pods}${within}${phrase}${tail}`;
  const text = hedged(said, hedge(cluster, null, [fixedPod]));
  return { kind: q.kind, text, query: asked, reachable, of, groups, work: { classes: classes.length, evaluations: work.evaluations, skippedPods, podsWithoutNamedPort } };
}
