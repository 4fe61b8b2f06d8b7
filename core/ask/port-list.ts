// "can A reach B on 80 and 443?": each port asked as its own "can" question, answered in turn
// with its own verdict and decision chain, and one sentence that says which ports are allowed,
// which are not, and the rule deciding each (a reason said once for the ports it decides).
import type { Cluster } from '../cluster.js';
import { reasonOf } from '../evaluate/explain.js';
import type { Answered, CanAnswer, CanPortsAnswer, ErrorAnswer, NoVerdictAnswer } from './can.js';
import type { GroupAnswer } from './group.js';
import { nameOf, otherProtocolsNote, podOf } from './describe.js';
import { hedge, hedged } from './hedge.js';
import type { CanQuery, Query } from './query.js';

type ListQuery = Extract<Query, { kind: 'can-list' }>;
type SetListQuery = Extract<Query, { kind: 'who-list' | 'what-list' | 'exposed-list' | 'metadata-list' }>;
/** A list question's one-port form. */
type OnePortQuery = Extract<Query, { kind: 'who' | 'what' | 'exposed' | 'metadata' }>;

export interface PortListAnswer extends Answered {
  readonly kind: 'can-list';
  /** `all`, `none` or `some` of the ports asked (for a name standing for several endpoints: allowed for all of them). */
  readonly allowed: 'all' | 'none' | 'some';
  readonly allowedPorts: readonly number[];
  readonly deniedPorts: readonly number[];
  /** Each answered port's own answer, in the order asked: its verdict and chain, or each member's for a group (a port the destination lacks is said in `text`). */
  readonly answers: readonly PortAnswer[];
}

/** One port's answer, as answer.ts gives a one-port "can" question (never every port's ranges). */
type PortAnswer = CanAnswer | GroupAnswer;
type OneAnswer = CanAnswer | CanPortsAnswer | GroupAnswer | ErrorAnswer | NoVerdictAnswer;

const and = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** "TCP 80, 443 and UDP 53": ports grouped by protocol, in the order asked. */
function portsText(answers: readonly CanAnswer[]): string {
  const byProtocol = new Map<string, number[]>();
  for (const a of answers) byProtocol.set(a.flow.protocol, [...(byProtocol.get(a.flow.protocol) ?? []), a.flow.port]);
  return and([...byProtocol].map(([protocol, ports]) => `${protocol} ${and(ports.map(String))}`));
}

/** "— reason" when one rule decides every port of the part, else each port's: "TCP 80 — r1; TCP 443 — r2". */
function reasons(answers: readonly CanAnswer[]): string {
  const byReason = new Map<string, CanAnswer[]>();
  for (const a of answers) byReason.set(reasonOf(a.verdict), [...(byReason.get(reasonOf(a.verdict)) ?? []), a]);
  if (byReason.size === 1) return ` — ${[...byReason.keys()][0]}`;
  return `: ${[...byReason].map(([reason, as]) => `${portsText(as)} — ${reason}`).join('; ')}`;
}

type Unanswered = ErrorAnswer | NoVerdictAnswer;
const isUnanswered = (a: { readonly kind: string }): a is Unanswered => a.kind === 'error' || a.kind === 'no-verdict';

/**
 * Each port asked in turn: the ports answered, and what was not (a port a Service lacks), said
 * after them; or the one error every port would get (an unknown name, too many endpoints).
 */
function eachPort<A extends { readonly kind: string; readonly text: string }>(ports: readonly number[], answerOne: (port: number) => A | Unanswered): { answered: { port: number; a: A }[]; missed: string } | Unanswered {
  const all: (A | Unanswered)[] = [];
  for (const port of ports) {
    const a = answerOne(port);
    if (a.kind === 'error' && (a as ErrorAnswer).error.field !== 'port') return a as ErrorAnswer;
    all.push(a);
  }
  if (all.every(isUnanswered)) return all[0] as Unanswered;
  const missing = all.flatMap((a) => (a.kind === 'error' ? [(a as ErrorAnswer).error.message] : a.kind === 'no-verdict' ? [(a as NoVerdictAnswer).reason] : []));
  const missed = missing.length > 0 ? ` (not answered: ${[...new Set(missing)].join('; ')})` : '';
  return { answered: ports.flatMap((port, i) => (isUnanswered(all[i]!) ? [] : [{ port, a: all[i] as A }])), missed };
}

/**
 * Each port's own sentence; ports whose sentences differ only in the port share one, said with
 * all of them ("… on TCP 80 and 443 …"), the rest port by port.
 */
