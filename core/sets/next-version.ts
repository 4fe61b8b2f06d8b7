// A version from the previous one and a change ({apply, delete}, the previews' change format):
// the objects after the change, their cluster and set form. The set form equals a full compile
// of the same objects; when only pods changed it is computed incrementally (incremental.ts).
import { buildCluster, withPodsReplaced, type Cluster } from '../cluster.js';
import type { PodReplacement } from '../snapshot/replace-pods.js';
import { applyChanges, type SnapshotChanges } from '../preview/changes.js';
import type { ParsedSnapshot, ValidationIssue } from '../../schemas/snapshot.js';
import { compileSets, type SetCompileOptions, type SetCompileStats, type SetFormChange } from './compile.js';
import { podChangeReuse, type ChangedObject } from './incremental.js';
import { SetIndex } from './set-index.js';
import type { SetIr } from './ir.js';
import { hashObjects, snapshotObjectKey, type HashedObjects } from '../snapshot/hash.js';

/** A compiled version, kept to compile the next one from. */
export interface CompiledState {
  readonly snapshot: ParsedSnapshot;
  readonly cluster: Cluster;
  readonly ir: SetIr;
  /** Its counts (the next version's move by what changed). */
  readonly stats?: SetCompileStats | undefined;
  /** Sets by the pod labels they read and the namespaces they draw from (set-index.ts), built on the first change and grown by later ones. */
  readonly setIndex?: SetIndex | undefined;
  /** The snapshot hash of its objects (the version's identity), with the lines the next one's starts from. */
  readonly hashed: HashedObjects;
}

export type NextVersion =
  | { readonly ok: true; readonly state: CompiledState; readonly stats: SetCompileStats; readonly incremental: boolean; readonly changed: readonly ChangedObject[]; readonly change?: SetFormChange | undefined }
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

/**
 * A full compile of a snapshot, as the state the next version starts from: with its set index,
 * so the first change after a whole snapshot costs what the next ones do (a few ms per 10⁴ sets,
 * next to the seconds of the compile).
 */
export function compiledState(parsed: ParsedSnapshot, opts: SetCompileOptions = {}): { state: CompiledState; stats: SetCompileStats } {
  const snapshot = kept(parsed);
  const cluster = buildCluster(snapshot);
  const { ir, stats } = compileSets(cluster, opts);
  return { state: { snapshot, cluster, ir, stats, setIndex: SetIndex.of(ir.sets), hashed: hashObjects(snapshot.objects, opts.sha256Hex) }, stats };
}

/**
 * `base` with its compiled form (a warm server) may be compiled from incrementally; its objects
 * alone (a cold one, read from the store) get a full compile of the result.
 */
export function nextVersion(base: CompiledState | { readonly snapshot: ParsedSnapshot }, changes: SnapshotChanges, opts: SetCompileOptions = {}): NextVersion {
  const changed: ChangedObject[] = [
    ...changes.delete.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name })),
    ...changes.apply.objects.map((o) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name })),
  ];
  const inPlace = 'cluster' in base ? podsInPlace(base, changes) : null;
  let snapshot: ParsedSnapshot;
  let cluster: Cluster | null = null;
  if (inPlace) {
    snapshot = inPlace.snapshot;
    cluster = withPodsReplaced(inPlace.base.cluster, snapshot, inPlace.replacements);
  } else {
    const head = applyChanges(base.snapshot, changes, '$.changes.delete');
    if (!head.ok) return head;
    snapshot = kept({ ...head.snapshot, resourceVersion: undefined });
  }
  cluster ??= buildCluster(snapshot, 'cluster' in base ? base.cluster : undefined);
  // Only nodes of the whole cluster: a compile for some nodes is no base for the next version.
  let index: SetIndex | undefined;
  const indexOf = (b: CompiledState) => (index ??= b.setIndex ?? SetIndex.of(b.ir.sets));
  const reuse = opts.nodes || !('ir' in base) ? null : podChangeReuse(base, cluster, changed, () => indexOf(base));
  const { ir, stats, change } = compileSets(cluster, opts, reuse ?? undefined);
  // The index holds sets by id, whatever version they are in: it grows with the new ones (after a
  // full compile, with every set, as the first version's index was built).
  const carried = index ?? (opts.nodes || !('setIndex' in base) ? undefined : base.setIndex);
  if (carried && change) for (const id of change.sets) carried.add(id, ir.sets.get(id)!.definition);
  else if (carried) for (const [id, set] of ir.sets.entries()) carried.add(id, set.definition);
  const hashed = hashObjects(snapshot.objects, opts.sha256Hex, 'hashed' in base ? base.hashed : undefined);
  return { ok: true, state: { snapshot, cluster, ir, stats, setIndex: carried, hashed }, stats, incremental: reuse !== null, changed, change };
}

/**
 * A change that only replaces pods the base has (the same keys; what a watcher sends for a
 * relabel, a move or a new address): the next objects are the base's, in the same order, with
 * those pods replaced, found by binary search instead of indexing every object again.
 */
function podsInPlace(base: CompiledState, changes: SnapshotChanges): { base: CompiledState; snapshot: ParsedSnapshot; replacements: PodReplacement[] } | null {
  if (changes.delete.length > 0 || changes.apply.objects.length === 0) return null;
  const sorted = base.snapshot.objects;
  const objects = sorted.slice();
  const replacements: PodReplacement[] = [];
  const at = new Set<number>();
  for (const o of changes.apply.objects) {
    if (o.kind !== 'Pod') return null;
    const i = indexOfKey(sorted, snapshotObjectKey(o));
    const before = sorted[i];
    if (before?.kind !== 'Pod' || at.has(i)) return null;
    at.add(i);
    objects[i] = o;
    replacements.push({ before, after: o });
  }
  const ignored: Record<string, number> = { ...base.snapshot.ignored };
  for (const [kind, n] of Object.entries(changes.apply.ignored)) ignored[kind] = (ignored[kind] ?? 0) + n;
  return { base, snapshot: { objects, ignored, resourceVersion: undefined, paths: new Map() }, replacements };
}

/** Binary search over objects in key order (kept()); -1 when absent. */
function indexOfKey(objects: readonly ParsedSnapshot['objects'][number][], key: string): number {
  let [lo, hi] = [0, objects.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = snapshotObjectKey(objects[mid]!);
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
