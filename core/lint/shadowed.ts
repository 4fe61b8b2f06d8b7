// rule-shadowed (ANP/BANP/CNP) and np-rule-redundant (NetworkPolicy).
//
// Cluster-scoped rules are first-match: "The relative precedence of the rules within a single
// ANP object … will be determined by the order in which the rule is written" (v1alpha1), so a
// rule whose every connection an earlier rule of the same policy already matches never
// decides anything. NetworkPolicy rules are a union: "Pods selected by one or more
// NetworkPolicy objects should allow any incoming connections that match any ingress rule",
// so a rule allowing nothing that another rule of a policy selecting the same pods does not
// already allow is redundant.
//
// Two strengths, said in the message: structural (structural.ts: true for any pods, sound,
// may miss) and snapshot (cells.ts: exact for the pods, namespaces and nodes in the snapshot,
// unions of earlier rules included; silent when the universe is over budget).
import type { Cluster } from '../cluster.js';
import { subjectSelects } from '../evaluate/match.js';
import { rulesFor, type Direction, type Policy, type Rule } from '../policy/model.js';
import type { LintBudget } from './budget.js';
import { buildUniverse, CellUnion, cellsIntersect, detailFor, isCellSubset, ruleCells, selectedPods, type CellSet } from './cells.js';
import { npSubjectCovers, ruleCovers } from './structural.js';
import { actionWord, finding, listSome, matchesNothing, ruleLabel, rulePath, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

const IN_SNAPSHOT = ' with the pods, namespaces and nodes in this snapshot';

export function shadowedRules(cluster: Cluster, budget: LintBudget): Finding[] {
  const out: Finding[] = [];
  for (const policy of [...cluster.policies.admin, ...cluster.policies.baseline]) {
    for (const dir of DIRECTIONS) out.push(...shadowedInPolicy(cluster, policy, dir, budget));
  }
  return out;
}

function shadowedInPolicy(cluster: Cluster, policy: Policy, dir: Direction, budget: LintBudget): Finding[] {
  const rules = rulesFor(policy, dir) ?? [];
  if (rules.length < 2) return [];
  const subjects = selectedPods(cluster, policy);
  // Within one policy only the rules look at the subject: its labels do not matter.
  // Once the run's steps are spent no universe is built: only structural answers remain.
  const u = budget.spent ? null : buildUniverse(cluster, subjects, rules, detailFor(rules, dir, false));
  const cells = rules.map((r) => u && ruleCells(cluster, u, dir, r, budget));
  // The union of the earlier rules' cells, grown rule by rule; unknown once one is over budget.
  const earlier = new CellUnion();
  let earlierKnown = cells[0] !== null;
  if (cells[0]) earlier.add(cells[0]);
  const out: Finding[] = [];
  for (let j = 1; j < rules.length; j++) {
    const rule = rules[j]!;
    const mine = cells[j];
    const shadowed = !matchesNothing(rule) && shadowedBy(cluster, rules, cells, j, earlierKnown ? earlier : null);
    if (mine) earlier.add(mine);
    else earlierKnown = false;
    if (shadowed === 'unchecked') budget.skip('rule-shadowed', policy, rulePath(dir, rule.index));
    if (!shadowed || shadowed === 'unchecked') continue;
    const { by, structural } = shadowed;
    const byText = listSome(by.map((r) => `${r.index}${r.name ? ` "${r.name}"` : ''} (${actionWord(policy, r.action)})`));
    out.push(
      finding(
        policy,
        'rule-shadowed',
        'warning',
        rulePath(dir, rule.index),
        `${ruleLabel(dir, rule)} (${actionWord(policy, rule.action)}) never matches: every connection it matches is matched first by ${dir} rule${by.length > 1 ? 's' : ''} ${byText}${structural ? '' : IN_SNAPSHOT}`,
        `move this rule above rule ${by[0]!.index}, narrow the earlier rule, or delete this one`,
      ),
    );
  }
  return out;
}

/**
 * The earlier rules that take every connection of rule j: one structurally, else (in the
 * snapshot) those sharing a cell with it; null when none do, 'unchecked' when its cells or an
 * earlier rule's were over budget.
 */
function shadowedBy(cluster: Cluster, rules: readonly Rule[], cells: readonly (CellSet | null)[], j: number, earlier: CellUnion | null): { by: Rule[]; structural: boolean } | null | 'unchecked' {
  const structural = rules.slice(0, j).find((r) => ruleCovers(cluster, r, rules[j]!));
  if (structural) return { by: [structural], structural: true };
  const mine = cells[j];
  if (mine?.size === 0) return null;
  if (!mine || !earlier) return 'unchecked';
  if (!earlier.covers(mine)) return null;
  // Name the earlier rules that actually take some of this rule's connections.
  return { by: rules.slice(0, j).filter((_, i) => cellsIntersect(mine, cells[i]!)), structural: false };
}

interface NpRule {
  readonly policy: Policy;
  readonly rule: Rule;
  /** Position in evaluation order (policies by name, rules as written): breaks ties between equal rules. */
  readonly order: number;
}

export function redundantNetworkPolicyRules(cluster: Cluster, budget: LintBudget): Finding[] {
  const out: Finding[] = [];
  for (const policies of cluster.policies.byNamespace.values()) {
    for (const dir of DIRECTIONS) out.push(...redundantInNamespace(cluster, policies, dir, budget));
  }
  return out;
}

function redundantInNamespace(cluster: Cluster, policies: readonly Policy[], dir: Direction, budget: LintBudget): Finding[] {
  const entries: NpRule[] = [];
  for (const policy of policies) for (const rule of rulesFor(policy, dir) ?? []) entries.push({ policy, rule, order: entries.length });
  if (entries.length < 2) return [];
  const withRules = policies.filter((p) => (rulesFor(p, dir) ?? []).length > 0);
  const subjects = new Set(withRules.flatMap((np) => selectedPods(cluster, np)));
  const rules = entries.map((e) => e.rule);
  // Labels matter here: each rule counts only for the pods its own policy selects.
  const u = budget.spent ? null : buildUniverse(cluster, subjects, rules, detailFor(rules, dir, true));
  const cells = entries.map((e) => u && ruleCells(cluster, u, dir, e.rule, budget, (s) => subjectSelects(cluster, e.policy, s)));
  // A rule is unanswered when its cells, or those of a rule that might cover it, were over budget.
  const unknown = entries.filter((e) => cells[e.order] === null && !matchesNothing(e.rule));

  // j is reported when some i covers it and j does not equally cover i earlier in order, so
  // of two identical rules only the later is reported and deleting every reported rule is safe.
  const structurally = (i: NpRule, j: NpRule) => npSubjectCovers(cluster, i.policy, j.policy) && ruleCovers(cluster, i.rule, j.rule);
  const inSnapshot = (i: NpRule, j: NpRule) => {
    const a = cells[j.order];
    const b = cells[i.order];
    return !!a && !!b && a.size > 0 && a.size <= b.size && isCellSubset(a, b);
  };
  const out: Finding[] = [];
  for (const j of entries) {
    if (matchesNothing(j.rule)) continue;
    let structural = true;
    let by = entries.find((i) => i !== j && !matchesNothing(i.rule) && structurally(i, j) && !(structurally(j, i) && j.order < i.order));
    if (!by) {
      structural = false;
      by = entries.find((i) => i !== j && inSnapshot(i, j) && !(inSnapshot(j, i) && j.order < i.order));
    }
    if (!by) {
      const mine = cells[j.order];
      if (mine === null || (mine!.size > 0 && unknown.some((i) => i !== j))) budget.skip('np-rule-redundant', j.policy, rulePath(dir, j.rule.index));
      continue;
    }
    const where = by.policy === j.policy ? `rule ${by.rule.index} of the same policy` : `NetworkPolicy ${by.policy.ref.name} ${ruleLabel(dir, by.rule)}`;
    out.push(
      finding(
        j.policy,
        'np-rule-redundant',
        'info',
        rulePath(dir, j.rule.index),
        `${ruleLabel(dir, j.rule)} is redundant: ${where} already allows everything it allows, for every pod this policy selects${structural ? '' : IN_SNAPSHOT}`,
        `delete this rule, or merge it into ${where}`,
      ),
    );
  }
  return out;
}
