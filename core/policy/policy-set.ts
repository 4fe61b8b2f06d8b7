// Policies grouped by tier in evaluation order. "Deterministic order everywhere": cluster
// policies sort by (priority, name, kind); NetworkPolicies by name within their namespace.
import type { Policy } from './model.js';

export interface PolicySet {
  readonly all: readonly Policy[];
  readonly admin: readonly Policy[];
  readonly baseline: readonly Policy[];
  /** NetworkPolicies (v1 and legacy) by namespace. */
  readonly byNamespace: ReadonlyMap<string, readonly Policy[]>;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function byPrecedence(a: Policy, b: Policy): number {
  return a.priority - b.priority || cmp(a.ref.name, b.ref.name) || cmp(a.ref.kind, b.ref.kind) || cmp(a.ref.namespace ?? '', b.ref.namespace ?? '');
}

export function buildPolicySet(all: readonly Policy[]): PolicySet {
  const admin = all.filter((p) => p.tier === 'admin').sort(byPrecedence);
  const baseline = all.filter((p) => p.tier === 'baseline').sort(byPrecedence);
  const byNamespace = new Map<string, Policy[]>();
  for (const p of all) {
    if (p.tier !== 'networkpolicy' || p.subject.type !== 'namespace') continue;
    let list = byNamespace.get(p.subject.namespace);
    if (!list) byNamespace.set(p.subject.namespace, (list = []));
    list.push(p);
  }
  for (const list of byNamespace.values()) list.sort(byPrecedence);
  return { all, admin, baseline, byNamespace };
}
