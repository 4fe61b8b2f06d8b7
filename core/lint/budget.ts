// What a lint run may spend, and the questions it left unanswered. Lints answer exactly for
// the snapshot by visiting cells (cells.ts), and a small snapshot can ask for billions of
// them: a 1 MB namespace of excepted ipBlocks asks 1,500 questions of millions of pairs each,
// and 50 NetworkPolicies under one AdminNetworkPolicy ask for 10^6 tier walks each. A question
// over its own limits, or asked once the run's steps are spent, is not answered (a lint never
// guesses) and is recorded, so the caller can say what was not checked.
import type { Policy } from '../policy/model.js';
import { findingKey, type LintCode, type LintLimits } from './types.js';

export const LINT_LIMITS: LintLimits = { pairsPerQuestion: 2_000_000, cellsPerQuestion: 1_000_000, stepsPerRun: 100_000_000 };

export interface Unchecked {
  readonly code: LintCode;
  /** Questions (rules, or policy pairs for same-priority-overlap) the lint could not answer. */
  readonly questions: number;
}

export class LintBudget {
  private left: number;
  /** findingKey of every question left unanswered: the finding it would have been. */
  readonly skipped = new Set<string>();
  private readonly counts = new Map<LintCode, number>();

  constructor(readonly limits: LintLimits = LINT_LIMITS) {
    this.left = limits.stepsPerRun;
  }

  /** Takes `steps` if the run has them; once a request is refused the run is spent, so answers do not depend on which question came first within the remainder. */
  take(steps: number): boolean {
    if (steps > this.left) {
      this.left = 0;
      return false;
    }
    this.left -= steps;
    return true;
  }

  get spent(): boolean {
    return this.left === 0;
  }

  /** Records a question `code` could not answer about `policy` at `path` (where its finding would be). */
  skip(code: LintCode, policy: Policy, path: string): void {
    this.skipped.add(findingKey({ code, object: policy.ref, path }));
    this.counts.set(code, (this.counts.get(code) ?? 0) + 1);
  }

  unchecked(): Unchecked[] {
    return [...this.counts].map(([code, questions]) => ({ code, questions })).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  }
}

const QUESTION: Record<LintCode, string> = {
  'same-priority-overlap': 'policy pair',
  'rule-shadowed': 'rule',
  'np-rule-redundant': 'rule',
  'selects-no-pods': 'policy',
  'np-rule-overridden': 'rule',
  'named-port-unresolved': 'port',
  'ipblock-except-not-subset': 'ipBlock',
  'ipblock-except-covers-cidr': 'ipBlock',
  'egress-blocks-dns': 'policy',
};

/** "not checked within the lint budgets: 12 rules (rule-shadowed), 1 policy pair (same-priority-overlap)"; null when all were. */
export function uncheckedText(unchecked: readonly Unchecked[]): string | null {
  if (unchecked.length === 0) return null;
  const parts = unchecked.map((u) => `${u.questions.toLocaleString('en-US')} ${QUESTION[u.code]}${u.questions === 1 ? '' : 's'} (${u.code})`);
  return `not checked within the lint budgets: ${parts.join(', ')}`;
}
