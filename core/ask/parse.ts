// Reads a chat-ops question ("can shop/web reach shop/db on 5432?") into a typed query.
// Hand-written: the grammar is a handful of sentence shapes over a few dozen words (tokens.ts
// splits them), smaller than any parser-generator setup, and it must name the part it could not
// read rather than throw.
import { isBare, namespaceFlags, qualify, type Scope } from './endpoints.js';
import type { EndpointSpec } from '../evaluate/resolve.js';
import { AUXILIARIES, reachQuestion, traffic, verb } from './forms.js';
import { blockedTo, isolationOf, policiesOf } from './policy-forms.js';
import type { ParseFailure, Query } from './query.js';
import { changed, ENDPOINT_NOUNS, everything, EVERYTHING, exposed, modal, podsInAfterHead, whatFrom, whoReaches } from './set-forms.js';
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

// Modals a statement puts after its subject ("shop/web can reach shop/db").
const DECLARATIVE_MODALS = new Set(['can', 'could', 'will', 'would', 'may', 'might', 'should']);


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
      if (t.acceptAny([['blocks'], ['is', 'blocking'], ['stops'], ['prevents'], ['denies'], ['drops']])) {
        // "what is blocking traffic to Y" names no source: the policies that isolate Y.
        if (t.acceptAny([['traffic', 'to'], ['traffic', 'into'], ['access', 'to'], ['connections', 'to']])) return blockedTo(t, scope);
        return traffic(t, scope);
      }
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
