// What a compiled form or a render may spend, and the refusal when it runs out: some forms
// cannot hold a policy as it is written (flat first-match tables expand every set and port range
// into rules, VPPTCP session rules take single ports), and finding that out after building the
// whole answer costs minutes and gigabytes on a one-megabyte snapshot.

/** A documented refusal (a 422 naming the field that asked for the form), not a wrong answer. */
export class LimitError extends Error {}

/** What is left to spend, decremented as the work goes; `spend` throws once either runs out. */
export interface WorkBudget {
  /** Rules that may still be emitted. */
  rules: number;
  /** Table rules that may still be read deciding (address block × port segment × protocol × rules of the tables consulted). */
  lookups: number;
  /** The refusal for what ran out. */
  exceeded(what: 'rules' | 'lookups'): LimitError;
}

export function spend(budget: WorkBudget | undefined, what: 'rules' | 'lookups', n: number): void {
  if (!budget) return;
  budget[what] -= n;
  if (budget[what] < 0) throw budget.exceeded(what);
}
