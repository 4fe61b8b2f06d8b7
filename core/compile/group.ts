// Pods that the same policies select (with the same resolved named ports) compile to the
// same table: their policy signature is the grouping key.
import type { Cluster } from '../cluster.js';
import { subjectPolicies, type SubjectPolicies } from '../evaluate/decide.js';
import { rulesFor, type Direction, type Peer, type Policy, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';

export interface Group {
  readonly signature: string;
  readonly dir: Direction;
  /** A pod of the group; every pod of the group gets the same verdicts. */
  readonly representative: PodInfo;
  /** Policies that select the pod for this direction, in tier order. */
  readonly policies: readonly Policy[];
  /** The same, per tier, as the verdict engine reads them. */
  readonly sp: SubjectPolicies;
  readonly rules: readonly Rule[];
}

const RELATIVE = new Set(['self', 'notSelf', 'sameLabels', 'notSameLabels']);

function isRelative(p: Peer): boolean {
  return p.type === 'pods' && RELATIVE.has(p.namespaces.type);
}

export function groupOf(cluster: Cluster, pod: PodInfo, dir: Direction): Group {
  // The engine's own reading of which policies select the pod (decide.ts), kept for partition.
  const sp = subjectPolicies(cluster, dir, pod);
  const policies = [...sp.admin, ...sp.nps, ...sp.baseline];
  const rules = policies.flatMap((p) => rulesFor(p, dir)!);
  const parts: string[] = [dir, policies.map((p) => p.id).join(',')];
  // The proposal's namespace annotation isolates ingress by itself.
  if (dir === 'ingress' && cluster.namespaces[pod.nsIdx]!.legacyIngressIsolation) parts.push('legacy-isolated');
  // Namespace-relative peers (Self, sameLabels, …) depend on the subject's namespace.
  if (rules.some((r) => r.peers.some(isRelative))) parts.push(`ns=${pod.namespace}`);
  // Ingress named ports resolve on the subject itself.
  if (dir === 'ingress') {
    const names = new Set(rules.flatMap((r) => (r.ports ?? []).filter((m) => m.type === 'named').map((m) => (m.type === 'named' ? m.name : ''))));
    if (names.size > 0) parts.push(pod.namedPorts.filter((np) => names.has(np.name)).map((np) => `${np.name}=${np.port}/${np.protocol}`).sort().join(','));
  }
  return { signature: parts.join('|'), dir, representative: pod, policies, sp, rules };
}

/**
 * groupOf, once per pod identity: what groupOf reads of a pod is its namespace, its labels
 * (selection) and, for ingress, its named ports; replicas of a Deployment share all three.
 * Equal identity strings mean equal inputs (label order may differ between pods; that only
 * costs a cache miss).
 */
export function groupsByIdentity(cluster: Cluster): (pod: PodInfo, dir: Direction) => Group {
  const seen = new Map<string, Group>();
  return (pod, dir) => {
    const identity = `${dir}|${pod.nsIdx}|${JSON.stringify(pod.labels)}${dir === 'ingress' ? `|${JSON.stringify(pod.namedPorts)}` : ''}`;
    let group = seen.get(identity);
    if (!group) seen.set(identity, (group = groupOf(cluster, pod, dir)));
    return group;
  };
}
