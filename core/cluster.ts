// The one entry from a parsed snapshot to everything the evaluator and compiler read:
// indexed objects, interned selectors, policies in tier order and snapshot warnings.
import { NAMESPACED_KINDS, type ParsedSnapshot, type SnapshotObject, type ValidationIssue } from '../schemas/snapshot.js';
import type { ObjectRef } from '../schemas/object-key.js';
import { isWorkload } from '../schemas/k8s/workload.js';
import { SelectorCache } from './select/cache.js';
import { buildClusterObjects, type ClusterObjects, type PodInfo } from './snapshot/cluster.js';
import { replacePods, type PodReplacement } from './snapshot/replace-pods.js';
import { derivePods, type PodChanges } from './snapshot/derive-pods.js';
import { replaceNamespaces, type NamespaceReplacement } from './snapshot/replace-namespaces.js';
import { replaceNodes } from './snapshot/replace-nodes.js';
import { withWorkloads, type WorkloadChanges } from './snapshot/workload-change.js';
import { Owners } from './snapshot/owners.js';
import { fromAdminNetworkPolicy, fromClusterNetworkPolicy } from './policy/from-cluster-policy.js';
import { fromLegacyNetworkPolicy, fromNetworkPolicy } from './policy/from-network-policy.js';
import type { Policy } from './policy/model.js';
import { buildPolicySet, type PolicySet } from './policy/policy-set.js';
import { subjectSelects } from './evaluate/match.js';
import type { ClusterWarning } from './warnings.js';
import { printable } from './printable.js';

export interface Cluster extends ClusterObjects {
  readonly selectors: SelectorCache;
  readonly policies: PolicySet;
  /** Other engines' policies in the input by `Kind (apiVersion)`: not evaluated, so any answer may differ. */
  readonly notEvaluated: Readonly<Record<string, number>>;
  /** Objects a lenient reading left out. */
  readonly leftOut: number;
}

/** A policy object as converted, with the warnings converting it gave. */
interface Converted {
  readonly policy: Policy;
  readonly warnings: readonly ClusterWarning[];
}

/** Kinds whose objects are policies: those convert() reads. */
export const POLICY_KINDS: ReadonlySet<string> = new Set(['NetworkPolicy', 'AdminNetworkPolicy', 'BaselineAdminNetworkPolicy', 'ClusterNetworkPolicy']);

function convert(o: SnapshotObject, id: number, selectors: SelectorCache): Converted | null {
  const warnings: ClusterWarning[] = [];
  switch (o.kind) {
    case 'NetworkPolicy':
      return { policy: o.apiVersion === 'networking.k8s.io/v1' ? fromNetworkPolicy(o, id, selectors) : fromLegacyNetworkPolicy(o, id, selectors), warnings };
    case 'AdminNetworkPolicy':
    case 'BaselineAdminNetworkPolicy':
      return { policy: fromAdminNetworkPolicy(o, id, selectors, warnings), warnings };
    case 'ClusterNetworkPolicy':
      return { policy: fromClusterNetworkPolicy(o, id, selectors, warnings), warnings };
    default:
      return null;
  }
}

/** What a cluster's warnings were made of, to make them again for a cluster derived from it. */
interface Parts {
  /** Its pods, namespaces, nodes and services: kept while only policies change. */
  readonly objects: ClusterObjects;
  readonly converted: ReadonlyMap<SnapshotObject, Converted>;
  readonly objectWarnings: readonly ClusterWarning[];
  readonly policyWarnings: readonly ClusterWarning[];
  /** The workloads among the objects: the same while only pods change. */
  readonly owners: Owners;
}
const partsOf = new WeakMap<Cluster, Parts>();

/**
 * `previous`: a cluster built from an earlier version of the same objects (a version from
 * changes). Its selector ids carry over, so each policy object it converted, at the same place
 * among the policies, is taken as it is instead of converted again; everything about pods,
 * namespaces and nodes is built afresh.
 */
export function buildCluster(snapshot: ParsedSnapshot, previous?: Cluster): Cluster {
  const owners = new Owners(snapshot.objects);
  const objects = buildClusterObjects(snapshot.objects, owners);
  const selectors = previous ? previous.selectors.forSets(objects) : new SelectorCache(objects);
  const { policies, converted, policyWarnings } = convertPolicies(snapshot, selectors, previous ? partsOf.get(previous)?.converted : undefined);
  return assemble(snapshot, objects, selectors, buildPolicySet(policies), { objects, converted, objectWarnings: objects.warnings, policyWarnings, owners });
}

/**
 * `previous` with only policy objects changed (applied or deleted; snapshot is its objects so
 * changed): its pods, namespaces, nodes and services are the same objects, so they are kept with
 * their indexes and selector answers, and only the policies are converted again (those at the
 * same place among the policies taken as they were). Equal to buildCluster over `snapshot`.
 */
