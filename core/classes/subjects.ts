// Policy-subject pods of one snapshot grouped by what a comparison can see of them (features.ts):
// lint answers coverage questions once per group.
import { isRelativePeer, type Direction, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { familiesKey, FULL_DETAIL, podKey, type PodDetail } from './features.js';

/** What a comparison of `rules` alone can see of a subject (labels: only if the caller consults other policies). */
export function detailFor(rules: readonly Rule[], dir: Direction, labels: boolean): PodDetail {
  return {
    labels,
    namespace: rules.some((r) => r.peers.some(isRelativePeer)),
    namedPorts: dir === 'ingress' && rules.some((r) => (r.ports ?? []).some((m) => m.type === 'named')),
  };
}

const fullKeys = new WeakMap<PodInfo, string>();

/** Everything the matchers read about a pod except its address (its families only). */
function fullKey(p: PodInfo): string {
  let k = fullKeys.get(p);
  if (k === undefined) fullKeys.set(p, (k = podKey(p, String(p.nsIdx), familiesKey(p))));
  return k;
}

/** Policy-subject pods (never host-network) grouped by what `detail` can see, in first-seen order. */
export function subjectClasses(pods: Iterable<PodInfo>, detail: PodDetail = FULL_DETAIL): PodInfo[][] {
  const full = detail.labels && detail.namespace && detail.namedPorts;
  const groups = new Map<string, PodInfo[]>();
  for (const p of pods) {
    if (p.hostNetwork) continue;
    const k = full ? fullKey(p) : podKey(p, String(p.nsIdx), familiesKey(p), detail);
    const g = groups.get(k);
    if (g) g.push(p);
    else groups.set(k, [p]);
  }
  return [...groups.values()];
}
