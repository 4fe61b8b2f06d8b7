// np-rule-overridden: a NetworkPolicy rule whose every connection, for every pod its policy
// selects, the Admin tier decides with an Allow or a Deny before NetworkPolicies are reached.
//
// KEP-2091 "Risks and Mitigation": "For the Developer … the tooling should simply alert if a
// given NetworkPolicy would be overridden by any of the ANPs in a cluster"; v1alpha1: "All
// AdminNetworkPolicy rules have higher precedence than NetworkPolicy or
// BaselineAdminNetworkPolicy rules", and only Pass rules "pass execution to any
// NetworkPolicies that select the pod".
//
// Each cell the rule matches is put through the verdict engine (evaluateSide) and must end in
// the admin tier. Exact for the snapshot (cells.ts); silent over budget, and a rule that
// matches no cell (its peers match nothing here) is not reported. Severity: warning when some
// of those connections are denied (the rule's allow is dead), info when the Admin tier only
// allows them (the rule is redundant while that admin rule exists).
import type { Cluster } from '../cluster.js';
import { evaluateSide } from '../evaluate/engine.js';
import type { Endpoint, Flow } from '../evaluate/endpoint.js';
import { describePolicy, rulesFor, type Direction, type Policy, type Rule } from '../policy/model.js';
import { addressOf, type PodInfo } from '../snapshot/cluster.js';
import { buildUniverse, cellAt, ruleCells, selectedPods, type Cell } from './cells.js';
import { finding, listSome, matchesNothing, objectKey, ruleLabel, rulePath, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

export function overriddenNetworkPolicyRules(cluster: Cluster): Finding[] {
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
          const f = overridden(cluster, policy, dir, rule, subjects, admin);
          if (f) out.push(f);
        }
      }
    }
  }
  return out;
}

/** The flow a cell stands for, in the family of the peer's address (else the subject's first). */
function flowOf(dir: Direction, c: Cell): Flow {
  const family = c.peer.ip?.family ?? c.subject.ips[0]?.family ?? null;
  const self: Endpoint = { kind: 'pod', pod: c.subject, ip: family === null ? null : addressOf(c.subject.ips, family) };
  const [from, to] = dir === 'ingress' ? [c.peer, self] : [self, c.peer];
  return { from, to, port: c.port, protocol: c.protocol, family };
}

function overridden(cluster: Cluster, policy: Policy, dir: Direction, rule: Rule, subjects: readonly PodInfo[], adminRules: readonly Rule[]): Finding | null {
  // The universe must tell apart what the admin rules can, as well as what this rule can;
  // subjects keep their labels (FULL_DETAIL): the engine consults every policy.
  const u = buildUniverse(cluster, subjects, [rule, ...adminRules]);
  const cells = ruleCells(cluster, u, dir, rule);
  if (!cells || cells.size === 0) return null;
  const deciders = new Map<string, string>();
  let denies = false;
  for (const id of cells) {
    const c = cellAt(u, id);
    const v = evaluateSide(cluster, dir, c.subject, c.peer, flowOf(dir, c));
    if (v.tier !== 'admin' || !v.policy || !v.rule) return null;
    denies ||= !v.allowed;
    const name = v.rule.name ? ` "${v.rule.name}"` : '';
    deciders.set(`${objectKey(v.policy)}#${v.rule.index}`, `${describePolicy(v.policy)} ${dir} rule ${v.rule.index}${name} (${v.allowed ? 'allows' : 'denies'})`);
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
