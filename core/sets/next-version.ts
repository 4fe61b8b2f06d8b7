// A version from the previous one and a change ({apply, delete}, the previews' change format):
// the objects after the change, their cluster and set form. The set form equals a full compile
// of the same objects; from a base with its set form (a warm server) it is computed
// incrementally (incremental.ts).
import { buildCluster, POLICY_KINDS, withNamespacesReplaced, withNodesChanged, withPoliciesChanged, withPodsDerived, withPodsReplaced, withWorkloadsChanged, type Cluster } from '../cluster.js';
import type { PodChanges } from '../snapshot/derive-pods.js';
import type { WorkloadChanges } from '../snapshot/workload-change.js';
import { podKey } from '../snapshot/cluster.js';
import type { Namespace, Node, Pod } from '../../schemas/k8s/core.js';
import { isWorkload } from '../../schemas/k8s/workload.js';
import { byText, joinRuns } from '../sorted.js';
import { applyChanges, deletedWorkloads, podsOfWorkloads, refKey, type SnapshotChanges } from '../preview/changes.js';
import { addedKindCounts, type ParsedSnapshot, type ValidationIssue } from '../../schemas/snapshot.js';
import { compileSets, type SetCompileOptions, type SetCompileStats, type SetFormChange } from './compile.js';
import { changeReuse } from './incremental.js';
import type { ChangedObject } from './policy-subjects.js';
import { SetIndex } from './set-index.js';
import type { SetIr } from './ir.js';
import { hashObjects, indexOfKey, objectDigest, snapshotObjectKey, type HashedObjects, type RunTexts } from '../snapshot/hash.js';

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

interface NextVersionOk {
  readonly ok: true;
  readonly state: CompiledState;
  readonly stats: SetCompileStats;
  readonly incremental: boolean;
  /**
   * How its cluster was made: from the previous one's with pods replaced in place, or added and
   * deleted too, or with only its policies converted again, or namespaces replaced in place, or
   * nodes changed, or workloads changed (pods too); or built afresh.
   */
  readonly clusterFrom: 'replaced' | 'derived' | 'policies' | 'namespaces' | 'nodes' | 'workloads' | 'built';
  readonly changed: readonly ChangedObject[];
  readonly change?: SetFormChange | undefined;
}

export type NextVersion = NextVersionOk | { readonly ok: false; readonly issues: ValidationIssue[] };

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
export function compiledState(parsed: ParsedSnapshot, opts: SetCompileOptions = {}, onTexts?: RunTexts): { state: CompiledState; stats: SetCompileStats } {
  const snapshot = kept(parsed);
  const cluster = buildCluster(snapshot);
  const { ir, stats } = compileSets(cluster, opts);
  return { state: { snapshot, cluster, ir, stats, setIndex: SetIndex.of(ir.sets), hashed: hashObjects(snapshot.objects, opts.sha256Hex, undefined, undefined, onTexts) }, stats };
}

/**
 * `base` with its compiled form (a warm server) may be compiled from incrementally; its objects
 * alone (a cold one, read from the store) get a full compile of the result.
 */
