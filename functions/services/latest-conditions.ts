// Guards a writer puts on moving a cluster's latest version, read from the request: If-Match /
// If-None-Match on the latest version (RFC 9110 13.1.1 / 13.1.2, the version as the entity
// tag: If-Match: "<rv>"), and ?order=numeric for watchers that send etcd revisions and want a
// late retry never to move latest back. Kubernetes promises no order ("Clients must not assume
// that resource versions are numeric or collatable"), so numeric order is the writer's own claim.
// The route reads them (the order query is validated with the route's query); they are checked
// here before compiling, and again by the store at the pointer swap.
import { isCanonicalInteger, unmetCondition, type UnmetCondition } from '../../infra/store/order.js';
import { LatestConditionError, type LatestConditions, type SnapshotStore } from '../../infra/store/types.js';
import { ApiError } from '../errors.js';
import { storeErrors } from './stored-clusters.js';

const ENTITY_TAG = /\s*(W\/)?"([^"]*)"\s*(?:,|$)/y;

/** `*`, or the strong (If-Match) or all (If-None-Match, compared weakly) tags of a list; 400 when malformed. */
function entityTags(header: 'If-Match' | 'If-None-Match', value: string): readonly string[] | '*' {
  if (value.trim() === '*') return '*';
  const tags: string[] = [];
  ENTITY_TAG.lastIndex = 0;
  while (ENTITY_TAG.lastIndex < value.length) {
    const at = ENTITY_TAG.lastIndex;
    const m = ENTITY_TAG.exec(value);
    if (!m || ENTITY_TAG.lastIndex === at) throw new ApiError('bad_request', `${header} must be * or quoted versions, e.g. ${header}: "12345"`);
    // If-Match compares strongly: a weak tag never matches.
    if (!(m[1] && header === 'If-Match')) tags.push(m[2]!);
  }
  if (tags.length === 0 && header === 'If-None-Match') throw new ApiError('bad_request', `${header} must be * or quoted versions, e.g. ${header}: "12345"`);
  return tags;
}

/** Latest-version order a writer may ask for (`?order=`). */
export const LATEST_ORDERS = ['publish', 'numeric'] as const;

/** The request's conditions on the latest version (its If-Match, If-None-Match and validated `order`); undefined when it sets none. */
export function latestConditions(ifMatch: string | undefined, ifNoneMatch: string | undefined, order: (typeof LATEST_ORDERS)[number] | undefined): LatestConditions | undefined {
  if (ifMatch === undefined && ifNoneMatch === undefined && order !== 'numeric') return undefined;
  return {
    ...(ifMatch !== undefined ? { ifMatch: entityTags('If-Match', ifMatch) } : {}),
    ...(ifNoneMatch !== undefined ? { ifNoneMatch: entityTags('If-None-Match', ifNoneMatch) } : {}),
    ...(order === 'numeric' ? { numeric: true } : {}),
  };
}

/** 412 naming the latest version (409 for numeric order); `stored`: the version was stored before the check failed. */
function conditionError(unmet: UnmetCondition, conditions: LatestConditions, cluster: string, version: string, latest: string | null, stored: boolean): ApiError {
  const now = latest === null ? `cluster ${cluster} has no version` : `the latest version of cluster ${cluster} is ${latest}`;
  const why =
    unmet === 'if-match'
      ? `If-Match names ${conditions.ifMatch === '*' ? 'any version' : (conditions.ifMatch as readonly string[]).map((t) => `"${t}"`).join(', ') || 'no strong tag'}, but ${now}`
      : unmet === 'if-none-match'
        ? `If-None-Match ${conditions.ifNoneMatch === '*' ? 'publishes only into a cluster without a version' : 'names the latest version'}, and ${now}`
        : `order=numeric moves latest only to a greater integer: ${!isCanonicalInteger(version) ? `${version} is not a canonical integer` : latest !== null && !isCanonicalInteger(latest) ? `the latest, ${latest}, is not an integer` : `${version} is not greater than the latest, ${latest}`}`;
  const after = stored ? `; ${version} is stored but not latest, and expires after the retention unless made latest (PUT /v1/clusters/${cluster}/latest)` : '';
  return new ApiError(unmet === 'numeric' ? 'conflict' : 'precondition_failed', `${why}${after}`, undefined, { body: { latest, ...(stored ? { version, stored: true } : {}) } });
}

/** Before compiling: a condition the current latest already fails is answered at once. */
export async function checkConditions(store: SnapshotStore, cluster: string, version: string, conditions: LatestConditions | undefined): Promise<void> {
  if (!conditions) return;
  const latest = (await storeErrors(store.latest(cluster)))?.version ?? null;
  const unmet = unmetCondition(conditions, latest, version);
  if (unmet) throw conditionError(unmet, conditions, cluster, version, latest, false);
}

/** The store's refusal at the pointer swap, as the same answer. */
export function conditionErrors<T>(p: Promise<T>, conditions: LatestConditions | undefined): Promise<T> {
  return p.catch((e: unknown) => {
    if (e instanceof LatestConditionError && conditions) throw conditionError(e.unmet, conditions, e.cluster, e.version, e.latest, e.stored);
    throw e;
  });
}
