// np-rule-overridden: a NetworkPolicy rule whose every connection, for every pod its policy
// selects, the Admin tier decides with an Allow or a Deny before NetworkPolicies are reached.
//
// KEP-2091 "Risks and Mitigation": "For the Developer … the tooling should simply alert if a
// given NetworkPolicy would be overridden by any of the ANPs in a cluster"; v1alpha1: "All
// AdminNetworkPolicy rules have higher precedence than NetworkPolicy or
// BaselineAdminNetworkPolicy rules", and only Pass rules "pass execution to any
// NetworkPolicies that select the pod".
//
// Each cell the rule matches is put through the verdict engine's tier walk (decide.ts, as
// evaluateSide does) and must end in the admin tier. Exact for the snapshot (cells.ts); unchecked over budget, and a rule that
// matches no cell (its peers match nothing here) is not reported. Severity: warning when some
// of those connections are denied (the rule's allow is dead), info when the Admin tier only
// allows them (the rule is redundant while that admin rule exists).
import type { Cluster } from '../cluster.js';
import { decide, destinationOf, peerCandidates, type SubjectPolicies } from '../evaluate/decide.js';
import { policiesOf } from '../evaluate/engine.js';
import { describePolicy, rulesFor, type Direction, type Policy, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { LintBudget } from './budget.js';
import { buildUniverse, matchCost, popcount, ruleCells, selectedPods } from './cells.js';
import { finding, listSome, matchesNothing, objectKey, ruleLabel, rulePath, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

export function overriddenNetworkPolicyRules(cluster: Cluster, budget: LintBudget): Finding[] {
  if (cluster.policies.admin.length === 0) return [];
  const adminRules = new Map(DIRECTIONS.map((dir) => [dir, cluster.policies.admin.flatMap((p) => rulesFor(p, dir) ?? [])]));
  const out: Finding[] = [];
  for (const policies of cluster.policies.byNamespace.values()) {
    for (const policy of policies) {
      const subjects = selectedPods(cluster, policy);
      if (subjects.length === 0) continue;
      for (const dir of DIRECTIONS) {
        const admin = adminRules.get(dir)!;
        if (admin.length === 0) continue;
        for (const rule of rulesFor(policy, dir) ?? []) {
          if (matchesNothing(rule)) continue;
          const f = overridden(cluster, policy, dir, rule, subjects, admin, budget);
          if (f === 'unchecked') budget.skip('np-rule-overridden', policy, rulePath(dir, rule.index));
          else if (f) out.push(f);
        }
      }
    }
  }
  return out;
}

/** Steps matching a pair's peer against the subject's admin rules (cells.ts matchCost). */
function adminCost(sp: SubjectPolicies): number {
  let cost = 0;
  for (const h of sp.hits.admin) cost += matchCost(h.rule);
  return cost;
}

function overridden(cluster: Cluster, policy: Policy, dir: Direction, rule: Rule, subjects: readonly PodInfo[], adminRules: readonly Rule[], budget: LintBudget): Finding | null | 'unchecked' {
  // The universe must tell apart what the admin rules can, as well as what this rule can;
  // subjects keep their labels (FULL_DETAIL): which admin policies select them depends on them.
  if (budget.spent) return 'unchecked';
  const u = buildUniverse(cluster, subjects, [rule, ...adminRules]);
  const cells = ruleCells(cluster, u, dir, rule, budget);
  if (!cells) return 'unchecked';
  if (cells.size === 0) return null;
  const P = u.peers.all.length;
  const adminOnly = new Map<PodInfo, SubjectPolicies>();
  const deciders = new Map<string, string>();
  let denies = false;
  // Cells in visiting order, a (subject, peer) pair at a time: the admin rules whose peers
  // match are found once per pair, then each port is walked.
  for (const [pair, bits] of cells.pairs) {
    const subject = u.subjects[Math.floor(pair / P)]!;
    const peer = u.peers.all[pair % P]!;
    let sp = adminOnly.get(subject);
    if (!sp) {
      const all = policiesOf(cluster, dir, subject);
      adminOnly.set(subject, (sp = { ...all, hits: { admin: all.hits.admin, np: [], baseline: [] } }));
    }
    if (!budget.take(adminCost(sp) + popcount(bits))) return 'unchecked';
    const candidates = peerCandidates(cluster, sp, peer);
    const dest = destinationOf(dir, subject, peer);
    for (let q = 0; q < u.ports.length; q++) {
      if ((bits[q >>> 5]! & (1 << (q & 31))) === 0) continue;
      const { port, protocol } = u.ports[q]!;
      // The tier walk evaluateSide takes; its admin step reads only the admin candidates, so
      // leaving the other tiers out changes no admin decision.
      const d = decide(sp, candidates, port, protocol, dest);
      if (d.tier !== 'admin' || !d.admin) return null;
      denies ||= !d.allowed;
      const hit = d.admin;
      const name = hit.rule.name ? ` "${hit.rule.name}"` : '';
      deciders.set(`${objectKey(hit.policy.ref)}#${hit.rule.index}`, `${describePolicy(hit.policy.ref)} ${dir} rule ${hit.rule.index}${name} (${d.allowed ? 'allows' : 'denies'})`);
    }
  }
  const by = listSome([...deciders.values()]);
  return finding(
    policy,
    'np-rule-overridden',
    denies ? 'warning' : 'info',
    rulePath(dir, rule.index),
    `${ruleLabel(dir, rule)} never takes effect: for every pod the policy selects, every connection it allows is decided first in the Admin tier by ${by}`,
    denies
      ? 'ask the cluster admin for a Pass rule (or a narrower Deny) covering this traffic, or drop the rule'
      : 'the rule only matters if the admin Allow goes away; keep it deliberately or delete it',
  );
}
