// GitOps previews (issue 5): what a change to a cluster's manifests does to connectivity,
// before it is merged. Stages, each its own module:
//   changes.ts     head = base − deletes + applies (when the request sends a change)
//   classes.ts     endpoint classes alike in both snapshots (pods, node addresses, external ranges)
//   candidates.ts  the class pairs a changed policy or endpoint can affect at all
//   delta.ts       those pairs evaluated in both snapshots over every port, compared
//   aggregate.ts   changes grouped by namespace and workload, with before/after explanations
//   tables.ts      the per-node rule-table delta (compiles both snapshots: optional, slow)
//   markdown.ts    the pull-request comment
// plus the lints of the head, each marked new or already present in the base.
import { buildCluster, type Cluster } from '../cluster.js';
import type { Unchecked } from '../lint/budget.js';
import { lintRun } from '../lint/lint.js';
import { findingKey, objectKey, type Finding, type LintLimits } from '../lint/types.js';
import { canonical } from '../snapshot/hash.js';
import type { ParsedSnapshot } from '../../schemas/snapshot.js';
import { aggregate, pairKey, type Aggregate, type IpFamilyName } from './aggregate.js';
import { findCandidates, SubjectGroups, type PolicyContents } from './candidates.js';
import { buildClasses, type Both, type Classes, type NodeAddress } from './classes.js';
import { connectivityDelta, type DeltaWork } from './delta.js';
import { tablesDelta, type TablesDelta } from './tables.js';
import type { Sha256Hex } from '../compile/table-id.js';
import { headWithPods, newWorkloads, type NewWorkload, type WorkloadChanges } from './workloads.js';
import { warningMessages } from '../warnings.js';

export type PreviewStage = 'build' | 'classes' | 'candidates' | 'delta' | 'aggregate' | 'lint' | 'tables';

export interface PreviewOptions {
  /** The per-node rule-table delta (compiles both snapshots). Default true. */
  readonly tables?: boolean;
  /** Lints of the head, marked new vs. the base. Default true. */
  readonly lint?: boolean;
  /** The lints' budgets, for both snapshots (LINT_LIMITS by default). */
  readonly lintLimits?: LintLimits;
  /** Runs each stage; callers time or log them here (the core keeps no clock). */
  readonly stage?: <T>(name: PreviewStage, run: () => T) => T;
  /** SHA-256 for table ids (compile's option); the portable one by default. */
  readonly sha256Hex?: Sha256Hex;
  /** The head is the base with changes applied (applyChanges), not a snapshot or repository sent whole. */
  readonly headFromChanges?: boolean;
  /** Class changes the delta may hold (PREVIEW_LIMITS.classChanges by default). */
  readonly maxClassChanges?: number;
}

/** A class that aggregates' parts refer to, by id. */
export type EndpointRef =
  | { readonly id: number; readonly kind: 'pods'; readonly pods: readonly string[] }
  | { readonly id: number; readonly kind: 'nodes'; readonly addresses: readonly NodeAddress[] }
  | { readonly id: number; readonly kind: 'external'; readonly family: IpFamilyName; readonly cidrs: readonly string[] };

export interface LintDelta {
  /** Findings of the head; `new` when the base had none with the same code, object and path. */
  readonly findings: readonly (Finding & { readonly new: boolean })[];
  /** Findings of the base the head no longer has (a question the head left unchecked resolves nothing). */
  readonly resolved: readonly Finding[];
  /** The head's questions left unanswered over the lint budgets. */
  readonly unchecked: readonly Unchecked[];
}

export interface PreviewSummary {
  /** Aggregates, and distinct endpoint pairs that lose (removed) or gain (added) at least one flow. */
  readonly removed: { readonly aggregates: number; readonly pairs: number };
  readonly added: { readonly aggregates: number; readonly pairs: number };
  /** Endpoint pods (not host-network, with an address) of one snapshot only, or changed. */
  readonly pods: { readonly added: readonly string[]; readonly removed: readonly string[]; readonly changed: number };
  readonly classes: { readonly pods: number; readonly nodes: number; readonly external: number };
  readonly work: DeltaWork;
}

export interface Preview {
  readonly summary: PreviewSummary;
  /** Removed flows first, then added; biggest first. */
  readonly changes: readonly Aggregate[];
  readonly endpoints: readonly EndpointRef[];
  /** null when not asked for. */
  readonly tables: TablesDelta | null;
  readonly lint: LintDelta | null;
  /** Workloads whose pods took a new template, deleted with their pods, or new without pods (with their verdicts). */
  readonly workloads: WorkloadChanges & { readonly added: readonly NewWorkload[] };
  /** Head's warnings, then base's not in head (`base: …`), as text: a preview is an output. */
  readonly warnings: readonly string[];
}

