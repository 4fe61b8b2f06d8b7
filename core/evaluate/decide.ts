// The verdict engine's decision for one side, in stages a compiler can reuse:
//  1. subjectPolicies — which policies select the subject for a direction (once per subject);
//  2. peerCandidates — which of their rules have a peer matching the other endpoint, in order
//     (once per peer class);
//  3. decide — which tier decides, given a port and protocol (once per port segment).
// evaluateSide (engine.ts) is these three plus a trace; the compiler calls them directly, so
// compiled tables and verdicts come from one implementation of the tier semantics.
import type { Cluster } from '../cluster.js';
import { rulesFor, type Direction, type Policy, type Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { Endpoint } from './endpoint.js';
import { portMatches, rulePeersMatch, subjectSelects } from './match.js';
import { emptyPolicyList, type PolicyList, type RuleHit } from './policy-lists.js';

export type TraceTier = 'admin' | 'networkpolicy' | 'baseline' | 'default';

export interface SubjectPolicies {
  readonly dir: Direction;
  readonly subject: PodInfo;
  /** Admin-tier policies (ANP, Admin-tier CNP) selecting the subject with rules for dir, in priority order. */
  readonly admin: readonly Policy[];
  /** NetworkPolicies (v1 and legacy) of the subject's namespace selecting it for dir. */
  readonly nps: readonly Policy[];
  /** The non-legacy ones among nps: any of them isolates the subject for dir. */
  readonly isolating: readonly Policy[];
  /** Proposal: the namespace's DefaultDeny annotation isolates ingress by itself. */
  readonly legacyIsolated: boolean;
  /** Baseline-tier policies (BANP, Baseline-tier CNP) selecting the subject with rules for dir. */
  readonly baseline: readonly Policy[];
  /**
   * Every rule of those policies for dir, per tier in evaluation order; `index` numbers them
   * across the tiers. peerCandidates picks from these, so a compiler asking for thousands of
   * peers allocates no hit objects.
   */
  readonly hits: { readonly admin: readonly RuleHit[]; readonly np: readonly RuleHit[]; readonly baseline: readonly RuleHit[] };
}

/** Of cluster-scoped policies, those that select the subject and have rules for dir, as the interned list (policy-lists.ts). */
function selecting(cluster: Cluster, empty: PolicyList, from: readonly Policy[], dir: Direction, subject: PodInfo): PolicyList {
  let list = empty;
  for (const p of from) if ((rulesFor(p, dir)?.length ?? 0) > 0 && subjectSelects(cluster, p, subject)) list = list.with(p);
  return list;
}

export function subjectPolicies(cluster: Cluster, dir: Direction, subject: PodInfo): SubjectPolicies {
  const empty = emptyPolicyList(cluster, dir);
  // NetworkPolicy: "Selects the pods to which this NetworkPolicy object applies" in its own namespace.
  let nps = empty;
  for (const p of cluster.policies.byNamespace.get(subject.namespace) ?? []) if (rulesFor(p, dir) !== null && subjectSelects(cluster, p, subject)) nps = nps.with(p);
  const admin = selecting(cluster, empty, cluster.policies.admin, dir, subject);
  const baseline = selecting(cluster, empty, cluster.policies.baseline, dir, subject);
  const adminHits = admin.hits(0);
  const npHits = nps.hits(adminHits.length);
  return {
    dir,
    subject,
    admin: admin.policies,
    nps: nps.policies,
    isolating: nps.isolating,
    // Proposal: "Traffic is allowed to a pod if namespace.networkPolicy.ingress.isolation is undefined …"
    legacyIsolated: dir === 'ingress' && cluster.namespaces[subject.nsIdx]!.legacyIngressIsolation,
    baseline: baseline.policies,
    hits: { admin: adminHits, np: npHits, baseline: baseline.hits(adminHits.length + npHits.length) },
  };
}

export type { RuleHit };

/** Rules whose peers match the other endpoint, per tier, in evaluation order; ports not yet checked. */
export interface PeerCandidates {
  readonly admin: readonly RuleHit[];
  readonly np: readonly RuleHit[];
  readonly baseline: readonly RuleHit[];
}

function matching(cluster: Cluster, hits: readonly RuleHit[], subject: PodInfo, peer: Endpoint): RuleHit[] {
  const out: RuleHit[] = [];
  for (const h of hits) if (rulePeersMatch(cluster, h.rule, peer, subject)) out.push(h);
  return out;
}

export function peerCandidates(cluster: Cluster, sp: SubjectPolicies, peer: Endpoint): PeerCandidates {
  return {
    admin: matching(cluster, sp.hits.admin, sp.subject, peer),
    np: matching(cluster, sp.hits.np, sp.subject, peer),
    baseline: matching(cluster, sp.hits.baseline, sp.subject, peer),
  };
}

/** Named ports resolve on the destination pod: the subject for ingress, the peer pod for egress. */
export function destinationOf(dir: Direction, subject: PodInfo, peer: Endpoint): PodInfo | null {
  if (dir === 'ingress') return subject;
  return peer.kind === 'pod' && !peer.pod.hostNetwork ? peer.pod : null;
}

/** Which rules matched on the way to the decision; a tier not reached (or not matched) is null. */
export interface Decision {
  readonly allowed: boolean;
  readonly tier: TraceTier;
  readonly admin: RuleHit | null;
  /** The NetworkPolicy rule that allowed; null when isolated without one, or not isolated. */
  readonly np: RuleHit | null;
  readonly baseline: RuleHit | null;
}

function firstWithPort(hits: readonly RuleHit[], port: number, protocol: Protocol, destination: PodInfo | null): RuleHit | null {
  for (const h of hits) {
    const ports = h.rule.ports;
    if (ports === null) return h;
    for (const m of ports) if (portMatches(m, port, protocol, destination)) return h;
  }
  return null;
}

/** Which rules a walk met: the caller's own record, filled only when it asks (decide). */
type Trace = { -readonly [K in keyof Decision]: Decision[K] };

/**
 * The tier walk, written once: whether the flow is allowed, and (into `trace`, when given) which
 * rules decided. No object per walk when no trace is asked for: the compiler walks the tiers
 * for every cell and port segment, over a million times for M.
 */
function walkTiers(sp: SubjectPolicies, cand: PeerCandidates, port: number, protocol: Protocol, destination: PodInfo | null, trace: Trace | null): boolean {
  // Admin tier: "Allow … Deny" are final; "Pass: … skip any remaining ANP rules, and then pass
  // execution to any NetworkPolicies that select the pod." The relative precedence of rules
  // "will be determined by the order in which the rule is written": the first match decides.
  const admin = firstWithPort(cand.admin, port, protocol, destination);
  if (trace) trace.admin = admin;
  if (admin && admin.rule.action !== 'pass') return decided(trace, 'admin', admin.rule.action === 'allow');

  // NetworkPolicy tier: "if any NetworkPolicy selects the pod for that direction, the flow is
  // allowed iff one of their rules matches, and that answer is final."
  if (sp.isolating.length > 0 || sp.legacyIsolated) {
    const np = firstWithPort(cand.np, port, protocol, destination);
    if (trace) trace.np = np;
    return decided(trace, 'networkpolicy', np !== null);
  }

  // Baseline tier. v1alpha2: "Pass: Skips all further ClusterNetworkPolicy rules in the current
  // tier … and passes evaluation to the next tier."
  const baseline = firstWithPort(cand.baseline, port, protocol, destination);
  if (trace) trace.baseline = baseline;
  if (baseline && baseline.rule.action !== 'pass') return decided(trace, 'baseline', baseline.rule.action === 'allow');

  // "the default kubernetes policy is applied, which says that all pods can communicate with each other."
  return decided(trace, 'default', true);
}

function decided(trace: Trace | null, tier: TraceTier, allowed: boolean): boolean {
  if (trace) [trace.tier, trace.allowed] = [tier, allowed];
  return allowed;
}

/** decide(…).allowed, without the Decision. */
export function allows(sp: SubjectPolicies, cand: PeerCandidates, port: number, protocol: Protocol, destination: PodInfo | null): boolean {
  return walkTiers(sp, cand, port, protocol, destination, null);
}

export function decide(sp: SubjectPolicies, cand: PeerCandidates, port: number, protocol: Protocol, destination: PodInfo | null): Decision {
  const trace: Trace = { allowed: false, tier: 'default', admin: null, np: null, baseline: null };
  walkTiers(sp, cand, port, protocol, destination, trace);
  return trace;
}