export function nextVersion(base: CompiledState | { readonly snapshot: ParsedSnapshot }, sent: SnapshotChanges, opts: SetCompileOptions = {}): NextVersion {
  let clusterFrom: NextVersionOk['clusterFrom'] = 'built';
  const changes = 'cluster' in base ? withoutUnchanged(base, sent, opts.sha256Hex) : sent;
  const changed: ChangedObject[] = [
    ...changes.delete.map((r) => ({ kind: r.kind, namespace: r.namespace, name: r.name })),
    ...changes.apply.objects.map((o) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name })),
  ];
  const pods = 'cluster' in base ? podsOnly(base, changes) : null;
  // Policies alone: the previous cluster's pods, namespaces and nodes are the same objects.
  const policies = 'cluster' in base && !pods ? keyedEdits(base, changes, isPolicy) : null;
  // Namespaces alone: pods, nodes and policies are the same objects.
  const namespaces = 'cluster' in base && !pods && !policies ? keyedEdits(base, changes, isNamespace) : null;
  // Nodes alone: pods, namespaces and policies are the same objects.
  const nodes = 'cluster' in base && !pods && !policies && !namespaces ? keyedEdits(base, changes, isNode) : null;
  // Workloads and PodTemplates, pods too or not (a rollout, as a live cluster's watcher sends it), deleting none that takes pods with it.
  const workloads = 'cluster' in base && !pods && !policies && !namespaces && !nodes ? workloadsOnly(base, changes) : null;
  // Anything else but workloads (a deleted one takes its pods: applyChanges): merged in the same way, the cluster built afresh.
  const others = 'cluster' in base && !pods && !policies && !namespaces && !nodes && !workloads ? keyedEdits(base, changes, isNotWorkload) : null;
  let snapshot: ParsedSnapshot;
  let cluster: Cluster | null = null;
  if (pods && 'cluster' in base) {
    snapshot = pods.snapshot;
    // Replaced in place keeps every index; failing that (a pod's workload changed, say), derived.
    cluster = pods.inPlace ? withPodsReplaced(base.cluster, snapshot, pods.replacements) : null;
    if (cluster) clusterFrom = 'replaced';
    else if ((cluster = withPodsDerived(base.cluster, snapshot, pods.changes))) clusterFrom = 'derived';
  } else if (policies && 'cluster' in base) {
    snapshot = policies.snapshot;
    if ((cluster = withPoliciesChanged(base.cluster, snapshot))) clusterFrom = 'policies';
  } else if (namespaces && 'cluster' in base) {
    snapshot = namespaces.snapshot;
    if (namespaces.inPlace && (cluster = withNamespacesReplaced(base.cluster, snapshot, namespaces.replacements))) clusterFrom = 'namespaces';
  } else if (nodes && 'cluster' in base) {
    snapshot = nodes.snapshot;
    if ((cluster = withNodesChanged(base.cluster, snapshot))) clusterFrom = 'nodes';
  } else if (workloads && 'cluster' in base) {
    snapshot = workloads.snapshot;
    if ((cluster = withWorkloadsChanged(base.cluster, snapshot, workloads.changes))) clusterFrom = 'workloads';
  } else if (others) {
    snapshot = others.snapshot;
  } else {
    const head = applyChanges(base.snapshot, changes, '$.changes.delete');
    if (!head.ok) return head;
    // A deleted workload's pods went with it.
    changed.push(...head.cascaded);
    snapshot = kept({ ...head.snapshot, resourceVersion: undefined });
  }
  cluster ??= buildCluster(snapshot, 'cluster' in base ? base.cluster : undefined);
  // Only nodes of the whole cluster: a compile for some nodes is no base for the next version.
  let index: SetIndex | undefined;
  const indexOf = (b: CompiledState) => (index ??= b.setIndex ?? SetIndex.of(b.ir.sets));
  const reuse = opts.nodes || !('ir' in base) ? null : changeReuse(base, cluster, changed, () => indexOf(base));
  const { ir, stats, change } = compileSets(cluster, opts, reuse ?? undefined);
  // The index holds sets by id, whatever version they are in: it grows with the new ones (after a
  // full compile, with every set, as the first version's index was built).
  const carried = index ?? (opts.nodes || !('setIndex' in base) ? undefined : base.setIndex);
  if (carried && change) for (const id of change.sets) carried.add(id, ir.sets.get(id)!.definition);
  else if (carried) for (const [id, set] of ir.sets.entries()) carried.add(id, set.definition);
  // Changes merged by key name the keys they edit: only the runs holding them are hashed again.
  const hashed = hashObjects(snapshot.objects, opts.sha256Hex, 'hashed' in base ? base.hashed : undefined, (pods ?? policies ?? namespaces ?? nodes ?? workloads ?? others)?.edits);
  return { ok: true, state: { snapshot, cluster, ir, stats, setIndex: carried, hashed }, stats, incremental: reuse !== null, clusterFrom, changed, change };
}

type Keyed = ParsedSnapshot['objects'][number];

/** What keyedEdits made of a change: the next objects, and what it did to them. */
interface KeyedEdits<T extends Keyed> {
  readonly snapshot: ParsedSnapshot;
  /** Every key stays (only replacements). */
  readonly inPlace: boolean;
  readonly replacements: readonly { readonly before: T; readonly after: T }[];
  readonly removed: readonly T[];
  readonly added: readonly T[];
  /** The keys added, deleted or replaced, sorted (what hashObjects hashes again). */
  readonly edits: readonly string[];
}

/**
 * A change of objects of some kinds only (applied and deleted; applyChanges' semantics: deletes
 * first, each of an object the base has, then applies upserted, the last of one key winning):
 * the next objects are the base's in key order, those objects replaced, taken out or merged in
 * at the places binary search finds, instead of indexing every object again. Null for any other
 * kind, and for a delete of an object the base lacks or of one object twice (applyChanges says so).
 */