const POLICY_KINDS = new Set(['NetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'ClusterNetworkPolicy']);

/** Each policy's content (apiVersion and spec), by identity: equal content decides alike. */
function policyContents(s: ParsedSnapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of s.objects) {
    if (!POLICY_KINDS.has(o.kind)) continue;
    out.set(objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }), JSON.stringify(canonical({ apiVersion: o.apiVersion, spec: (o as { spec?: unknown }).spec })));
  }
  return out;
}

function lintDelta(clusters: Both<Cluster>, snapshots: Both<ParsedSnapshot>, limits: LintLimits | undefined): LintDelta {
  const base = lintRun(clusters.base, { objectPaths: snapshots.base.paths, ...(limits ? { limits } : {}) });
  const head = lintRun(clusters.head, { objectPaths: snapshots.head.paths, ...(limits ? { limits } : {}) });
  const before = new Set(base.findings.map(findingKey));
  const after = new Set(head.findings.map(findingKey));
  // A base finding is resolved only if the head answered its question (new ones stay new when
  // the base left theirs unchecked: they are not known to be there already).
  return {
    findings: head.findings.map((f) => ({ ...f, new: !before.has(findingKey(f)) })),
    resolved: base.findings.filter((f) => !after.has(findingKey(f)) && !head.uncheckedKeys.has(findingKey(f))),
    unchecked: head.unchecked,
  };
}

function endpointRefs(classes: Classes, changes: readonly Aggregate[]): EndpointRef[] {
  const ids = new Set(changes.flatMap((a) => a.parts.flatMap((p) => [p.from, p.to])));
  return [...ids].sort((a, b) => a - b).map((id): EndpointRef => {
    const c = classes.all[id]!;
    if (c.kind === 'pods') return { id, kind: 'pods', pods: c.members };
    if (c.kind === 'nodes') return { id, kind: 'nodes', addresses: c.members };
    return { id, kind: 'external', family: c.family === 4 ? 'IPv4' : 'IPv6', cidrs: c.cidrs };
  });
}

export function preview(sent: Both<ParsedSnapshot>, options: PreviewOptions = {}): Preview {
  const stage = options.stage ?? (<T>(_: PreviewStage, run: () => T) => run());
  const { head, workloads } = headWithPods(sent.base, sent.head, options.headFromChanges === true);
  const snapshots = { base: sent.base, head };
  const clusters = stage('build', () => ({ base: buildCluster(snapshots.base), head: buildCluster(snapshots.head) }));
  const classes = stage('classes', () => buildClasses(clusters));
  const groups = new SubjectGroups(clusters);
  const contents: PolicyContents = { base: policyContents(snapshots.base), head: policyContents(snapshots.head) };
  const candidates = stage('candidates', () => findCandidates(classes, groups, contents));
  const delta = stage('delta', () => connectivityDelta(classes, groups, candidates, options.maxClassChanges));
  const changes = stage('aggregate', () => aggregate(classes, delta.changes));
  const lintResult = options.lint === false ? null : stage('lint', () => lintDelta(clusters, snapshots, options.lintLimits));
  const tables = options.tables === false ? null : stage('tables', () => tablesDelta(clusters, snapshots, options.sha256Hex));

  const count = (change: Aggregate['change']) => {
    const pairs = new Map<number, number>();
    for (const c of delta.changes) if (c.change === change) pairs.set(pairKey(c, classes.all.length), c.pairs);
    return { aggregates: changes.filter((a) => a.change === change).length, pairs: [...pairs.values()].reduce((n, p) => n + p, 0) };
  };
  const [headWarnings, baseWarnings] = [warningMessages(clusters.head.warnings), warningMessages(clusters.base.warnings)];
  const inHead = new Set(headWarnings);
  return {
    summary: {
      removed: count('removed'),
      added: count('added'),
      pods: { added: classes.podsAdded, removed: classes.podsRemoved, changed: classes.podsChanged },
      classes: { pods: classes.pods.length, nodes: classes.nodes.length, external: classes.externals.length },
      work: delta.work,
    },
    changes,
    endpoints: endpointRefs(classes, changes),
    tables,
    lint: lintResult,
    workloads: { ...workloads, added: newWorkloads(clusters.base, clusters.head) },
    warnings: [...headWarnings, ...baseWarnings.filter((w) => !inHead.has(w)).map((w) => `base: ${w}`)],
  };
}

/** The preview without the parts of each aggregate and the endpoints they name (the default API answer). */
export function withoutParts(p: Preview): Omit<Preview, 'changes' | 'endpoints'> & { changes: Omit<Aggregate, 'parts'>[] } {
  const { endpoints: _endpoints, changes, ...rest } = p;
  return { ...rest, changes: changes.map(({ parts: _parts, ...a }) => a) };
}
