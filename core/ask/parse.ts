// Reads a chat-ops question ("can shop/web reach shop/db on 5432?") into a typed query.
// Hand-written: the grammar is a handful of sentence shapes over a few dozen words (tokens.ts
// splits them), smaller than any parser-generator setup, and it must name the part it could not
// read rather than throw.
import { DNS_LABEL, endpoint, isBare, namespaceAfterIn, namespaceFlags, qualify, tail, type Read, type Scope } from './endpoints.js';
import type { EndpointSpec } from '../evaluate/resolve.js';
import { INTERNET } from '../evaluate/names.js';
import { AUXILIARIES, can, reachQuestion, traffic, verb, whichPolicyDecides } from './forms.js';
import { EVERY_PORT, joinPorts, portsAsked } from './ports.js';
import type { ParseFailure, Query } from './query.js';
import { quote, tokenize, Tokens, Unreadable } from './tokens.js';
import { ABLE, ANYONE, ICMP_VERBS, MODALS, VERBS, VERBS_THIRD } from './words.js';

export type { ParseFailure, PortQuery, Query } from './query.js';

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
  'can web reach db -n shop?  (names without a namespace: -n, --namespace, "in shop"; else the one namespace that has them)',
  'can the web deployment reach the db service in the shop namespace?  (also: service db, deployment web)',
  'why is shop/web blocked from reaching shop/db on 5432?',
  'why can\'t shop/web reach db.shop.svc.cluster.local:5432/tcp?  (a Service by its DNS name; a port on the destination)',
  'is shop/db reachable from the internet on 5432?  (also: does shop/web have access to shop/db, from shop/web to shop/db)',
  'is traffic from shop/web to shop/db allowed?  (also: shop/web -> shop/db:5432)',
  'can pods in monitoring scrape shop/db on 9187?  (a namespace\'s pods: also ns/monitoring, namespace monitoring)',
  'who can reach payments/api on tcp 443?',
  'who can reach payments/api?  (every port, answered as port ranges)',
  'what can shop/web reach?',
  'what can shop/web reach on 53/udp?',
  'what can prometheus reach in shop?  (only the pods of shop; also: what pods in shop can prometheus reach, who in monitoring can reach shop/db)',
  'which pods can shop/web talk to?  (also: does shop/db accept connections from shop/web, is shop/db open to shop/web, is there a path from shop/web to shop/db)',
  'can shop/web resolve DNS?  (the Service kube-system/kube-dns, UDP 53; also: can shop/web reach the cluster DNS over tcp)',
  'which policies apply to shop/db?  (per direction and tier; also: is shop/db isolated, does shop/web have a network policy)',
  'who can reach shop/svc/db on 5432?  (a name for several pods or a CIDR: what all share, and what differs)',
  'is anything exposed to the internet in ns shop?',
  'what is exposed to the internet in shop?  (also: is shop exposed to the internet?)',
  'which pods can reach the cloud metadata address?  (TCP 80; "on any port" for port ranges; "which pods in shop …" for one namespace)',
  'what changed for shop/web since version 3?  (a stored cluster: against the asked version, latest by default)',
];

/** Chat input is untrusted; anything longer is not a short question. */
export const MAX_QUESTION_LENGTH = 500;

function modal(t: Tokens, after: string): void {
  if (!t.acceptAny(MODALS)) throw new Unreadable(`expected "can" or "is … allowed to" after "${after}", got ${quote(t.peek())}`);
}

// "the cloud metadata address": the instance metadata endpoint of the cloud providers (metadata.ts).
const METADATA = new Set(['cloud', 'instance', 'metadata']);
const METADATA_NOUNS = new Set(['address', 'addresses', 'service', 'endpoint', 'server', 'api', 'ip']);

/** `podsIn` as a query carries it: only when given. */
const among = (podsIn: string | null) => (podsIn === null ? {} : { podsIn });

/**
 * "who in monitoring can reach", "which pods in monitoring …", "what pods in shop can X reach":
 * the namespace whose pods are answered, right after the question word. ("pods" is a filler.)
 */
function podsInAfterHead(t: Tokens): string | null {
  if (t.peek() !== 'in') return null;
  t.next();
  return namespaceAfterIn(t);
}