export function withPoliciesChanged(previous: Cluster, snapshot: ParsedSnapshot): Cluster | null {
  const parts = partsOf.get(previous);
  if (!parts) return null;
  const selectors = previous.selectors.forSets(parts.objects);
  const { policies, converted, policyWarnings } = convertPolicies(snapshot, selectors, parts.converted);
  return assemble(snapshot, parts.objects, selectors, buildPolicySet(policies), { ...parts, converted, policyWarnings });
}

/** The policy objects among a snapshot's, converted in order; one converted earlier at the same place among the policies is taken as it is. */
function convertPolicies(snapshot: ParsedSnapshot, selectors: SelectorCache, earlier: ReadonlyMap<SnapshotObject, Converted> | undefined) {
  const converted = new Map<SnapshotObject, Converted>();
  const policyWarnings: ClusterWarning[] = [];
  const policies: Policy[] = [];
  for (const o of snapshot.objects) {
    // Most objects are pods: no lookup for them.
    if (!POLICY_KINDS.has(o.kind)) continue;
    const id = policies.length;
    const kept = earlier?.get(o);
    const c = kept && kept.policy.id === id ? kept : convert(o, id, selectors);
    if (!c) continue;
    policies.push(c.policy);
    policyWarnings.push(...c.warnings);
    converted.set(o, c);
  }
  return { policies, converted, policyWarnings };
}

/**
 * `previous` with pods replaced in place (the same keys; snapshot/replace-pods.ts says when
 * that holds), its policies and selector ids kept: equal to buildCluster over `snapshot`, the
 * previous version's objects with those pods replaced. Null when more than that changed.
 */
export function withPodsReplaced(previous: Cluster, snapshot: ParsedSnapshot, pods: readonly PodReplacement[]): Cluster | null {
  const parts = partsOf.get(previous);
  const objects = parts ? replacePods(previous, parts.objectWarnings, pods) : null;
  if (!parts || !objects) return null;
  return assemble(snapshot, objects, previous.selectors.forSets(objects), previous.policies, { ...parts, objects });
}

/**
 * `previous` with pods added, deleted or replaced (and nothing else: snapshot/derive-pods.ts
 * says when the cluster objects can be derived), its policies and selector ids kept: equal to
 * buildCluster over `snapshot`, the previous version's objects so changed. Null otherwise.
 */
export function withPodsDerived(previous: Cluster, snapshot: ParsedSnapshot, pods: PodChanges): Cluster | null {
  const parts = partsOf.get(previous);
  const objects = parts ? derivePods(previous, parts.objectWarnings, parts.owners, pods) : null;
  if (!parts || !objects) return null;
  return assemble(snapshot, objects, previous.selectors.forSets(objects), previous.policies, { ...parts, objects });
}

/**
 * `previous` with workload objects (and PodTemplates) changed, pods too or not, none deleted with
 * its pods (snapshot/workload-change.ts says when the cluster objects can be kept or derived),
 * its policies and selector ids kept: equal to buildCluster over `snapshot`, the previous
 * version's objects so changed. Null otherwise.
 */
export function withWorkloadsChanged(previous: Cluster, snapshot: ParsedSnapshot, change: WorkloadChanges): Cluster | null {
  const parts = partsOf.get(previous);
  if (!parts) return null;
  const owners = parts.owners.changed(snapshot.objects, change.removed, change.added);
  const objects = withWorkloads(parts.objects, parts.objectWarnings, parts.owners, owners, snapshot.objects, change);
  if (!objects) return null;
  return assemble(snapshot, objects, previous.selectors.forSets(objects), previous.policies, { ...parts, objects, owners });
}

/**
 * `previous` with Namespace objects replaced in place (the same names; snapshot/replace-namespaces.ts),
 * its pods, nodes, policies and selector ids kept (pod answers too: the same pod list):
 * equal to buildCluster over `snapshot`. Null when more than that changed.
 */
export function withNamespacesReplaced(previous: Cluster, snapshot: ParsedSnapshot, namespaces: readonly NamespaceReplacement[]): Cluster | null {
  const parts = partsOf.get(previous);
  const objects = parts ? replaceNamespaces(parts.objects, namespaces) : null;
  if (!parts || !objects) return null;
  return assemble(snapshot, objects, previous.selectors.forSets(objects), previous.policies, { ...parts, objects });
}

/**
 * `previous` with only Node objects changed (snapshot/replace-nodes.ts): its pods, namespaces,
 * policies and selector ids kept (pod and namespace answers too), nodes and address ownership
 * made again. Equal to buildCluster over `snapshot`.
 */
export function withNodesChanged(previous: Cluster, snapshot: ParsedSnapshot): Cluster | null {
  const parts = partsOf.get(previous);
  if (!parts) return null;
  const objects = replaceNodes(parts.objects, parts.objectWarnings, snapshot.objects);
  return assemble(snapshot, objects, previous.selectors.forSets(objects), previous.policies, { ...parts, objects, objectWarnings: objects.warnings });
}

