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

/** `answerOne` answers one port's "can" question (answer.ts's answer, passed in to keep the import one-way). */
export function answerPortList(cluster: Cluster, q: ListQuery, answerOne: (q: CanQuery) => OneAnswer): PortListAnswer | ErrorAnswer | NoVerdictAnswer {
  const all: OneAnswer[] = [];
  for (const port of q.ports) {
    const a = answerOne({ kind: 'can', from: q.from, to: q.to, port, protocol: q.protocol });
    // An unknown name, a missing address family, too many endpoints: the same for every port, said once.
    if (a.kind === 'error' && a.error.field !== 'port') return a;
    all.push(a);
  }
  const unanswered = (a: OneAnswer): a is ErrorAnswer | NoVerdictAnswer => a.kind === 'error' || a.kind === 'no-verdict';
  if (all.every(unanswered)) return all[0] as ErrorAnswer | NoVerdictAnswer;
  // A port the destination does not have (a Service's): said after the ports that were answered.
  const missing = all.flatMap((a) => (a.kind === 'error' ? [a.error.message] : a.kind === 'no-verdict' ? [a.reason] : []));
  const missed = missing.length > 0 ? ` (not answered: ${[...new Set(missing)].join('; ')})` : '';
  // A port was asked, so never every port's ranges (can-ports).
  const answered = q.ports.flatMap((port, i) => { const a = all[i]!; return unanswered(a) || a.kind === 'can-ports' ? [] : [{ port, a }]; });
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
  // A name for several endpoints: each port's own sentence, which says all, none or some (and its
  // hedge); ports whose sentences differ only in the port share one, said with all of them.
  const protocol = q.protocol ?? 'TCP';
  const alike = new Map<string, number[]>();
  for (const { port, a } of answered) {
    // "TCP 80" as a whole number: never the start of "TCP 8080".
    const shape = a.text.replace(/\.$/, '').split(new RegExp(`${protocol} ${port}(?!\\d)`)).join('\u0000');
    alike.set(shape, [...(alike.get(shape) ?? []), port]);
  }
  const said = [...alike].map(([shape, ports]) => ({ ports: `${protocol} ${and(ports.map(String))}`, sentence: shape.split('\u0000').join(`${protocol} ${and(ports.map(String))}`) }));
  const text = said.length === 1 ? `${said[0]!.sentence}${missed}.` : `Port by port: ${said.map((x) => `${x.ports}: ${x.sentence}`).join('; ')}${missed}.`;
  return { kind: 'can-list', text, query: q, allowed, allowedPorts, deniedPorts, answers };
}
