// Which version is latest, and the guards a writer may put on moving it. Kubernetes, API concepts,
// "Resource versions": "Clients must not assume that resource versions are numeric or
// collatable." So the store never compares two versions to decide: latest is the version
// published last (the pointer moves to every version a publish stores, pointer.ts), and the
// listing is in publish order. A writer that knows more than Kubernetes promises (a watcher
// sending etcd revisions) says so with `numeric`; one that must not overwrite another's
// publish names the latest it built on (If-Match).
import type { LatestConditions } from './types.js';

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/** "0", "7", "120" — not "007", "+1", "1e3" or a SHA: only these compare as numbers under `numeric`. */
export const isCanonicalInteger = (version: string): boolean => CANONICAL_INTEGER.test(version);

/** a > b for canonical integers of any length (by digit count, then digits). */
export const integerAbove = (a: string, b: string): boolean => a.length !== b.length ? a.length > b.length : a > b;

export type UnmetCondition = 'if-match' | 'if-none-match' | 'numeric';

/**
 * The first condition that does not hold for moving the latest pointer from `latest` (null: the
 * cluster has no version) to `version`; null when they all hold. A pointer already at `version`
 * moves nowhere, so every condition holds: a retry of a publish that succeeded is not refused.
 */
export function unmetCondition(conditions: LatestConditions | undefined, latest: string | null, version: string): UnmetCondition | null {
  if (!conditions || latest === version) return null;
  const { ifMatch, ifNoneMatch, numeric } = conditions;
  // RFC 9110 13.1.1/13.1.2 with the cluster's latest version as the current representation.
  if (ifMatch !== undefined && (latest === null || (ifMatch !== '*' && !ifMatch.includes(latest)))) return 'if-match';
  if (ifNoneMatch !== undefined && latest !== null && (ifNoneMatch === '*' || ifNoneMatch.includes(latest))) return 'if-none-match';
  // Both integers and this one greater; a cluster without a version has nothing to go back from.
  if (numeric && (!isCanonicalInteger(version) || (latest !== null && !(isCanonicalInteger(latest) && integerAbove(version, latest))))) return 'numeric';
  return null;
}
