// A head snapshot from a base and a change, the way a pull request changes manifests: objects
// deleted by kind/namespace/name, then objects applied (upserted: an object with the same
// kind/namespace/name replaces the old one, as `kubectl apply` does). Works on parsed objects,
// so every object keeps the JSON path it came from (`$.base.items[3]`, `$.changes.apply[0]`).
import { addedKindCounts, miscasedKind, miscasedKindMessage, NAMESPACED_KINDS, SUPPORTED_KINDS, type ParsedSnapshot, type SnapshotObject, type ValidationIssue } from '../../schemas/snapshot.js';
import { objectKey } from '../lint/types.js';
import type { ObjectRef } from '../../schemas/object-key.js';
import { WORKLOAD_KIND_NAMES, type WorkloadKind } from '../../schemas/k8s/workload.js';
import { Owners } from '../snapshot/owners.js';
import { workloadName } from '../snapshot/workload-names.js';

export type { ObjectRef };

export interface SnapshotChanges {
  /** The applied objects, parsed like a snapshot (their paths point into the change). */
  readonly apply: ParsedSnapshot;
  readonly delete: readonly ObjectRef[];
}

const KINDS = new Set(SUPPORTED_KINDS.map((k) => k.slice(k.lastIndexOf('/') + 1)));

/** Namespaced kinds default to `default`, as parseSnapshot does for objects. */
export const refKey = (r: ObjectRef) => objectKey({ kind: r.kind, namespace: r.namespace ?? (NAMESPACED_KINDS.has(r.kind) ? 'default' : undefined), name: r.name });

/**
 * The head: base minus `delete`, then `apply` upserted. Deleting an object the base does not
 * have is an issue at `deletePath[i]` (a typo would otherwise preview nothing); kinds
 * netpolc does not read (ConfigMaps, …) may be deleted freely, and so may workloads (a live
 * base may hold only their pods). A deleted workload takes its pods with it ("When you delete
 * a Deployment, its ReplicaSets and Pods are deleted", by the garbage collector's cascade).
 */
export function applyChanges(base: ParsedSnapshot, changes: SnapshotChanges, deletePath = '$.changes.delete'): { ok: true; snapshot: ParsedSnapshot; cascaded: ObjectRef[] } | { ok: false; issues: ValidationIssue[] } {
  const byKey = new Map(base.objects.map((o) => [objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }), o]));
  const paths = new Map(base.paths);
  const issues: ValidationIssue[] = [];
  const workloads = deletedWorkloads(changes.delete);
  changes.delete.forEach((ref, i) => {
    // A kind netpolc reads, spelt in another case, would otherwise delete nothing unnoticed.
    if (miscasedKind(ref.kind)) {
      issues.push({ path: `${deletePath}[${i}].kind`, message: miscasedKindMessage(ref.kind) });
      return;
    }
    const key = refKey(ref);
    const workload = isWorkloadKind(ref.kind);
    if (byKey.delete(key)) paths.delete(key);
    else if (KINDS.has(ref.kind) && !workload) issues.push({ path: `${deletePath}[${i}]`, message: `the base has no ${ref.kind} ${[ref.namespace ?? (NAMESPACED_KINDS.has(ref.kind) ? 'default' : ''), ref.name].filter(Boolean).join('/')} to delete` });
  });
  if (issues.length > 0) return { ok: false, issues };
  // The pods so deleted, that a version from changes knows what changed.
  const cascaded: ObjectRef[] = [];
  for (const o of podsOfWorkloads(base.objects, workloads)) {
    const key = objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
    if (byKey.delete(key)) cascaded.push({ kind: 'Pod', namespace: o.metadata.namespace ?? 'default', name: o.metadata.name });
    paths.delete(key);
  }
  for (const o of changes.apply.objects) {
    const key = objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
    // Re-inserting keeps the applied object's place last, as a new manifest would be.
    byKey.delete(key);
    byKey.set(key, o);
    const at = changes.apply.paths.get(key);
    if (at !== undefined) paths.set(key, at);
  }
  const ignored = addedKindCounts(base.ignored, changes.apply.ignored);
  return { ok: true, snapshot: { objects: [...byKey.values()], ignored, resourceVersion: undefined, paths }, cascaded };
}

const isWorkloadKind = (kind: string): kind is WorkloadKind => (WORKLOAD_KIND_NAMES as readonly string[]).includes(kind);

/** The workloads a change deletes, as `namespace/kind/name` ("shop/deployment/web"). */
export function deletedWorkloads(refs: readonly ObjectRef[]): Set<string> {
  const out = new Set<string>();
  for (const ref of refs) if (isWorkloadKind(ref.kind)) out.add(`${ref.namespace ?? 'default'}/${workloadName(ref.kind, ref.name)}`);
  return out;
}

/**
 * The pods among `objects` that deleting `workloads` (deletedWorkloads) takes with them: those
 * whose controller leads up to one of them (owners.ts), running or finished. Only a deleted
 * workload takes pods with it; most changes delete none, and then nothing is read.
 */
export function podsOfWorkloads(objects: readonly SnapshotObject[], workloads: ReadonlySet<string>): SnapshotObject[] {
  if (workloads.size === 0) return [];
  const owners = new Owners(objects);
  return objects.filter((o) => o.kind === 'Pod' && workloads.has(`${o.metadata.namespace ?? 'default'}/${owners.ownerOfPod(o)}`));
}