/** After "who can reach": the cloud metadata address, or a destination. `podsIn`: "who in monitoring can reach". */
function whoReaches(t: Tokens, scope: Scope, podsIn: string | null = null): Query {
  if (!METADATA.has(t.peek() ?? '')) {
    const to = endpoint(t, 'destination', 'reach', scope);
    // "who can reach Y from the internet": whether the internet can.
    let from: Read | null = null;
    const words = tail(t, scope, (r) => {
      if (podsIn !== null) throw new Unreadable(`the sources are the pods of ${podsIn} already; ask "who in ${podsIn} can reach …" without "from"`);
      from = endpoint(r, 'source', 'from', scope);
    });
    if (from !== null) return can(from, to, words);
    const ports = joinPorts(to.port, words);
    return 'ports' in ports ? { kind: 'who-list', to: to.spec, ...ports, ...among(podsIn) } : { kind: 'who', to: to.spec, ...ports, ...among(podsIn) };
  }
  while (METADATA.has(t.peek() ?? '') || METADATA_NOUNS.has(t.peek() ?? '')) t.next();
  const words = t.rest();
  const asked = portsAsked(words);
  if ('ports' in asked) return { kind: 'metadata-list', ...asked, ...among(podsIn) };
  // No port, protocol or "any port": TCP 80, where the metadata service answers.
  const bare = asked.port === null && asked.protocol === null && !words.some((w) => EVERY_PORT.has(w));
  return { kind: 'metadata', ...(bare ? { port: 80, protocol: 'TCP' } : asked), ...among(podsIn) };
}

// Words around the namespace in "is anything in ns shop exposed to the (public) internet".
const EXPOSED_WORDS = new Set(['is', 'are', 'there', 'any', 'anything', 'something', 'everything', 'what', 'which', 'of', 'in', 'ns', 'namespace']);

