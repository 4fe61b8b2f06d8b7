// What a render may spend, and the refusal when it runs out: some dataplanes cannot hold a
// policy as it is written (VPPTCP session rules take single ports), and finding that out after
// building the whole answer costs minutes and gigabytes on a one-megabyte snapshot.

/** A documented refusal of a render (a 422 naming the format), not a wrong answer. */
export class RenderLimitError extends Error {}

/** What is left to spend, decremented as a render goes; `spend` throws once either runs out. */
export interface RenderBudget {
  /** Rules that may still be emitted. */
  rules: number;
  /** Table rules that may still be read deciding (address block × port segment × protocol × rules of the tables consulted). */
  lookups: number;
  /** The refusal for what ran out. */
  exceeded(what: 'rules' | 'lookups'): RenderLimitError;
}

export function spend(budget: RenderBudget | undefined, what: 'rules' | 'lookups', n: number): void {
  if (!budget) return;
  budget[what] -= n;
  if (budget[what] < 0) throw budget.exceeded(what);
}
