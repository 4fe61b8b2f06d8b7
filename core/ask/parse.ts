// Reads a chat-ops question ("can shop/web reach shop/db on 5432?") into a typed query.
// Hand-written: the grammar is a handful of sentence shapes over a few dozen words (tokens.ts
// splits them), smaller than any parser-generator setup, and it must name the part it could not
// read rather than throw.
import { workloadKindOf } from '../snapshot/workload-names.js';
import { looksLikeCidr } from '../evaluate/cidr.js';
import type { EndpointSpec } from '../evaluate/resolve.js';
import { familyOfText } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import { tokenize, Tokens } from './tokens.js';

/** `port` null: every port (of `protocol`, or of every protocol when that is null too). */
export interface PortQuery {
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
}

export type Query =
  | ({ readonly kind: 'can'; readonly from: EndpointSpec; readonly to: EndpointSpec } & PortQuery)
  | ({ readonly kind: 'who'; readonly to: EndpointSpec } & PortQuery)
  | ({ readonly kind: 'what'; readonly from: EndpointSpec } & PortQuery)
  /** Pods of `namespace` that accept traffic from an address outside the cluster (exposed.ts). */
  | ({ readonly kind: 'exposed'; readonly namespace: string } & PortQuery)
  /** Pods that can send to the cloud metadata address (metadata.ts); TCP 80 unless asked otherwise. */
  | ({ readonly kind: 'metadata' } & PortQuery)
  /** `subject`'s verdicts in a stored version against those of version `since` (changed.ts). */
  | ({ readonly kind: 'changed'; readonly subject: EndpointSpec; readonly since: string } & PortQuery);

export interface ParseFailure {
  readonly error: string;
  readonly acceptedForms: readonly string[];
}

/** Shown with every failure: examples teach the grammar faster than a BNF. */
export const ACCEPTED_FORMS: readonly string[] = [
  'can shop/web reach shop/db on 5432?',
  'can shop/web talk to shop/db on tcp 5432?',
  'can shop/web reach shop/db on postgres?  (a named port of the destination)',
  'can shop/web reach shop/db?  (every port, answered as port ranges)',
  'can 203.0.113.7 reach shop/db on udp 53?',
  'can shop/web reach shop/svc/db on 5432?  (a Service: answered for its backing pods)',
  'can shop/app=web reach shop/deploy/db?  (a label selector, a workload: every pod of it)',
  'can node-1 reach 10.96.0.10 on 53/udp?  (a node by name; a ClusterIP)',
  'can 10.0.0.0/16 reach shop/db on 5432?  (a CIDR: each region of it that policies treat alike)',
  'is shop/web allowed to reach shop/db port 80?',
  'who can reach payments/api on tcp 443?',
  'who can reach payments/api?  (every port, answered as port ranges)',
  'what can shop/web reach?',
  'what can shop/web reach on 53/udp?',
  'who can reach shop/svc/db on 5432?  (a name for several pods or a CIDR: what all share, and what differs)',
  'is anything exposed to the internet in ns shop?',
  'what is exposed to the internet in shop?  (also: is shop exposed to the internet?)',
  'which pods can reach the cloud metadata address?  (TCP 80; "on any port" for port ranges)',
  'what changed for shop/web since version 3?  (a stored cluster: against the asked version, latest by default)',
];

/** Chat input is untrusted; anything longer is not a short question. */
export const MAX_QUESTION_LENGTH = 500;

const MODALS: readonly (readonly string[])[] = [['can'], ['could'], ['may'], ['is', 'allowed', 'to'], ['are', 'allowed', 'to'], ['is', 'able', 'to']];
// Longest first, so "talk to" wins over the bare "talk" that "where can x/a talk" needs.
const VERBS: readonly (readonly string[])[] = [
  ['send', 'traffic', 'to'], ['talk', 'to'], ['talk', 'with'], ['connect', 'to'], ['get', 'to'], ['send', 'to'],
  ['reach'], ['access'], ['call'], ['hit'], ['connect'], ['talk'],
];
const PORT_INTROS = new Set(['on', 'at', 'via', 'over', 'using']);
const EVERY_PORT = new Set(['all', 'any', 'every']);
const PROTOCOL_WORDS: Readonly<Record<string, Protocol>> = { tcp: 'TCP', udp: 'UDP', sctp: 'SCTP' };

