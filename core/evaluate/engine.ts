// The verdict engine: per side (egress of the source pod, ingress of the destination pod)
// the tiers Admin → NetworkPolicy → Baseline → default allow, each answering allow, deny or
// pass (kube-network-policies engine.go); a flow is allowed iff both sides allow.
import type { Cluster } from '../cluster.js';
import { describePolicy, rulesFor, type Direction, type Policy, type PolicyRef, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { subjectPod, type Endpoint, type Flow } from './endpoint.js';
import { peerMatches, portMatches, subjectSelects } from './match.js';

export type TraceTier = 'admin' | 'networkpolicy' | 'baseline' | 'default';

export interface RuleRef {
  readonly index: number;
  readonly name?: string;
}

export interface TraceStep {
  readonly tier: TraceTier;
  readonly outcome: 'allow' | 'deny' | 'pass' | 'no-match';
  readonly policy?: PolicyRef;
  readonly rule?: RuleRef;
  readonly message: string;
}

export interface SideVerdict {
  readonly allowed: boolean;
  readonly tier: TraceTier;
  readonly policy: PolicyRef | null;
  readonly rule: RuleRef | null;
  readonly trace: readonly TraceStep[];
}

export interface Verdict {
  readonly allowed: boolean;
  readonly reason?: 'loopback' | 'node-local';
  readonly egress: SideVerdict | null;
  readonly ingress: SideVerdict | null;
}

function ruleRef(r: Rule): RuleRef {
  return r.name ? { index: r.index, name: r.name } : { index: r.index };
}

function ruleText(p: Policy, r: Rule): string {
  return `${describePolicy(p.ref)} rule ${r.index}${r.name ? ` "${r.name}"` : ''}`;
}

function ruleMatches(cluster: Cluster, rule: Rule, dir: Direction, subject: PodInfo, peer: Endpoint, flow: Flow): boolean {
  if (!rule.peers.some((p) => peerMatches(cluster, p, peer, subject))) return false;
  if (rule.ports === null) return true;
  const destination = dir === 'ingress' ? subject : peer.kind === 'pod' && !peer.pod.hostNetwork ? peer.pod : null;
  return rule.ports.some((m) => portMatches(m, flow.port, flow.protocol, destination));
}

/** First matching rule of the first policy (in order) that has one; null if none. */
function firstMatch(cluster: Cluster, policies: readonly Policy[], dir: Direction, subject: PodInfo, peer: Endpoint, flow: Flow): { policy: Policy; rule: Rule } | null {
  for (const policy of policies) {
    const rules = rulesFor(policy, dir);
    if (!rules || rules.length === 0 || !subjectSelects(cluster, policy, subject)) continue;
    // "The relative precedence of the rules within a single ANP object … will be determined by the order in which the rule is written."
    for (const rule of rules) if (ruleMatches(cluster, rule, dir, subject, peer, flow)) return { policy, rule };
  }
  return null;
}

const ACTION_WORD = { allow: 'Allow', deny: 'Deny', pass: 'Pass' } as const;

export function evaluateSide(cluster: Cluster, dir: Direction, subject: PodInfo, peer: Endpoint, flow: Flow): SideVerdict {
  const trace: TraceStep[] = [];
  const decide = (tier: TraceTier, allowed: boolean, policy: Policy | null, rule: Rule | null): SideVerdict => ({
    allowed,
    tier,
    policy: policy?.ref ?? null,
    rule: rule ? ruleRef(rule) : null,
    trace,
  });

  /** A cluster-scoped tier: the first matching rule decides, unless it passes; null to go on. */
  const clusterTier = (tier: 'admin' | 'baseline', policies: readonly Policy[]): SideVerdict | null => {
    const hit = firstMatch(cluster, policies, dir, subject, peer, flow);
    if (!hit) {
      trace.push({ tier, outcome: 'no-match', message: `no ${tier === 'admin' ? 'Admin' : 'Baseline'}-tier rule matches` });
      return null;
    }
    const { policy, rule } = hit;
    const word = policy.ref.kind === 'ClusterNetworkPolicy' && rule.action === 'allow' ? 'Accept' : ACTION_WORD[rule.action];
    trace.push({ tier, outcome: rule.action, policy: policy.ref, rule: ruleRef(rule), message: `${word} by ${ruleText(policy, rule)}` });
    return rule.action === 'pass' ? null : decide(tier, rule.action === 'allow', policy, rule);
  };

  // Admin tier: ANPs and Admin-tier CNPs. "Allow … Deny" are final; "Pass: … skip any
  // remaining ANP rules, and then pass execution to any NetworkPolicies that select the pod."
  const admin = clusterTier('admin', cluster.policies.admin);
  if (admin) return admin;

  // NetworkPolicy tier: "if any NetworkPolicy selects the pod for that direction, the flow
  // is allowed iff one of their rules matches, and that answer is final."
  const nps = (cluster.policies.byNamespace.get(subject.namespace) ?? []).filter((p) => rulesFor(p, dir) !== null && subjectSelects(cluster, p, subject));
  const isolating = nps.filter((p) => !p.legacy);
  // Proposal: "Traffic is allowed to a pod if namespace.networkPolicy.ingress.isolation is undefined …"
  const legacyIsolated = dir === 'ingress' && cluster.namespaces[subject.nsIdx]!.legacyIngressIsolation;
  if (isolating.length > 0 || legacyIsolated) {
    for (const policy of nps) {
      for (const rule of rulesFor(policy, dir)!) {
        if (ruleMatches(cluster, rule, dir, subject, peer, flow)) {
          trace.push({ tier: 'networkpolicy', outcome: 'allow', policy: policy.ref, rule: ruleRef(rule), message: `Allow by ${ruleText(policy, rule)}` });
          return decide('networkpolicy', true, policy, rule);
        }
      }
    }
    const why = [
      ...(isolating.length > 0 ? [`isolated for ${dir} by ${isolating.map((p) => p.ref.name).join(', ')}`] : []),
      ...(legacyIsolated ? [`namespace ${subject.namespace} has the DefaultDeny ingress isolation annotation`] : []),
    ].join('; ');
    trace.push({ tier: 'networkpolicy', outcome: 'deny', message: `${why}; no rule allows this flow` });
    return decide('networkpolicy', false, null, null);
  }
  trace.push({ tier: 'networkpolicy', outcome: 'no-match', message: `no NetworkPolicy selects the pod for ${dir}` });

  // Baseline tier: BANP and Baseline-tier CNPs. v1alpha2: "Pass: Skips all further
  // ClusterNetworkPolicy rules in the current tier … and passes evaluation to the next tier."
  const baseline = clusterTier('baseline', cluster.policies.baseline);
  if (baseline) return baseline;

  // "the default kubernetes policy is applied, which says that all pods can communicate with each other."
  trace.push({ tier: 'default', outcome: 'allow', message: 'no tier decided; default allow' });
  return decide('default', true, null, null);
}

export function evaluate(cluster: Cluster, flow: Flow): Verdict {
  const { from, to } = flow;
  // A pod to itself is always allowed (upstream e2e AllowLoopback; the kernel never leaves the pod).
  if (from.kind === 'pod' && to.kind === 'pod' && from.pod === to.pod) return { allowed: true, reason: 'loopback', egress: null, ingress: null };
  const dst = subjectPod(to);
  // "traffic to and from the node where a Pod is running is always allowed" (kubelet probes;
  // the proposal: "elif traffic.source == pod.node.kubelet: return True").
  if (dst && from.kind === 'node' && from.node !== null && from.node.name === dst.nodeName) {
    return { allowed: true, reason: 'node-local', egress: null, ingress: null };
  }
  const src = subjectPod(from);
  const egress = src ? evaluateSide(cluster, 'egress', src, to, flow) : null;
  const ingress = dst ? evaluateSide(cluster, 'ingress', dst, from, flow) : null;
  return { allowed: (egress?.allowed ?? true) && (ingress?.allowed ?? true), egress, ingress };
}
