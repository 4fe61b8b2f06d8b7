// "which policies apply to X", "is X isolated", "which policy blocks X from reaching Y": the
// questions about policies, read after their question word (parse.ts dispatches to them).
import type { EndpointSpec } from '../evaluate/resolve.js';
import { endpoint, tail, type Scope } from './endpoints.js';
import { joinPorts } from './ports.js';
import { whichPolicyDecides } from './forms.js';
import type { Query } from './query.js';
import { quote, Tokens, Unreadable } from './tokens.js';

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
export function policiesOf(t: Tokens, scope: Scope): Query | null {
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
export function isolationOf(t: Tokens, scope: Scope): Query | null {
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

/**
 * After "what is blocking traffic to": the destination, answered as "is Y isolated" (which
 * policies isolate it); with a port ("… to Y on 5432"), as who can reach Y there.
 */
export function blockedTo(t: Tokens, scope: Scope): Query {
  const to = endpoint(t, 'destination', 'traffic to', scope);
  const words = tail(t, scope);
  if (to.port === null && words.length === 0) return { kind: 'policies', subject: to.spec, isolation: true };
  const ports = joinPorts(to.port, words);
  return 'ports' in ports ? { kind: 'who-list', to: to.spec, ...ports } : { kind: 'who', to: to.spec, ...ports };
}