// Kubernetes name rules: namespaces are DNS-1123 labels, pod names DNS-1123 subdomains,
// named ports IANA service names (1-15 characters, at least one letter, no "--").
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SERVICE_NAME = /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;

/** Internal: unwinds to parseQuestion, which turns it into a ParseFailure. */
class Unreadable extends Error {}

const quote = (t: string | undefined) => (t === undefined ? 'the end of the question' : `"${t.length > 40 ? `${t.slice(0, 40)}…` : t}"`);

// Words of the grammar are never a bare (node) name.
const GRAMMAR_WORDS = new Set([...MODALS.flat(), ...VERBS.flat(), ...PORT_INTROS, ...EVERY_PORT, ...Object.keys(PROTOCOL_WORDS), 'who', 'which', 'what', 'where', 'allowed', 'able', 'exposed', 'changed', 'since', 'metadata']);
// Kinds a name may carry (core/evaluate/names.ts reads them): kubectl's, for pods and Services too.
const NAME_KINDS = new Set(['pod', 'pods', 'po', 'svc', 'service', 'services']);
const SELECTOR = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?==?[A-Za-z0-9_.-]*$/;

function endpoint(t: Tokens, role: 'source' | 'destination' | 'pod', after: string): EndpointSpec {
  const tok = t.next();
  const expected = `expected the ${role} (namespace/pod, namespace/kind/name, namespace/label=value, a node name, an IP address or a CIDR) after "${after}", got ${quote(tok)}`;
  if (tok === undefined) throw new Unreadable(expected);
  // A CIDR, well written or not: names.ts answers it region by region, or says what is wrong with it.
  if (familyOfText(tok) !== null || looksLikeCidr(tok)) return { ip: tok };
  const slash = tok.indexOf('/');
  const parts = tok.split('/');
  const ns = parts[0]!;
  const rest = parts.slice(1).join('/');
  // `shop/app=web,tier=front`: every pod the selector picks in namespace shop.
  if (slash > 0 && DNS_LABEL.test(ns) && rest.includes('=') && rest.split(',').every((r) => SELECTOR.test(r))) return { pod: tok };
  if (parts.length === 2 && DNS_LABEL.test(ns) && DNS_SUBDOMAIN.test(parts[1]!)) return { pod: tok };
  // A workload as kubectl names it (`shop/deploy/web`), a Service (`shop/svc/db`), a pod (`shop/pod/web`).
  if (parts.length === 3 && DNS_LABEL.test(ns) && (workloadKindOf(parts[1]!) || NAME_KINDS.has(parts[1]!)) && DNS_SUBDOMAIN.test(parts[2]!)) return { pod: tok };
  // A node by its name (never one that reads as a mistyped address).
  if (parts.length === 1 && DNS_SUBDOMAIN.test(tok) && !/^[\d.]+$/.test(tok) && !GRAMMAR_WORDS.has(tok)) return { pod: tok };
  throw new Unreadable(expected);
}

function verb(t: Tokens, after: string): void {
  if (!t.acceptAny(VERBS)) throw new Unreadable(`expected "reach" (or "talk to", "connect to", "access") after ${quote(after)}, got ${quote(t.peek())}`);
}

function modal(t: Tokens, after: string): void {
  if (!t.acceptAny(MODALS)) throw new Unreadable(`expected "can" or "is … allowed to" after "${after}", got ${quote(t.peek())}`);
}