function assemble(snapshot: ParsedSnapshot, objects: ClusterObjects, selectors: SelectorCache, policies: PolicySet, parts: Parts): Cluster {
  const warnings = [...parts.objectWarnings, ...parts.policyWarnings];
  const ignored = Object.entries(snapshot.ignored);
  // parseSnapshot counts other engines' policies as `Kind (apiVersion)`.
  const notEvaluated = ignored.filter(([k]) => k.endsWith(')'));
  const other = ignored.filter(([k]) => !k.endsWith(')'));
  const cluster: Cluster = { ...objects, warnings, selectors, policies, notEvaluated: Object.fromEntries(notEvaluated), leftOut: snapshot.leftOut?.length ?? 0 };
  partsOf.set(cluster, parts);
  warnings.push(...samePriorityWarnings(cluster));
  if (notEvaluated.length > 0) warnings.push({ code: 'policy-kinds-not-evaluated', message: `policies of kinds netpolc does not evaluate: ${counts(notEvaluated)}; not evaluated: answers ignore them` });
  if (other.length > 0) warnings.push({ code: 'kinds-ignored', message: `ignored objects of kinds policy evaluation does not read: ${counts(other)}` });
  for (const i of snapshot.leftOut ?? []) {
    // The name was refused, so it may hold anything: shown escaped, on one line.
    const what = i.object ? printable(`${i.object.kind ?? 'object'} ${[i.object.namespace, i.object.name].filter(Boolean).join('/')}`.trim()) : 'a document';
    const object = leftOutRef(i);
    warnings.push({ code: 'object-left-out', ...(object ? { object } : {}), path: i.path, message: `left out ${what} (invalid, lenient reading): ${i.path}: ${i.message}` });
  }
  if (cluster.pods.length === 0) warnings.push({ code: 'no-pods', message: 'the input has no pods and no workloads: selects-no-pods and every answer about endpoints need them' });
  return cluster;
}

/** A left-out object's identity when it could be read (kind and name), namespaced kinds in `default` as parseSnapshot reads them. */
function leftOutRef(i: ValidationIssue): ObjectRef | null {
  const { kind, namespace, name } = i.object ?? {};
  if (!kind || !name) return null;
  const ns = namespace ?? (NAMESPACED_KINDS.has(kind) ? 'default' : undefined);
  return ns === undefined ? { kind, name } : { kind, namespace: ns, name };
}

const counts = (entries: readonly [string, number][]) => entries.map(([k, n]) => `${k} (${n})`).join(', ');

/**
 * Null when the snapshot has an endpoint (a pod, a workload or a node); else what it holds,
 * for the error that says why there is nothing to answer about.
 */
export function noEndpoints(snapshot: ParsedSnapshot, cluster: Cluster): string | null {
  return cluster.pods.length > 0 || cluster.nodes.length > 0 ? null : whatItHolds(snapshot);
}

/** The same test on the objects alone, before a cluster is built (a preview's base). */
export function noEndpointObjects(snapshot: ParsedSnapshot): string | null {
  return snapshot.objects.some((o) => o.kind === 'Pod' || o.kind === 'Node' || isWorkload(o)) ? null : whatItHolds(snapshot);
}

function whatItHolds(snapshot: ParsedSnapshot): string {
  const found = new Map<string, number>();
  for (const o of snapshot.objects) found.set(o.kind, (found.get(o.kind) ?? 0) + 1);
  for (const [k, n] of Object.entries(snapshot.ignored)) found.set(k, (found.get(k) ?? 0) + n);
  const what = found.size === 0 ? 'no objects' : `only ${counts([...found])}`;
  return `no endpoints: the input has no pods, workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) or nodes, ${what}`;
}

/**
 * KEP-2091 "Conflict resolution: Two policies are considered to be conflicting if they are
 * assigned the same priority and apply to the same resources". We order them by name
 * (deterministic) and say so.
 */
function samePriorityWarnings(cluster: Cluster): ClusterWarning[] {
  const out: ClusterWarning[] = [];
  for (const tier of [cluster.policies.admin, cluster.policies.baseline]) {
    for (let i = 0; i < tier.length; i++) {
      for (let j = i + 1; j < tier.length && tier[j]!.priority === tier[i]!.priority; j++) {
        const a = tier[i]!;
        const b = tier[j]!;
        const shared = cluster.pods.find((p: PodInfo) => subjectSelects(cluster, a, p) && subjectSelects(cluster, b, p));
        if (shared) {
          // About the one evaluated second, as lint's same-priority-overlap is.
          out.push({
            code: 'same-priority-order',
            object: { kind: b.ref.kind, name: b.ref.name },
            path: 'spec.priority',
            message: `${a.ref.kind} ${a.ref.name} and ${b.ref.kind} ${b.ref.name} have the same priority (${a.priority}) and both select pod ${shared.key}; ${a.ref.name} is evaluated first (name order)`,
          });
        }
      }
    }
  }
  return out;
}