function keyedEdits<T extends Keyed>(base: { readonly snapshot: ParsedSnapshot }, changes: SnapshotChanges, isKind: (o: Keyed) => o is T): KeyedEdits<T> | null {
  const sorted = base.snapshot.objects;
  // Per key the object it ends with (null: deleted), and where in the base it is or would go.
  const edits = new Map<string, { readonly at: number; readonly found: boolean; after: T | null }>();
  for (const ref of changes.delete) {
    const key = refKey(ref);
    if (edits.has(key)) return null;
    const at = indexOfKey(sorted, key);
    if (at < 0 || !isKind(sorted[at]!)) return null;
    edits.set(key, { at, found: true, after: null });
  }
  for (const o of changes.apply.objects) {
    if (!isKind(o)) return null;
    const key = snapshotObjectKey(o);
    const earlier = edits.get(key);
    if (earlier) {
      earlier.after = o;
      continue;
    }
    const at = indexOfKey(sorted, key);
    edits.set(key, { at: at >= 0 ? at : -1 - at, found: at >= 0, after: o });
  }
  const keys = [...edits.keys()].sort(byText);
  // The runs between edits are copied as slices and joined once (sorted.ts joinRuns).
  const parts: Keyed[][] = [];
  const replacements: { before: T; after: T }[] = [];
  const removed: T[] = [];
  const added: T[] = [];
  let next = 0;
  for (const e of keys.map((k) => edits.get(k)!)) {
    parts.push(sorted.slice(next, e.at));
    next = e.at;
    const before = e.found ? (sorted[e.at] as T) : null;
    if (before) next = e.at + 1;
    if (e.after) parts.push([e.after]);
    if (before && e.after) replacements.push({ before, after: e.after });
    if (before) removed.push(before);
    if (e.after) added.push(e.after);
  }
  parts.push(sorted.slice(next));
  const objects = joinRuns(parts);
  const ignored = addedKindCounts(base.snapshot.ignored, changes.apply.ignored);
  const snapshot: ParsedSnapshot = { objects, ignored, resourceVersion: undefined, paths: new Map() };
  return { snapshot, inPlace: replacements.length === edits.size, replacements, removed, added, edits: keys };
}

/**
 * The change without what it applies as the base holds it already, once parsed. Parsing keeps
 * only what netpolc reads, so a watcher's update of a Deployment's or ReplicaSet's status, or of
 * a pod's conditions, arrives as the object the base has: it changes nothing. Without them, pods
 * sent with their ReplicaSet's new status are a change of pods (keyedEdits' first path), and a
 * change of nothing else keeps the cluster as it is (an empty change is one of pods, in place).
 * Objects the change also deletes stay (deletes come first: applyChanges).
 */
function withoutUnchanged(base: CompiledState, changes: SnapshotChanges, sha256Hex: SetCompileOptions['sha256Hex']): SnapshotChanges {
  const deleted = new Set(changes.delete.map(refKey));
  const last = new Map<string, Keyed>();
  for (const o of changes.apply.objects) last.set(snapshotObjectKey(o), o);
  const unchanged = new Set<string>();
  for (const [key, o] of last) {
    if (deleted.has(key)) continue;
    const at = indexOfKey(base.snapshot.objects, key);
    if (at >= 0 && objectDigest(base.snapshot.objects[at]!, sha256Hex) === objectDigest(o, sha256Hex)) unchanged.add(key);
  }
  if (unchanged.size === 0) return changes;
  return { ...changes, apply: { ...changes.apply, objects: changes.apply.objects.filter((o) => !unchanged.has(snapshotObjectKey(o))) } };
}

const isPod = (o: Keyed): o is Pod => o.kind === 'Pod';
const isPolicy = (o: Keyed): o is Keyed => POLICY_KINDS.has(o.kind);
const isNamespace = (o: Keyed): o is Namespace => o.kind === 'Namespace';
const isNode = (o: Keyed): o is Node => o.kind === 'Node';
const isNotWorkload = (o: Keyed): o is Keyed => !isWorkload(o);

/** A change of pods only, with what withPodsReplaced and withPodsDerived read of it. */
function podsOnly(base: CompiledState, changes: SnapshotChanges): (KeyedEdits<Pod> & { changes: PodChanges }) | null {
  const e = keyedEdits(base, changes, isPod);
  return e && { ...e, changes: { removed: e.removed.map(podKey), added: [...e.added] } };
}

const isPodOrWorkload = (o: Keyed): o is Keyed => o.kind === 'Pod' || o.kind === 'PodTemplate' || isWorkload(o);

/**
 * A change of pods, workloads and PodTemplates, with what withWorkloadsChanged reads of it; null
 * for any other kind, and when a workload it deletes takes pods with it (applyChanges' cascade).
 */
function workloadsOnly(base: CompiledState, changes: SnapshotChanges): (KeyedEdits<Keyed> & { changes: WorkloadChanges }) | null {
  const e = keyedEdits(base, changes, isPodOrWorkload);
  if (!e || podsOfWorkloads(base.snapshot.objects, deletedWorkloads(changes.delete)).length > 0) return null;
  return { ...e, changes: { removed: e.removed, added: e.added, pods: { removed: e.removed.filter(isPod).map(podKey), added: e.added.filter(isPod) } } };
}
