// A version from the previous one and a change ({apply, delete}, the previews' change format):
// the objects after the change, their cluster and set form. The set form equals a full compile
// of the same objects; when only pods changed it is computed incrementally (incremental.ts).
import { buildCluster, type Cluster } from '../cluster.js';
import { applyChanges, type SnapshotChanges } from '../preview/changes.js';
import type { ParsedSnapshot, ValidationIssue } from '../../schemas/snapshot.js';
import { compileSets, type SetCompileOptions, type SetCompileStats } from './compile.js';
import { podChangeReuse, type ChangedObject } from './incremental.js';
import type { SetIr } from './ir.js';
import { snapshotObjectKey } from '../snapshot/hash.js';

/** A compiled version, kept to compile the next one from. */
export interface CompiledState {
  readonly snapshot: ParsedSnapshot;
  readonly cluster: Cluster;
  readonly ir: SetIr;
}

export type NextVersion =
  | { readonly ok: true; readonly state: CompiledState; readonly stats: SetCompileStats; readonly incremental: boolean; readonly changed: readonly ChangedObject[] }
  | { readonly ok: false; readonly issues: ValidationIssue[] };

/**
 * The objects a state keeps: in key order (so the next version's are nearly sorted, and the
 * sorts of hashing and storing cost little), without the input paths (only parsing needs them).
 */
function kept(snapshot: ParsedSnapshot): ParsedSnapshot {
  const keyed = snapshot.objects.map((o) => ({ key: snapshotObjectKey(o), o }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ...snapshot, objects: keyed.map((k) => k.o), paths: new Map() };
}

/** A full compile of a snapshot, as the state the next version starts from. */
export function compiledState(parsed: ParsedSnapshot, opts: SetCompileOptions = {}): { state: CompiledState; stats: SetCompileStats } {
  const snapshot = kept(parsed);
  const cluster = buildCluster(snapshot);
  const { ir, stats } = compileSets(cluster, opts);
  return { state: { snapshot, cluster, ir }, stats };
}

/**
 * `base` with its compiled form (a warm server) may be compiled from incrementally; its objects
 * alone (a cold one, read from the store) get a full compile of the result.
 */
export function nextVersion(base: CompiledState | { readonly snapshot: ParsedSnapshot }, changes: SnapshotChanges, opts: SetCompileOptions = {}): NextVersion {
  const head = applyChanges(base.snapshot, changes, '$.changes.delete');
  if (!head.ok) return head;
  const snapshot: ParsedSnapshot = kept({ ...head.snapshot, resourceVersion: undefined });
  const changed: ChangedObject[] = [
    ...changes.delete.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name })),
    ...changes.apply.objects.map((o) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name })),
  ];
  const cluster = buildCluster(snapshot, 'cluster' in base ? base.cluster : undefined);
  // Only nodes of the whole cluster: a compile for some nodes is no base for the next version.
  const reuse = opts.nodes || !('ir' in base) ? null : podChangeReuse(base, cluster, changed);
  const { ir, stats } = compileSets(cluster, opts, reuse ?? undefined);
  return { ok: true, state: { snapshot, cluster, ir }, stats, incremental: reuse !== null, changed };
}
