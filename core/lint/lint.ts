// Policy lints over a built Cluster: pure (no I/O), deterministic order, every finding with
// its object, JSON path, severity and a one-line hint. Used by POST /v1/lint, previews and the
// CLI (issue 5: "Each finding has a severity, the object and JSON path, and a one-line fix
// hint"). Each lint module cites the spec sentence it relies on and says whether it is exact
// or conservative; LINTS below is the catalogue.
import type { Cluster } from '../cluster.js';
import { LintBudget, type Unchecked } from './budget.js';
import { egressBlocksDns } from './dns.js';
import { ipBlockExcepts } from './ip-blocks.js';
import { unresolvedNamedPorts } from './named-ports.js';
import { overriddenNetworkPolicyRules } from './overridden.js';
import { samePriorityOverlaps } from './same-priority.js';
import { policiesSelectingNoPods } from './selects-nothing.js';
import { redundantNetworkPolicyRules, shadowedRules } from './shadowed.js';
import { LINT_CODES, objectKey, type Finding, type LintCode, type LintOptions, type Severity } from './types.js';

export interface LintInfo {
  readonly code: LintCode;
  readonly severities: readonly Severity[];
  /** exact: fires iff the condition holds (for the snapshot where it says so); conservative: may miss, never fires wrongly. */
  readonly precision: string;
}

// Keyed by code: a code without its entry (or an entry without a code) does not compile.
const CATALOGUE: Readonly<Record<LintCode, Omit<LintInfo, 'code'>>> = {
  'same-priority-overlap': { severities: ['error', 'warning'], precision: 'exact for the snapshot; unchecked over the budgets' },
  'rule-shadowed': { severities: ['warning'], precision: 'exact for the snapshot (unions of earlier rules), unchecked over the budgets; structurally sound for any pods' },
  'np-rule-redundant': { severities: ['info'], precision: 'single covering rule; exact for the snapshot, unchecked over the budgets; structurally sound for any pods' },
  'selects-no-pods': { severities: ['warning'], precision: 'exact' },
  'np-rule-overridden': { severities: ['warning', 'info'], precision: 'exact for the snapshot (the verdict engine walks each cell through the Admin tier); unchecked over the budgets' },
  'named-port-unresolved': { severities: ['warning'], precision: 'exact for the snapshot' },
  'ipblock-except-not-subset': { severities: ['error'], precision: 'exact (interval arithmetic)' },
  'ipblock-except-covers-cidr': { severities: ['warning'], precision: 'exact (interval arithmetic)' },
  'egress-blocks-dns': { severities: ['warning', 'info'], precision: 'exact for the kube-dns pods in the snapshot; silent without them' },
};

export const LINTS: readonly LintInfo[] = LINT_CODES.map((code) => ({ code, ...CATALOGUE[code] }));

const RUNNERS: readonly ((cluster: Cluster, budget: LintBudget) => Finding[])[] = [
  samePriorityOverlaps,
  shadowedRules,
  redundantNetworkPolicyRules,
  policiesSelectingNoPods,
  overriddenNetworkPolicyRules,
  unresolvedNamedPorts,
  ipBlockExcepts,
  egressBlocksDns,
];

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface LintRun {
  /** Errors first, then by object and path. */
  readonly findings: Finding[];
  /** Per lint, the questions left unanswered over the budgets (LINT_LIMITS), by code. */
  readonly unchecked: Unchecked[];
  /** findingKey of each unanswered question: the finding it would have been. */
  readonly uncheckedKeys: ReadonlySet<string>;
}

/** Every finding, errors first, then by object and path. */
export function lint(cluster: Cluster, options: LintOptions = {}): Finding[] {
  return lintRun(cluster, options).findings;
}

/** The findings, and what the budgets left unchecked. */
export function lintRun(cluster: Cluster, options: LintOptions = {}): LintRun {
  const budget = new LintBudget(options.limits);
  const findings = RUNNERS.flatMap((run) => run(cluster, budget));
  findings.sort((a, b) => RANK[a.severity] - RANK[b.severity] || cmp(objectKey(a.object), objectKey(b.object)) || cmp(a.path, b.path) || cmp(a.code, b.code));
  const paths = options.objectPaths;
  const located = !paths
    ? findings
    : findings.map((f) => {
        const base = paths.get(objectKey(f.object));
        return base === undefined ? f : { ...f, snapshotPath: `${base}.${f.path}` };
      });
  return { findings: located, unchecked: budget.unchecked(), uncheckedKeys: budget.skipped };
}
