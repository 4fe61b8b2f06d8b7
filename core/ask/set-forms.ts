// The questions about sets of pods (who reaches Y, what X reaches, what is exposed to the
// internet, who reaches the cloud metadata address, what changed for X) read after their question
// word; parse.ts dispatches to them.
import { DNS_LABEL, endpoint, namespaceAfterIn, tail, type Read, type Scope } from './endpoints.js';
import { INTERNET } from '../evaluate/names.js';
import { can, verb } from './forms.js';
import { EVERY_PORT, joinPorts, portsAsked } from './ports.js';
import type { Query } from './query.js';
import { quote, Unreadable, type Tokens } from './tokens.js';
import { MODALS } from './words.js';

export function modal(t: Tokens, after: string): void {
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
export function podsInAfterHead(t: Tokens): string | null {
  if (t.peek() !== 'in') return null;
  t.next();
  return namespaceAfterIn(t);
}

/** After "who can reach": the cloud metadata address, or a destination. `podsIn`: "who in monitoring can reach". */
export function whoReaches(t: Tokens, scope: Scope, podsIn: string | null = null): Query {
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
export function exposed(t: Tokens, head: string): Query {
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
export function changed(t: Tokens, scope: Scope): Query {
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
export function whatFrom(t: Tokens, scope: Scope, head: 'can' | 'is', podsIn: string | null = null): Query {
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

export const EVERYTHING = new Set(['everything', 'anything', 'all', 'every']);
// "which services can X reach", "what workloads talk to Y": the answers name pods and what they belong to.
export const ENDPOINT_NOUNS: readonly (readonly string[])[] = [['services'], ['workloads'], ['endpoints'], ['destinations'], ['sources'], ['things'], ['apps'], ['clients']];

/** "everything X can reach" (what X reaches), "everything that can reach Y" (who reaches Y). */
export function everything(t: Tokens, scope: Scope): Query {
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