function byPort(answered: readonly { readonly port: number; readonly a: { readonly text: string } }[], protocol: string, missed: string): string {
  const alike = new Map<string, number[]>();
  for (const { port, a } of answered) {
    // "TCP 80" as a whole number: never the start of "TCP 8080".
    const shape = a.text.replace(/\.$/, '').split(new RegExp(`${protocol} ${port}(?!\\d)`)).join('\u0000');
    alike.set(shape, [...(alike.get(shape) ?? []), port]);
  }
  const said = [...alike].map(([shape, ports]) => ({ ports: `${protocol} ${and(ports.map(String))}`, sentence: shape.split('\u0000').join(`${protocol} ${and(ports.map(String))}`) }));
  return said.length === 1 ? `${said[0]!.sentence}${missed}.` : `Port by port: ${said.map((x) => `${x.ports}: ${x.sentence}`).join('; ')}${missed}.`;
}

/** `answerOne` answers one port's "can" question (answer.ts's answer, passed in to keep the import one-way). */
export function answerPortList(cluster: Cluster, q: ListQuery, answerOne: (q: CanQuery) => OneAnswer): PortListAnswer | Unanswered {
  // A port was asked, so never every port's ranges (can-ports).
  const each = eachPort(q.ports, (port) => answerOne({ kind: 'can', from: q.from, to: q.to, port, protocol: q.protocol }) as PortAnswer | Unanswered);
  if ('kind' in each) return each;
  const { answered, missed } = each;
  const allowedOf = (a: PortAnswer) => (a.kind === 'can' ? a.allowed : a.allowed === 'all');
  const allowedPorts = answered.filter(({ a }) => allowedOf(a)).map(({ port }) => port);
  const deniedPorts = answered.filter(({ a }) => !allowedOf(a)).map(({ port }) => port);
  const allowed = deniedPorts.length === 0 ? 'all' : allowedPorts.length === 0 ? 'none' : 'some';
  const answers = answered.map(({ a }) => a);
  if (answers.every((a): a is CanAnswer => a.kind === 'can')) {
    // The endpoints as the first port's answer resolved them (a workload's one pod, a DNS name).
    const one = answers[0]!.query as CanQuery;
    const [from, to] = [nameOf(cluster, one.from), nameOf(cluster, one.to)];
    const [yes, no] = [answers.filter((a) => a.allowed), answers.filter((a) => !a.allowed)];
    const notes = [...new Set(answered.map(({ port }) => otherProtocolsNote(cluster, q.to, port, q.protocol)).filter((n) => n !== ''))];
    const noted = notes.length > 0 ? ` (${notes.join('; ')})` : '';
    const said =
      no.length === 0 ? `Yes: ${from} can reach ${to} on ${portsText(yes)}${noted}${reasons(yes)}${missed}.`
      : yes.length === 0 ? `No: ${from} cannot reach ${to} on ${portsText(no)}${noted}${reasons(no)}${missed}.`
      : `On some ports: ${from} can reach ${to} on ${portsText(yes)}${reasons(yes)}; not on ${portsText(no)}${noted}${reasons(no)}${missed}.`;
    const text = hedged(said, hedge(cluster, allowed === 'some' ? null : allowed === 'all', [podOf(cluster, one.from), podOf(cluster, one.to)]));
    return { kind: 'can-list', text, query: q, allowed, allowedPorts, deniedPorts, answers };
  }
  // A name for several endpoints: each port's own sentence says all, none or some (and its hedge).
  return { kind: 'can-list', text: byPort(answered, q.protocol ?? 'TCP', missed), query: q, allowed, allowedPorts, deniedPorts, answers };
}

/**
 * "who can reach Y on 80 and 443", "what can X reach on …", "is anything exposed to the internet
 * in ns shop on 80 and 443", "who can reach the metadata address on 80 and 443": each port's own
 * answer (answer.ts's, passed in).
 */
export interface SetListAnswer<A extends Answered> extends Answered {
  readonly kind: SetListQuery['kind'];
  /** Each answered port's own answer, in the order asked. */
  readonly answers: readonly A[];
}

const podsInOf = (q: { readonly podsIn?: string }) => (q.podsIn === undefined ? {} : { podsIn: q.podsIn });

/** The question about one port of a list. */
function onePort(q: SetListQuery, port: number): OnePortQuery {
  const { protocol } = q;
  switch (q.kind) {
    case 'who-list':
      return { kind: 'who', to: q.to, port, protocol, ...podsInOf(q) };
    case 'what-list':
      return { kind: 'what', from: q.from, port, protocol, ...podsInOf(q) };
    case 'exposed-list':
      return { kind: 'exposed', namespace: q.namespace, port, protocol };
    case 'metadata-list':
      return { kind: 'metadata', port, protocol, ...podsInOf(q) };
  }
}

export function answerSetPortList<A extends Answered & { readonly kind: string }>(q: SetListQuery, answerOne: (q: OnePortQuery) => A | Unanswered): SetListAnswer<A> | Unanswered {
  const one = (port: number) => onePort(q, port);
  const each = eachPort(q.ports, (port) => answerOne(one(port)));
  if ('kind' in each) return each;
  return { kind: q.kind, text: byPort(each.answered, q.protocol ?? 'TCP', each.missed), query: q, answers: each.answered.map(({ a }) => a) };
}
