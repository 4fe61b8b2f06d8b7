// The sentences that ask whether one endpoint reaches another, each read into the one "can"
// question (query.ts) that "can X reach Y on P?" is:
//   can|could|will|does … X [be able to|allowed to] VERB Y …     "will X be able to reach Y"
//   is|are X allowed|able|permitted to VERB Y …                  "is X allowed to reach Y"
//   why can't|why can|why is|why does …                          "why can't X reach Y"
//   is X blocked|prevented|denied from [VERB-ing] Y …           "why is X blocked from reaching Y"
//   is|can Y reachable|be reached from X …                       "is Y reachable from X on 443"
//   does|can Y accept connections|receive traffic from X …, is Y open to X …
//   is there a path from X to Y …, is egress|a connection from X to Y allowed
//   can X resolve DNS, can X reach DNS                              the cluster's DNS Service, UDP 53
//   is traffic from X to Y allowed, can traffic flow from X to Y, does anything block traffic from X to Y
//   what is blocking X from reaching Y, does anything stop X from talking to Y
//   is it possible for X to VERB Y
//   from X to Y …, X -> Y …, X → Y …
// VERB is one of words.ts's VERBS; "ping" is answered with why policies cannot say.
import { CLUSTER_DNS, endpoint, tail, type Read, type Scope } from './endpoints.js';
import { joinPorts } from './ports.js';
import type { ReachQuery } from './query.js';
import { quote, Unreadable, type Tokens } from './tokens.js';
import { ABLE, BLOCKED, GERUNDS, ICMP_VERBS, OPEN_TO, PASSIVE, PATHS, RECEIVES, TRAFFIC_NOUNS, VERBS } from './words.js';

/** The words a reach question may open with (after "why"). */
export const AUXILIARIES = new Set(['can', 'could', 'may', 'might', 'will', 'would', 'should', 'is', 'are', 'does', 'do', 'did']);

// "NetworkPolicyPort … protocol: The protocol (TCP, UDP, or SCTP) which traffic must match"
// (networking.k8s.io/v1): no policy here selects ICMP, so no answer could be about it.
export const ICMP =
  'ping sends ICMP, and NetworkPolicy cannot select ICMP: a NetworkPolicyPort\'s protocol is TCP, UDP or SCTP (networking.k8s.io/v1), so these policies cover TCP, UDP and SCTP only (whether ICMP passes depends on the network plugin); ask about a port instead, e.g. "can X reach Y on tcp 80?"';

export function verb(t: Tokens, after: string): void {
  if (ICMP_VERBS.has(t.peek() ?? '')) throw new Unreadable(ICMP);
  if (!t.acceptAny(VERBS)) throw new Unreadable(`expected "reach" (or "talk to", "connect to", "access", "scrape", "have access to") after ${quote(after)}, got ${quote(t.peek())}`);
}

/** The question once both ends are read: a port belongs to the destination. */
export function can(from: Read, to: Read, words: readonly string[]): ReachQuery {
  if (from.port !== null) throw new Unreadable(`a port on the source (${quote(from.port)}): policies match the destination's port, so write it on the destination`);
  const asked = joinPorts(to.port, words);
  if ('ports' in asked) return { kind: 'can-list', from: from.spec, to: to.spec, ...asked };
  // "can X resolve DNS": DNS is port 53, over UDP unless the question says TCP.
  const dns = to.dns && asked.port === null ? { port: 53, protocol: asked.protocol ?? 'UDP' } : {};
  return { kind: 'can', from: from.spec, to: to.spec, ...asked, ...dns };
}

// "can X resolve DNS (names)", "can X do DNS lookups": a reach question to the cluster's DNS.
const RESOLVES: readonly (readonly string[])[] = [['resolve'], ['do', 'dns', 'lookups'], ['do', 'dns', 'queries'], ['make', 'dns', 'queries'], ['look', 'up']];
const RESOLVED: readonly (readonly string[])[] = [['dns', 'names'], ['dns'], ['names'], ['hostnames'], ['host', 'names'], ['domains'], ['domain', 'names'], ['anything']];

/** "X to Y …", "X → Y …": after "from" (or at the start, for the arrow). */
function fromTo(t: Tokens, scope: Scope, after: string): ReachQuery {
  const from = endpoint(t, 'source', after, scope);
  if (!t.accept(['to']) && !t.accept(['→'])) throw new Unreadable(`expected "to" and the destination after the source, got ${quote(t.peek())}`);
  const to = endpoint(t, 'destination', 'to', scope);
  return can(from, to, tail(t, scope));
}

// "does anything block traffic from X to Y", "is something blocking …", "what blocks …".
const BLOCKS: readonly (readonly string[])[] = [['block'], ['blocks'], ['blocking'], ['stop'], ['stops'], ['stopping'], ['prevent'], ['prevents'], ['preventing'], ['deny'], ['denies'], ['denying'], ['drop'], ['drops'], ['dropping']];

/**
 * After "traffic" or a word that blocks it: "[flow|go|get] from X to Y …", or, after a word that
 * blocks, "X from [reaching] Y …" ("what is blocking X from reaching Y", "does anything stop X
 * from talking to Y").
 */