/** Whatever follows the destination: "", "on 5432", "tcp 5432", "5432/tcp", "on postgres", "on udp", "all". */
function portQuery(words: string[]): PortQuery {
  if (words.length > 0 && PORT_INTROS.has(words[0]!)) words = words.slice(1);
  const parts = words.flatMap((w) => w.split(/[/:]/)).filter((w) => w !== '');
  if (parts.length > 2) throw new Unreadable(`expected at most a port and a protocol after the destination, got ${quote(words.join(' '))}`);
  let port: number | string | null = null;
  let protocol: Protocol | null = null;
  for (const p of parts) {
    const proto = PROTOCOL_WORDS[p];
    if (proto) {
      if (protocol !== null) throw new Unreadable(`two protocols in ${quote(words.join(' '))}`);
      protocol = proto;
      continue;
    }
    if (EVERY_PORT.has(p)) continue;
    if (port !== null) throw new Unreadable(`two ports in ${quote(words.join(' '))}`);
    if (/^\d+$/.test(p)) {
      const n = Number(p);
      if (n < 1 || n > 65535) throw new Unreadable(`port ${p} is outside 1-65535`);
      port = n;
    } else if (SERVICE_NAME.test(p)) {
      port = p;
    } else {
      throw new Unreadable(`${quote(p)} is not a port number, a named port or tcp/udp/sctp`);
    }
  }
  return { port, protocol };
}

// "the cloud metadata address": the instance metadata endpoint of the cloud providers (metadata.ts).
const METADATA = new Set(['cloud', 'instance', 'metadata']);
const METADATA_NOUNS = new Set(['address', 'addresses', 'service', 'endpoint', 'server', 'api', 'ip']);

/** After "who can reach": the cloud metadata address, or a destination. */
function whoReaches(t: Tokens): Query {
  if (!METADATA.has(t.peek() ?? '')) return { kind: 'who', to: endpoint(t, 'destination', 'reach'), ...portQuery(t.rest()) };
  while (METADATA.has(t.peek() ?? '') || METADATA_NOUNS.has(t.peek() ?? '')) t.next();
  const words = t.rest();
  const asked = portQuery(words);
  // No port, protocol or "any port": TCP 80, where the metadata service answers.
  const bare = asked.port === null && asked.protocol === null && !words.some((w) => EVERY_PORT.has(w));
  return { kind: 'metadata', ...(bare ? { port: 80, protocol: 'TCP' } : asked) };
}

// Words around the namespace in "is anything in ns shop exposed to the (public) internet".
const EXPOSED_WORDS = new Set(['is', 'are', 'there', 'any', 'anything', 'something', 'everything', 'what', 'which', 'of', 'in', 'ns', 'namespace']);

/** "is anything exposed to the internet in ns shop", "what is exposed …", "is shop exposed …". */
function exposed(t: Tokens, head: string): Query {
  const names: string[] = [];
  const take = (w: string) => {
    if (EXPOSED_WORDS.has(w)) return;
    if (!DNS_LABEL.test(w)) throw new Unreadable(`expected a namespace in "${head} … exposed to the internet", got ${quote(w)}`);
    names.push(w);
  };
  for (let w = t.next(); w !== undefined && w !== 'exposed'; w = t.next()) take(w);
  if (!t.accept(['to'])) throw new Unreadable(`expected "exposed to the internet", got ${quote(t.peek())}`);
  t.accept(['public']);
  if (!t.accept(['internet'])) throw new Unreadable(`expected "exposed to the internet", got ${quote(t.peek())}`);
  if (t.accept(['in'])) {
    t.accept(['ns']) || t.accept(['namespace']);
    const ns = t.next();
    if (ns === undefined) throw new Unreadable('expected a namespace after "in"');
    take(ns);
  }
  if (t.peek() === 'and' || t.peek() === 'or') names.push(t.peek(1) ?? '');
  if (names.length !== 1) throw new Unreadable(names.length === 0 ? 'which namespace? ask "is anything exposed to the internet in ns shop?"' : `one namespace at a time, not ${names.filter((n) => n !== '').join(' and ')}`);
  return { kind: 'exposed', namespace: names[0]!, ...portQuery(t.rest()) };
}