/** "is anything exposed to the internet in ns shop", "what is exposed …", "is shop exposed …". */
function exposed(t: Tokens, head: string): Query {
  const names: string[] = [];
  const take = (w: string) => {
    if (EXPOSED_WORDS.has(w)) return;
    // A namespace, or a pod, workload or Service by its path ("is shop/deploy/web exposed …").
    if (!DNS_LABEL.test(w) && !(w.includes('/') && w.split('/').every((part) => DNS_LABEL.test(part)))) throw new Unreadable(`expected a namespace in "${head} … exposed to the internet", got ${quote(w)}`);
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
  const asked = portsAsked(t.rest());
  // A path names an endpoint: whether the internet reaches it (a bare name that is no namespace is asked so too, answer.ts).
  if (names[0]!.includes('/')) {
    const [from, to] = [{ ip: INTERNET }, { pod: names[0]! }];
    return 'ports' in asked ? { kind: 'can-list', from, to, ...asked } : { kind: 'can', from, to, ...asked };
  }
  return 'ports' in asked ? { kind: 'exposed-list', namespace: names[0]!, ...asked } : { kind: 'exposed', namespace: names[0]!, ...asked };
}

// A resourceVersion as the store takes it (lower case: the question is read in lower case).
const VERSION = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** "what changed for shop/web since version 3": after "what changed". */
function changed(t: Tokens, scope: Scope): Query {
  t.accept(['for']) || t.accept(['about']) || t.accept(['with']);
  const subject = endpoint(t, 'pod', 'changed for', scope).spec;
  if (!t.accept(['since'])) throw new Unreadable(`expected "since version N" after the pod, got ${quote(t.peek())}`);
  t.accept(['version']) || t.accept(['v']);
  const since = t.next();
  if (since === undefined || !VERSION.test(since)) throw new Unreadable(`expected a version after "since", got ${quote(since)}`);
  if (t.peek() !== undefined) throw new Unreadable(`expected the end of the question after the version, got ${quote(t.peek())}`);
  return { kind: 'changed', subject, since, port: null, protocol: null };
}

/**
 * "what can X reach", "what is X allowed to reach": the source's destinations. "in shop" after
 * the verb ("what can prometheus reach in shop") names the destinations' namespace, as "what
 * pods in shop can prometheus reach" does (`podsIn`); a bare source name is looked for there
 * first too, as "-n shop" would (answer.ts falls back to the name as written).
 */
function whatFrom(t: Tokens, scope: Scope, head: 'can' | 'is', podsIn: string | null = null): Query {
  const from = endpoint(t, 'source', head, scope);
  t.accept(['not']);
  if (head === 'is' && !t.accept(['allowed', 'to']) && !t.accept(['able', 'to'])) throw new Unreadable(`expected "allowed to" after the source, got ${quote(t.peek())}`);
  verb(t, head === 'is' ? 'allowed to' : 'the source');
  if (from.port !== null) throw new Unreadable(`a port on the source (${quote(from.port)}): ask "what can X reach on ${from.port}?"`);
  let within = podsIn;
  const words = tail(t, scope, undefined, (ns) => {
    if (within !== null && within !== ns) throw new Unreadable(`pods of one namespace at a time, not ${within} and ${ns}`);
    within = ns;
    scope.namespaces.add(ns);
  });
  const ports = portsAsked(words);
  return 'ports' in ports ? { kind: 'what-list', from: from.spec, ...ports, ...among(within) } : { kind: 'what', from: from.spec, ...ports, ...among(within) };
}

const EVERYTHING = new Set(['everything', 'anything', 'all', 'every']);
// "which services can X reach", "what workloads talk to Y": the answers name pods and what they belong to.
const ENDPOINT_NOUNS: readonly (readonly string[])[] = [['services'], ['workloads'], ['endpoints'], ['destinations'], ['sources'], ['things'], ['apps'], ['clients']];
// Modals a statement puts after its subject ("shop/web can reach shop/db").
const DECLARATIVE_MODALS = new Set(['can', 'could', 'will', 'would', 'may', 'might', 'should']);

/** "everything X can reach" (what X reaches), "everything that can reach Y" (who reaches Y). */
function everything(t: Tokens, scope: Scope): Query {
  t.next();
  if (t.accept(['that']) || t.accept(['which']) || t.accept(['who'])) {
    modal(t, 'everything that');
    t.accept(['not']);
    verb(t, 'everything that');
    return whoReaches(t, scope);
  }
  const from = endpoint(t, 'source', 'everything', scope);
  if (from.port !== null) throw new Unreadable(`a port on the source (${quote(from.port)}): ask "what can X reach on ${from.port}?"`);
  if (!t.acceptAny(MODALS)) throw new Unreadable(`expected "can reach" after the source, got ${quote(t.peek())}`);
  t.accept(['not']);
  verb(t, 'the source');
  const ports = portsAsked(tail(t, scope));
  return 'ports' in ports ? { kind: 'what-list', from: from.spec, ...ports } : { kind: 'what', from: from.spec, ...ports };
}

// "which network policies apply to X", "is X isolated": the policies selecting X (policies.ts).
const POLICY_NOUNS: readonly (readonly string[])[] = [['network', 'policies'], ['network', 'policy'], ['networkpolicies'], ['networkpolicy'], ['netpols'], ['netpol'], ['policies'], ['policy']];
const RULE_NOUNS: readonly (readonly string[])[] = [['rules'], ['rule']];
const APPLY: readonly (readonly string[])[] = [
  ['apply', 'to'], ['applies', 'to'], ['are', 'applied', 'to'], ['is', 'applied', 'to'], ['select'], ['selects'], ['affect'], ['affects'], ['cover'], ['covers'],
  ['protect'], ['protects'], ['govern'], ['governs'], ['target'], ['targets'], ['are', 'on'], ['is', 'on'], ['are', 'there', 'for'], ['are', 'there', 'on'], ['for'], ['on'],
];
// After the subject: "is X isolated", "is X protected by a network policy", "is X selected by any policy".
const ISOLATED: readonly (readonly string[])[] = [['isolated'], ['protected'], ['locked', 'down']];
const SELECTED: readonly (readonly string[])[] = [['selected', 'by'], ['covered', 'by']];
// Words after those that say nothing more ("for ingress", "by any network policy").
const POLICY_TAIL = new Set(['by', 'any', 'a', 'an', 'network', 'policy', 'policies', 'networkpolicy', 'networkpolicies', 'netpol', 'netpols', 'for', 'ingress', 'egress', 'traffic', 'at', 'all']);

function policyTail(t: Tokens): void {
  const rest = t.rest().filter((w) => !POLICY_TAIL.has(w));
  if (rest.length > 0) throw new Unreadable(`expected the end of the question after the pod, got ${quote(rest[0])}`);
}

/** "which policies apply to X", "what network policies select X", "what policies does X have": after the question word. */
function policiesOf(t: Tokens, scope: Scope): Query | null {
  if (!POLICY_NOUNS.some((n) => t.sees(n)) && !RULE_NOUNS.some((n) => t.sees(n))) return null;
  t.acceptAny(POLICY_NOUNS) || t.acceptAny(RULE_NOUNS);
  // "which policy blocks X from reaching Y", "which rule allows X to reach Y".
  const decides = whichPolicyDecides(t, scope);
  if (decides) return decides;
  if (t.accept(['does']) || t.accept(['do'])) {
    const subject = endpoint(t, 'pod', 'policies does', scope).spec;
    if (!t.accept(['have'])) throw new Unreadable(`expected "have" after the pod, got ${quote(t.peek())}`);
    policyTail(t);
    return { kind: 'policies', subject, isolation: false };
  }
  if (t.accept(['is']) || t.accept(['are'])) {
    const subject = endpoint(t, 'pod', 'policies is', scope).spec;
    if (!t.accept(['selected', 'by'])) throw new Unreadable(`expected "selected by" after the pod, got ${quote(t.peek())}`);
    policyTail(t);
    return { kind: 'policies', subject, isolation: false };
  }
  if (!t.acceptAny(APPLY)) throw new Unreadable(`expected "apply to" (or "select", "affect") after "policies", got ${quote(t.peek())}`);
  const subject = endpoint(t, 'pod', 'apply to', scope).spec;
  policyTail(t);
  return { kind: 'policies', subject, isolation: false };
}

/** "is X isolated", "does X have a network policy": whole, or null when the question is not one of these. */
function isolationOf(t: Tokens, scope: Scope): Query | null {
  const aux = t.peek();
  if (aux !== 'is' && aux !== 'are' && aux !== 'does' && aux !== 'do') return null;
  const ahead = new Tokens(t.list.slice(1));
  let subject: EndpointSpec;
  try {
    subject = endpoint(ahead, 'pod', aux, scope).spec;
  } catch {
    return null;
  }
  ahead.accept(['not']);
  const isolation = (aux === 'is' || aux === 'are') && ahead.acceptAny(ISOLATED);
  const asks = isolation || ((aux === 'is' || aux === 'are') ? ahead.acceptAny(SELECTED) : ahead.accept(['have']) && (ahead.acceptAny([['a'], ['any']]), ahead.acceptAny(POLICY_NOUNS)));
  if (!asks) return null;
  policyTail(ahead);
  return { kind: 'policies', subject, isolation };
}

function parseTokens(t: Tokens, scope: Scope): Query {
  const head = t.peek();
  if ((head === 'is' || head === 'are') && t.list.includes('exposed')) return exposed(t, t.next()!);
  switch (head) {
    case 'who':
    case 'which': {
      t.next();
      if ((t.peek() === 'is' || t.peek() === 'are' || t.peek() === 'in') && t.list.includes('exposed')) return exposed(t, head);
      const policies = policiesOf(t, scope);
      if (policies) return policies;
      t.acceptAny(ENDPOINT_NOUNS);
      const podsIn = podsInAfterHead(t);
      // "who talks to Y", "which pods reach Y".
      if (t.acceptAny(VERBS_THIRD) || t.acceptAny(VERBS)) return whoReaches(t, scope, podsIn);
      // "who does X talk to": X's destinations.
      if (t.accept(['does']) || t.accept(['do'])) return whatFrom(t, scope, 'can', podsIn);
      modal(t, head);
      t.accept(['not']);
      // "which pods can shop/web talk to": the source's destinations, as "what can shop/web reach".
      if (!VERBS.some((v) => t.sees(v)) && !ICMP_VERBS.has(t.peek() ?? '')) return whatFrom(t, scope, 'can', podsIn);
      verb(t, head);
      return whoReaches(t, scope, podsIn);
    }
    case 'what':
    case 'where': {
      t.next();
      // "what in shop is exposed to the internet": exposed() reads the namespace.
      if (t.peek() === 'in' && t.list.includes('exposed')) return exposed(t, head);
      const policies = policiesOf(t, scope);
      if (policies) return policies;
      t.acceptAny(ENDPOINT_NOUNS);
      const podsIn = podsInAfterHead(t);
      // "what talks to Y", "what reaches Y".
      if (t.acceptAny(VERBS_THIRD)) return whoReaches(t, scope, podsIn);
      // "what does X talk to", "where does X connect": X's destinations.
      if (t.accept(['does']) || t.accept(['do'])) return whatFrom(t, scope, 'can', podsIn);
      // "what can reach x/a" asks for sources; "what can x/a reach" for destinations.
      if (MODALS.some((m) => m.every((w, k) => t.peek(k) === w) && VERBS.some((v) => v.every((w, k) => t.peek(m.length + k) === w)))) {
        modal(t, head);
        verb(t, head);
        return whoReaches(t, scope, podsIn);
      }
      if (podsIn !== null) {
        if (t.accept(['is'])) return whatFrom(t, scope, 'is', podsIn);
        modal(t, `${head} in ${podsIn}`);
        return whatFrom(t, scope, 'can', podsIn);
      }
      if (t.accept(['changed']) || t.accept(['has', 'changed'])) return changed(t, scope);
      if (t.peek() === 'is' && t.list.includes('exposed')) return exposed(t, head);
      // "what blocks traffic from X to Y", "what is blocking …": whether anything does, and which rule.
      if (t.acceptAny([['blocks'], ['is', 'blocking'], ['stops'], ['prevents'], ['denies'], ['drops']])) return traffic(t, scope);
      if (t.accept(['is'])) return whatFrom(t, scope, 'is');
      modal(t, head);
      return whatFrom(t, scope, 'can');
    }
    default: {
      const isolation = isolationOf(t, scope);
      if (isolation) return isolation;
      // "can anything reach Y", "does anyone talk to Y": who reaches Y.
      if (AUXILIARIES.has(head ?? '') && ANYONE.has(t.peek(1) ?? '') && !t.list.includes('→')) {
        const ahead = new Tokens(t.list.slice(2));
        while (ahead.acceptAny(ABLE));
        if (VERBS.some((v) => ahead.sees(v)) || VERBS_THIRD.some((v) => ahead.sees(v))) {
          if (!ahead.acceptAny(VERBS_THIRD)) verb(ahead, t.peek(1)!);
          return whoReaches(ahead, scope);
        }
      }
      if (head === 'why' || head === 'how' || head === 'from' || AUXILIARIES.has(head ?? '') || t.list.includes('→')) return reachQuestion(t, scope);
      // "everything shop/web can reach", "all pods that can reach shop/db" (after "list", "show me").
      if (EVERYTHING.has(head ?? '')) return everything(t, scope);
      // "shop/web can reach shop/db" (after "check if", "tell me whether"): the modal first, as asked.
      const at = t.list.findIndex((w, i) => i > 0 && DECLARATIVE_MODALS.has(w));
      if (at > 0) return reachQuestion(new Tokens([t.list[at]!, ...t.list.slice(0, at), ...t.list.slice(at + 1)]), scope);
      throw new Unreadable(`a question starts with "can", "is", "who" or "what", not ${quote(head)}`);
    }
  }
}

/** A namespace the question gives once (`-n prod`, `in prod`) is every name's without one, as kubectl's -n is. */
function inScope(q: Query, scope: Scope): Query {
  if (scope.namespaces.size !== 1) return q;
  const [ns] = scope.namespaces;
  const f = (s: EndpointSpec) => (isBare(s) ? qualify(s, ns!) : s);
  switch (q.kind) {
    case 'can':
    case 'can-list':
      return { ...q, from: f(q.from), to: f(q.to) };
    case 'who':
    case 'who-list':
      return { ...q, to: f(q.to) };
    case 'what':
    case 'what-list':
      return { ...q, from: f(q.from) };
    case 'changed':
    case 'policies':
      return { ...q, subject: f(q.subject) };
    default:
      return q;
  }
}

/** By `acceptedForms`: an answer's own `error` (unknown pod) is not a parse failure. */
export function isParseFailure(x: unknown): x is ParseFailure {
  return typeof x === 'object' && x !== null && 'acceptedForms' in x;
}

/** A question as asked, and as written before the question's namespace went to its bare names (answer.ts falls back to it). */
export interface ReadQuestion {
  readonly query: Query;
  readonly unscoped: Query;
}

/** Never throws: anything it cannot read comes back as {error, acceptedForms}. */
export function parseQuestion(question: unknown): Query | ParseFailure {
  const read = readQuestion(question);
  return isParseFailure(read) ? read : read.query;
}

/** parseQuestion, with the names as written too. */
export function readQuestion(question: unknown): ReadQuestion | ParseFailure {
  const fail = (error: string): ParseFailure => ({ error, acceptedForms: ACCEPTED_FORMS });
  if (typeof question !== 'string') return fail('the question must be text');
  if (question.length > MAX_QUESTION_LENGTH) return fail(`the question is ${question.length} characters long; at most ${MAX_QUESTION_LENGTH} are read`);
  try {
    const scope: Scope = { namespaces: new Set() };
    const tokens = namespaceFlags(tokenize(question), scope);
    if (tokens.length === 0) return fail('the question is empty');
    const unscoped = parseTokens(new Tokens(tokens), scope);
    return { query: inScope(unscoped, scope), unscoped };
  } catch (e) {
    // Unreadable is the expected path; anything else is still bad input, never a 500.
    return fail(e instanceof Unreadable ? e.message : `could not read the question (${String(e)})`);
  }
}
