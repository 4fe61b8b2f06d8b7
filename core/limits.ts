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

/** What one node's render may spend: rules written and table rules read building them. */
export interface RenderLimits {
  readonly rules: number;
  readonly lookups: number;
}

/** A node's budget under `limits`, less `reserved` rules every node gets; each refusal says why that format needs so much. */
export function renderBudget(limits: RenderLimits, refusals: { readonly rules: string; readonly lookups: string }, reserved = 0): WorkBudget {
  return { rules: limits.rules - reserved, lookups: limits.lookups, exceeded: (what) => new LimitError(refusals[what]) };
}
