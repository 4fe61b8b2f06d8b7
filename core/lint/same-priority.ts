// same-priority-overlap: two Admin-tier (or two Baseline-tier) policies with one priority that
// both match some connection.
//
// KEP-2091 "Conflict resolution: Two policies are considered to be conflicting if they are
// assigned the same priority and apply to the same resources … we propose to include tooling
// for ANP resources to help alert the admin to potentially ambiguous ANP priority scenarios";
// the v1alpha1 type comment: "If two (or more) policies with the same priority could both
// match a connection, then the implementation can apply any of the matching policies to the
// connection"; network-policy-api#222 asks for exactly this warning, on overlapping rules.
//
// Overlap is decided per cell (cells.ts) with each policy's own first-match rule, so a rule
// the policy already shadows does not count. Exact for the snapshot's pods (#222: "analyzed
// only on the cluster's current set of Pods/labels"); unchecked over budget. Severity: error
// when the two first-matching rules disagree on the action (the verdict depends on which one
// an implementation picks), warning when they agree (ambiguous, same outcome today).
import type { Cluster } from '../cluster.js';
import { subjectSelects } from '../evaluate/match.js';
import { rulesFor, type Direction, type Policy, type Rule } from '../policy/model.js';
import type { LintBudget } from './budget.js';
import { buildUniverse, cellAt, describeCell, detailFor, ruleCells, selectedPods, type Universe } from './cells.js';
import { actionWord, finding, type Finding } from './types.js';

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

export function samePriorityOverlaps(cluster: Cluster, budget: LintBudget): Finding[] {
  const out: Finding[] = [];
  for (const tier of [cluster.policies.admin, cluster.policies.baseline]) {
    // Tiers are sorted by (priority, name, kind): equal priorities are adjacent.
    for (let i = 0; i < tier.length; i++) {
      for (let j = i + 1; j < tier.length && tier[j]!.priority === tier[i]!.priority; j++) {
        const f = overlap(cluster, tier[i]!, tier[j]!, budget);
        if (f) out.push(f);
      }
    }
  }
  return out;
}

/** Cell id → index of the first rule of `rules` matching it; null over budget. */
function firstMatches(cluster: Cluster, u: Universe, dir: Direction, rules: readonly Rule[], budget: LintBudget): Map<number, number> | null {
  const first = new Map<number, number>();
  for (let r = 0; r < rules.length; r++) {
    const cells = ruleCells(cluster, u, dir, rules[r]!, budget);
    if (!cells) return null;
    for (const id of cells) if (!first.has(id)) first.set(id, r);
  }
  return first;
}

interface Example {
  readonly dir: Direction;
  readonly a: Rule;
  readonly b: Rule;
  readonly cell: string;
}

/** The finding for policies a and b; the pair is counted unchecked when a direction over budget may hide a conflict. */
function overlap(cluster: Cluster, a: Policy, b: Policy, budget: LintBudget): Finding | null {
  const shared = selectedPods(cluster, a).filter((p) => subjectSelects(cluster, b, p));
  if (shared.length === 0) return null;
  let agreeing: Example | null = null;
  let conflicting: Example | null = null;
  let unanswered = false;
  for (const dir of DIRECTIONS) {
    const ra = rulesFor(a, dir) ?? [];
    const rb = rulesFor(b, dir) ?? [];
    if (ra.length === 0 || rb.length === 0) continue;
    if (budget.spent) {
      unanswered = true;
      continue;
    }
    const u = buildUniverse(cluster, shared, [...ra, ...rb], detailFor([...ra, ...rb], dir, false));
    const fa = firstMatches(cluster, u, dir, ra, budget);
    const fb = fa && firstMatches(cluster, u, dir, rb, budget);
    if (!fa || !fb) {
      unanswered = true;
      continue;
    }
    for (const [id, ia] of fa) {
      const ib = fb.get(id);
      if (ib === undefined) continue;
      const ex = { dir, a: ra[ia]!, b: rb[ib]!, cell: describeCell(dir, cellAt(u, id)) };
      if (ex.a.action !== ex.b.action) {
        conflicting = ex;
        break;
      }
      agreeing ??= ex;
    }
    if (conflicting) break;
  }
  // An agreeing overlap found in one direction may hide a conflicting one in the unanswered one.
  if (unanswered && !conflicting) budget.skip('same-priority-overlap', b, 'spec.priority');
  const ex = conflicting ?? agreeing;
  if (!ex) return null;
  const rule = (p: Policy, r: Rule) => `${ex.dir} rule ${r.index}${r.name ? ` "${r.name}"` : ''} (${actionWord(p, r.action)})`;
  const tier = a.tier === 'admin' ? 'Admin' : 'Baseline';
  const outcome = conflicting ? 'which one applies decides the verdict and is implementation-defined' : 'the actions agree, but which policy applies is implementation-defined';
  return finding(
    b,
    'same-priority-overlap',
    conflicting ? 'error' : 'warning',
    'spec.priority',
    `${b.ref.kind} ${b.ref.name} and ${a.ref.kind} ${a.ref.name} share ${tier}-tier priority ${b.priority} and both match ${ex.cell}: ${rule(a, ex.a)} of ${a.ref.name} and ${rule(b, ex.b)} of ${b.ref.name}; ${outcome}`,
    `give ${b.ref.name} or ${a.ref.name} a distinct priority so their order is defined`,
  );
}
