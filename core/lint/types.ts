// The shape every lint returns, and the small helpers that turn a normalised Policy/Rule back
// into the object and JSON path a person edits. Paths are rebuilt from the model: rule,
// peer and port indexes are kept in written order by core/policy/*, so `spec.ingress[2]`
// here is the third ingress rule of the object as written.
import type { Action, Direction, Policy, PolicyRef, Rule } from '../policy/model.js';

export type Severity = 'error' | 'warning' | 'info';

export interface FindingObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
}

/** Every lint's stable kebab-case code, listed once: findings and the catalogue (index.ts LINTS) are typed by it. */
export const LINT_CODES = [
  'same-priority-overlap',
  'rule-shadowed',
  'np-rule-redundant',
  'selects-no-pods',
  'np-rule-overridden',
  'named-port-unresolved',
  'ipblock-except-not-subset',
  'ipblock-except-covers-cidr',
  'egress-blocks-dns',
] as const;

export type LintCode = (typeof LINT_CODES)[number];

export interface Finding {
  /** Stable identifier of the lint, e.g. `rule-shadowed`. */
  readonly code: LintCode;
  readonly severity: Severity;
  /** One line. */
  readonly message: string;
  readonly object: FindingObject;
  /** JSON path inside the object, e.g. `spec.egress[1].to[0]`. */
  readonly path: string;
  /** One-line fix. */
  readonly hint: string;
  /** `objectPaths` base + `.` + path, e.g. `$.items[3].spec.egress[1].to[0]`; only when the caller gave objectPaths. */
  readonly snapshotPath?: string;
}

/** What a lint run may spend (budget.ts LINT_LIMITS holds the defaults and says why). */
export interface LintLimits {
  /** Subject × peer endpoint pairs one question (one rule's cells) may visit. */
  readonly pairsPerQuestion: number;
  /** Cells one question may hold. */
  readonly cellsPerQuestion: number;
  /** Steps a whole lint run may take: one per peer (per CIDR range and except) a pair is tested against, one per cell walked through the tiers. */
  readonly stepsPerRun: number;
}

export interface LintOptions {
  /**
   * Where each object sits in the request, keyed by `objectKey(ref)` (the same
   * `kind/namespace/name` key parseSnapshot uses to find duplicates), valued by its JSON path
   * such as `$.items[3]`; findings then carry `snapshotPath` as well.
   */
  readonly objectPaths?: ReadonlyMap<string, string>;
  /** The budgets of the run (budget.ts LINT_LIMITS by default). */
  readonly limits?: LintLimits;
}

import { objectKey } from '../../schemas/object-key.js';
export { objectKey };

/** A finding's identity across snapshots: code, object and path (a preview matches base and head by it). */
export const findingKey = (f: { readonly code: LintCode; readonly object: Parameters<typeof objectKey>[0]; readonly path: string }): string => `${f.code}|${objectKey(f.object)}|${f.path}`;

export function findingObject(ref: PolicyRef): FindingObject {
  return ref.namespace !== undefined
    ? { apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace, name: ref.name }
    : { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name };
}

export function finding(policy: Policy, code: LintCode, severity: Severity, path: string, message: string, hint: string): Finding {
  return { code, severity, message, object: findingObject(policy.ref), path, hint };
}

export const rulePath = (dir: Direction, index: number): string => `spec.${dir}[${index}]`;

/** `from` for ingress, `to` for egress, in every kind. */
export const peerField = (dir: Direction): string => (dir === 'ingress' ? 'from' : 'to');

/** ClusterNetworkPolicy (v1alpha2) calls its port list `protocols`; the others `ports`. */
export const portsField = (policy: Policy): string => (policy.ref.kind === 'ClusterNetworkPolicy' ? 'protocols' : 'ports');

/** Where the pods a policy applies to are chosen. */
export const subjectPath = (policy: Policy): string => (policy.subject.type === 'namespace' ? 'spec.podSelector' : 'spec.subject');

export function ruleLabel(dir: Direction, rule: Rule): string {
  return `${dir} rule ${rule.index}${rule.name ? ` "${rule.name}"` : ''}`;
}

/** The action as the object spells it (v1alpha2 says Accept where v1alpha1 says Allow). */
export function actionWord(policy: Policy, action: Action): string {
  if (action === 'allow') return policy.ref.kind === 'ClusterNetworkPolicy' ? 'Accept' : 'Allow';
  return action === 'deny' ? 'Deny' : 'Pass';
}

/** A rule that can match nothing whatever the snapshot: the legacy form's empty `from`/`ports`, or only fail-closed/domainNames peers. */
export function matchesNothing(rule: Rule): boolean {
  return (rule.ports !== null && rule.ports.length === 0) || rule.peers.every((p) => p.type === 'none');
}

/** Up to `n` items joined, then "and N more". */
export function listSome(items: readonly string[], n = 3): string {
  const shown = items.slice(0, n).join(', ');
  return items.length > n ? `${shown} and ${items.length - n} more` : shown;
}
