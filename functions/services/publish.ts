// Writing a version: a whole snapshot (PUT/POST), or changes on a stored base version (PUT with
// {base, changes}), which a watcher sends instead of the whole cluster. Both end in the same
// compiled state and the same store write; the changes path compiles incrementally when the
// server still holds the base (compiled-versions.ts) and only pods changed. The version stored
// becomes the cluster's latest (it is the last published) unless the request's conditions on
// the latest (latest-conditions.ts) fail.
import type { Sha256Hex } from '../../core/compile/index.js';
import { compiledState, nextVersion, type CompiledState, type SetCompileStats, type SetFormChange } from '../../core/sets/index.js';
import { noEndpointObjects } from '../../core/cluster.js';
import { formerSnapshotHash, snapshotHash } from '../../core/snapshot/index.js';
import { assembledSnapshots } from '../body.js';
import { isChangesBody, VersionFromChangesSchema } from '../../schemas/api/versions.js';
import { formatPath, parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import type { CompiledSnapshot, LatestConditions, SnapshotStore, VersionHeader } from '../../infra/store/types.js';
import type { CompiledVersions } from '../compiled-versions.js';
import { ApiError, invalid } from '../errors.js';
import type { Metrics } from '../ops/metrics.js';
import type { PollIndex } from '../poll-index.js';
import { checkConditions, conditionErrors } from './latest-conditions.js';
import { requireStore, storeErrors } from './stored-clusters.js';

export interface PublishDeps {
  readonly store: SnapshotStore | undefined;
  readonly sha256Hex: Sha256Hex | undefined;
  readonly metrics: Metrics;
  readonly warm: CompiledVersions;
  /** Node polls' view of stored clusters, forgotten for a cluster this process writes. */
  readonly polls: PollIndex | null;
  /** Settle pointer moves after the answer (AppDeps.settleAfterAnswer). */
  readonly settleAfterAnswer: boolean;
}

/** What a publish is asked: PUT …/snapshots/{version} (version from the path) or POST …/snapshots (null: from the List's metadata.resourceVersion). */
export interface PublishRequest {
  readonly cluster: string;
  readonly versionFromPath: string | null;
  readonly conditions: LatestConditions | undefined;
  /** The body, read only once the conditions the latest already fails have been answered. */
  readonly body: () => Promise<unknown>;
  /** A Worker's waitUntil, which keeps work after the answer alive; null elsewhere. */
  readonly waitUntil: ((work: Promise<unknown>) => void) | null;
}

export interface Published {
  readonly status: 200 | 201;
  readonly body: { cluster: string; version: string; status: 'created' | 'unchanged'; latest: boolean; header: VersionHeader } & Record<string, unknown>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The body is the snapshot (or a change), or {snapshot: …}; a YAML body of objects arrives as
 * {snapshot: List} from parseBody, with the List's resourceVersion. `at`: where the snapshot is
 * in the body the client wrote, for the paths of its problems.
 */
function publishedSnapshot(body: unknown): { snapshot: unknown; at: string } {
  if (!(isObject(body) && 'snapshot' in body && !('items' in body))) return { snapshot: body, at: '$' };
  return { snapshot: body.snapshot, at: assembledSnapshots.has(body) ? '$' : '$.snapshot' };
}

/** A version with no pod, workload or node has nothing to compile for: a 422 saying what it holds, as /v1/compile answers. */
function requireEndpoints(snapshot: ParsedSnapshot, at: string): void {
  const empty = noEndpointObjects(snapshot);
  if (empty) throw invalid([{ path: at, message: empty }]);
}

/**
 * The body as changes, or parsed as a whole snapshot. The request's JSON lives only in this
 * frame: an L snapshot's parsed JSON (~350 MB of small objects) kept through the compile is
 * marked by every full collection, and near a thread's heap budget those run back to back.
 */
async function readInput(req: PublishRequest): Promise<{ kind: 'changes'; body: unknown } | { kind: 'whole'; snapshot: ParsedSnapshot }> {
  const { snapshot: body, at } = publishedSnapshot(await req.body());
  if (isChangesBody(body)) return { kind: 'changes', body };
  const parsed = parseSnapshot(body, at);
  if (!parsed.ok) throw invalid(parsed.issues);
  requireEndpoints(parsed.snapshot, at);
  return { kind: 'whole', snapshot: parsed.snapshot };
}

export class Publisher {
  constructor(private readonly deps: PublishDeps) {}

  async publish(req: PublishRequest): Promise<Published> {
    const store = requireStore(this.deps.store);
    const { cluster, versionFromPath, conditions } = req;
    // The version is in the path: a condition the latest already fails costs no parse or compile.
    if (versionFromPath !== null) await checkConditions(store, cluster, versionFromPath, conditions);
    const input = await readInput(req);
    if (input.kind === 'changes') {
      if (versionFromPath === null) throw invalid([{ path: '$.changes', message: 'a version from changes needs its resourceVersion: PUT …/snapshots/{resourceVersion}' }]);
      return this.publishChanges(store, req, input.body, versionFromPath);
    }
    const parsed = input;
    let version = versionFromPath ?? (parsed.snapshot.resourceVersion || undefined);
    let derived: Record<string, unknown> = {};
    if (version === undefined) {
      // kubectl prints `metadata: {resourceVersion: ""}` on the Lists it builds (`kubectl get -o
      // yaml`): there is no version to use, so the content names one. The same content POSTed
      // again is the same version (200 unchanged).
      version = `sha256-${snapshotHash(parsed.snapshot.objects, this.deps.sha256Hex).slice(0, 20)}`;
      derived = { versionDerived: true, message: `the List's metadata.resourceVersion is empty or absent (kubectl prints resourceVersion: "" on Lists), so the version is derived from the snapshot's content: ${version}; PUT …/snapshots/{resourceVersion} to name it` };
    }
    if (versionFromPath === null) await checkConditions(store, cluster, version, conditions);
    const started = performance.now();
    // The object groups are encoded as the snapshot hash writes each object's text, not again in the publish.
    const groups = store.objectGroupEncoder?.() ?? null;
    const { state, stats } = compiledState(parsed.snapshot, this.deps.sha256Hex ? { sha256Hex: this.deps.sha256Hex } : {}, groups?.onTexts);
    this.deps.metrics.compile.observe((performance.now() - started) / 1000, { form: 'ir' });
    return this.storeVersion(store, req, version, state, stats, started, derived, undefined, false, undefined, groups?.encoded);
  }

  private async publishChanges(store: SnapshotStore, req: PublishRequest, body: unknown, version: string): Promise<Published> {
    const { cluster } = req;
    const parsedReq = VersionFromChangesSchema.safeParse(body);
    if (!parsedReq.success) throw invalid(parsedReq.error.issues.map((i) => ({ path: formatPath('$', i.path), message: i.message })));
    const { base: baseVersion, changes } = parsedReq.data;
    const started = performance.now();
    // Headers alone and the pointer alone: one round trip, all at once.
    const [header, latestVersion, existing] = await Promise.all([storeErrors(store.getSummary(cluster, baseVersion)), storeErrors(store.latestVersion(cluster)), storeErrors(store.getSummary(cluster, version))]);
    // Never a silent full recompute of something else: the watcher must resend on a base that
    // exists, and on the latest one (changes on an older base would drop the versions between),
    // unless this version is already stored (a retry, answered 200 or 409 by its content).
    if (!header || (baseVersion !== latestVersion && !existing)) {
      const why = !header ? `is not stored (or has expired)` : `is not the latest version`;
      throw new ApiError('conflict', `base version ${baseVersion} of cluster ${cluster} ${why}; ${latestVersion === null ? 'the cluster has no version: PUT a whole snapshot first' : `the latest is ${latestVersion}: send the changes on it, or a whole snapshot`}`, undefined, { body: { latest: latestVersion } });
    }
    const warm = this.deps.warm.get(cluster, baseVersion, header.snapshotHash);
    const base: CompiledState | { snapshot: ParsedSnapshot } = warm ?? { snapshot: await storedSnapshot(store, cluster, baseVersion, header.ignored) };
    const apply = parseSnapshot(changes.apply, '$.changes.apply');
    if (!apply.ok) throw invalid(apply.issues);
    const next = nextVersion(base, { apply: apply.snapshot, delete: changes.delete }, this.deps.sha256Hex ? { sha256Hex: this.deps.sha256Hex } : {});
    if (!next.ok) throw invalid(next.issues);
    requireEndpoints(next.state.snapshot, '$.changes');
    this.deps.metrics.compile.observe((performance.now() - started) / 1000, { form: 'ir' });
    return this.storeVersion(store, req, version, next.state, next.stats, started, { base: baseVersion, changed: next.changed.length, incremental: next.incremental, warm: warm !== null }, next.change, existing === null, baseVersion);
  }

  private async storeVersion(store: SnapshotStore, req: PublishRequest, version: string, state: CompiledState, stats: SetCompileStats, started: number, extra: Record<string, unknown>, change?: SetFormChange, headerAbsent = false, base?: string, encodedRuns?: CompiledSnapshot['encodedRuns']): Promise<Published> {
    const { cluster, conditions } = req;
    const { deps } = this;
    const objects: Record<string, number> = {};
    for (const o of state.snapshot.objects) objects[o.kind] = (objects[o.kind] ?? 0) + 1;
    const hash = state.hashed.hash;
    const compiled = { snapshotHash: hash, hashed: state.hashed, formerSnapshotHash: () => formerSnapshotHash(state.snapshot.objects, deps.sha256Hex), objects, compile: { ...stats, durationMs: Math.round(performance.now() - started) }, ir: state.ir, items: state.snapshot.objects, ignored: state.snapshot.ignored, ...(change ? { change } : {}), ...(encodedRuns ? { encodedRuns } : {}) };
    // Whether this publish may answer before its pointer move is settled, and what keeps that
    // work alive: the process itself when it outlives its answers, a Worker's waitUntil. Lambda
    // freezes the process after answering, so it settles first (null).
    const later = deps.settleAfterAnswer ? () => undefined : req.waitUntil;
    const result = await conditionErrors(storeErrors(store.publish(cluster, version, compiled, { ...(conditions ? { conditions } : {}), ...(headerAbsent ? { headerAbsent } : {}), ...(later ? { settleLater: true } : {}), ...(base !== undefined ? { base } : {}) })), conditions);
    later?.(store.settled());
    deps.metrics.publish.observe((performance.now() - started) / 1000, { status: result.status });
    deps.polls?.forget(cluster);
    // The next change most likely comes on the latest version.
    // Keyed by the hash stored (a version stored by an earlier netpolc keeps the hash it computed).
    if (result.latest) deps.warm.set(cluster, { version, snapshotHash: result.header.snapshotHash, state });
    return { status: result.status === 'created' ? 201 : 200, body: { cluster, version, status: result.status, latest: result.latest, header: result.header, ...extra } };
  }
}

/** A stored version's objects, as the snapshot the changes apply to. */
async function storedSnapshot(store: SnapshotStore, cluster: string, version: string, ignored: Readonly<Record<string, number>> = {}): Promise<ParsedSnapshot> {
  const objects = await storeErrors(store.getSnapshotObjects(cluster, version));
  if (!objects) throw new ApiError('conflict', `base version ${version} of cluster ${cluster} was stored without its objects (by an older netpolc) or has just expired: send a whole snapshot`, undefined, { body: { latest: null } });
  return { objects: [...objects], ignored: { ...ignored }, resourceVersion: version, paths: new Map() };
}