export function traffic(t: Tokens, scope: Scope): ReachQuery {
  if (!TRAFFIC_NOUNS.some((n) => t.sees(n)) && !t.sees(['from'])) {
    const from = endpoint(t, 'source', 'block', scope);
    if (!t.accept(['from'])) throw new Unreadable(`expected "X from reaching Y" (or "traffic from X to Y"), got ${quote(t.peek())}`);
    t.acceptAny(GERUNDS);
    return can(from, endpoint(t, 'destination', 'from', scope), tail(t, scope));
  }
  t.acceptAny(TRAFFIC_NOUNS);
  t.acceptAny([['flow'], ['go'], ['get'], ['pass'], ['be', 'sent']]);
  if (!t.accept(['from'])) throw new Unreadable(`expected "traffic from X to Y", got ${quote(t.peek())}`);
  return fromTo(t, scope, 'from');
}

// "which policy allows X to reach Y", "what rule lets traffic from X to Y through".
const ALLOWS: readonly (readonly string[])[] = [['allows'], ['allow'], ['permits'], ['permit'], ['lets'], ['let']];

/**
 * "which policy blocks X from reaching Y", "which rule allows X to reach Y": whether X reaches Y,
 * whose answer names the deciding policy and rule. Null when no such verb follows.
 */
export function whichPolicyDecides(t: Tokens, scope: Scope): ReachQuery | null {
  if (t.acceptAny(BLOCKS)) return traffic(t, scope);
  if (!t.acceptAny(ALLOWS)) return null;
  if (TRAFFIC_NOUNS.some((n) => t.sees(n)) || t.sees(['from'])) return traffic(t, scope);
  const from = endpoint(t, 'source', 'allows', scope);
  if (!t.accept(['to'])) throw new Unreadable(`expected "to reach" after the source, got ${quote(t.peek())}`);
  verb(t, 'to');
  return can(from, endpoint(t, 'destination', 'reach', scope), tail(t, scope));
}

/** A reach question from its first word (parse.ts sends every opening but "who" and "what" here). */
export function reachQuestion(t: Tokens, scope: Scope): ReachQuery {
  // "X → Y", "is X → Y allowed".
  if (t.ahead().includes('→') && !t.sees(['from'])) {
    if (AUXILIARIES.has(t.peek() ?? '')) t.next();
    return fromTo(t, scope, 'the start');
  }
  if (t.accept(['from'])) return fromTo(t, scope, 'from');
  // "how can X reach Y" asks what allows it: the decision chain, as "why" does.
  const head = t.peek();
  if ((t.accept(['why']) || t.accept(['how'])) && !AUXILIARIES.has(t.peek() ?? '')) throw new Unreadable(`expected "can", "is" or "does" after "${head}", got ${quote(t.peek())}`);
  const aux = t.next()!;
  if (!AUXILIARIES.has(aux)) throw new Unreadable(`a question starts with "can", "is", "who" or "what", not ${quote(aux)}`);
  t.accept(['not']);
  if ((t.accept(['anything']) || t.accept(['something'])) && t.acceptAny(BLOCKS)) return traffic(t, scope);
  if (t.peek() === 'traffic' || TRAFFIC_NOUNS.some((n) => t.sees(n) && t.peek(n.length) === 'from')) return traffic(t, scope);
  if (t.acceptAny([['it', 'possible', 'for'], ['it', 'allowed', 'for'], ['there', 'a', 'way', 'for']])) {
    const from = endpoint(t, 'source', 'for', scope);
    if (!t.accept(['to'])) throw new Unreadable(`expected "to" after the source, got ${quote(t.peek())}`);
    verb(t, 'to');
    return can(from, endpoint(t, 'destination', 'reach', scope), tail(t, scope));
  }
  // "is there a path from X to Y".
  if (t.acceptAny(PATHS)) {
    if (!t.accept(['from'])) throw new Unreadable(`expected "from X to Y" after "is there a path", got ${quote(t.peek())}`);
    return fromTo(t, scope, 'from');
  }
  const first = endpoint(t, 'source', aux, scope);
  t.accept(['not']);
  // "is Y open to X [on P]": the destination came first, the source right after.
  if (t.acceptAny(OPEN_TO)) {
    const from = endpoint(t, 'source', 'open to', scope);
    return can(from, first, tail(t, scope));
  }
  // "is X allowed to reach Y", "will Y be able to accept connections from X".
  let able = false;
  while (t.acceptAny(ABLE)) able = true;
  if (t.acceptAny(RESOLVES)) {
    t.acceptAny(RESOLVED);
    return can(first, { spec: { pod: CLUSTER_DNS }, port: null, dns: true }, tail(t, scope));
  }
  // "does Y accept connections from X", "can Y receive traffic from X": as PASSIVE.
  if (t.acceptAny(PASSIVE) || t.acceptAny(RECEIVES)) {
    // "is Y reachable [on P] from X [on P]": the destination came first.
    let from: Read | null = null;
    const words = tail(t, scope, (r) => {
      from = endpoint(r, 'source', 'from', scope);
    });
    if (from === null) throw new Unreadable(`expected "from" and the source after the destination, got ${quote(words.join(' ') || undefined)}`);
    return can(from, first, words);
  }
  // "why is X blocked from reaching Y": whether X reaches Y, as for "why can't X reach Y".
  if (t.acceptAny(BLOCKED)) {
    t.acceptAny(GERUNDS);
    return can(first, endpoint(t, 'destination', 'from', scope), tail(t, scope));
  }
  if ((aux === 'is' || aux === 'are') && !able) throw new Unreadable(`expected "allowed to" (or "reachable from", "blocked from") after the source, got ${quote(t.peek())}`);
  verb(t, 'the source');
  const to = endpoint(t, 'destination', 'reach', scope);
  return can(first, to, tail(t, scope));
}