// A resourceVersion as the store takes it (lower case: the question is read in lower case).
const VERSION = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** "what changed for shop/web since version 3": after "what changed". */
function changed(t: Tokens): Query {
  t.accept(['for']) || t.accept(['about']) || t.accept(['with']);
  const subject = endpoint(t, 'pod', 'changed for');
  if (!t.accept(['since'])) throw new Unreadable(`expected "since version N" after the pod, got ${quote(t.peek())}`);
  t.accept(['version']) || t.accept(['v']);
  const since = t.next();
  if (since === undefined || !VERSION.test(since)) throw new Unreadable(`expected a version after "since", got ${quote(since)}`);
  if (t.peek() !== undefined) throw new Unreadable(`expected the end of the question after the version, got ${quote(t.peek())}`);
  return { kind: 'changed', subject, since, port: null, protocol: null };
}

function parseTokens(t: Tokens): Query {
  const head = t.next();
  switch (head) {
    case 'can':
    case 'could':
    case 'may':
    case 'is':
    case 'are': {
      if ((head === 'is' || head === 'are') && t.list.includes('exposed')) return exposed(t, head);
      const from = endpoint(t, 'source', head);
      if (head === 'is' || head === 'are') {
        if (!t.accept(['allowed', 'to']) && !t.accept(['able', 'to'])) throw new Unreadable(`expected "allowed to" after the source, got ${quote(t.peek())}`);
      }
      verb(t, 'the source');
      const to = endpoint(t, 'destination', 'reach');
      return { kind: 'can', from, to, ...portQuery(t.rest()) };
    }
    case 'who':
    case 'which': {
      if ((t.peek() === 'is' || t.peek() === 'are') && t.list.includes('exposed')) return exposed(t, head);
      modal(t, head);
      verb(t, head);
      return whoReaches(t);
    }
    case 'what':
    case 'where': {
      // "what can reach x/a" asks for sources; "what can x/a reach" for destinations.
      if (MODALS.some((m) => m.every((w, k) => t.peek(k) === w) && VERBS.some((v) => v.every((w, k) => t.peek(m.length + k) === w)))) {
        modal(t, head);
        verb(t, head);
        return whoReaches(t);
      }
      if (t.accept(['changed']) || t.accept(['has', 'changed'])) return changed(t);
      if (t.peek() === 'is' && t.list.includes('exposed')) return exposed(t, head);
      if (t.accept(['is'])) {
        const from = endpoint(t, 'source', 'is');
        if (!t.accept(['allowed', 'to']) && !t.accept(['able', 'to'])) throw new Unreadable(`expected "allowed to" after the source, got ${quote(t.peek())}`);
        verb(t, 'allowed to');
        return { kind: 'what', from, ...portQuery(t.rest()) };
      }
      modal(t, head);
      const from = endpoint(t, 'source', 'can');
      verb(t, 'the source');
      return { kind: 'what', from, ...portQuery(t.rest()) };
    }
    default:
      throw new Unreadable(`a question starts with "can", "is", "who" or "what", not ${quote(head)}`);
  }
}

/** By `acceptedForms`: an answer's own `error` (unknown pod) is not a parse failure. */
export function isParseFailure(x: unknown): x is ParseFailure {
  return typeof x === 'object' && x !== null && 'acceptedForms' in x;
}

/** Never throws: anything it cannot read comes back as {error, acceptedForms}. */
export function parseQuestion(question: unknown): Query | ParseFailure {
  const fail = (error: string): ParseFailure => ({ error, acceptedForms: ACCEPTED_FORMS });
  if (typeof question !== 'string') return fail('the question must be text');
  if (question.length > MAX_QUESTION_LENGTH) return fail(`the question is ${question.length} characters long; at most ${MAX_QUESTION_LENGTH} are read`);
  const tokens = tokenize(question);
  if (tokens.length === 0) return fail('the question is empty');
  try {
    return parseTokens(new Tokens(tokens));
  } catch (e) {
    // Unreadable is the expected path; anything else is still bad input, never a 500.
    return fail(e instanceof Unreadable ? e.message : `could not read the question (${String(e)})`);
  }
}
