// The pods whose tables a policy change can change: those a changed policy selects as its
// subject, before or after the change. A pod's tables are made of what the policies selecting
// it say (compile/group.ts: each tier's rules in order, whether the NetworkPolicy tier
// isolates); a policy that selects the pod on neither side is not among them, and tables name
// sets by definition, never by policy. So every other pod keeps its tables, and every set its
// members: members are what a definition selects of pods, namespaces and nodes, none of which
// a policy change touches.
import { POLICY_KINDS, type Cluster } from '../cluster.js';
import { subjectSelects } from '../evaluate/match.js';
import type { Policy } from '../policy/model.js';
import { refKey } from '../preview/changes.js';

/** An object a change applied or deleted. */
export interface ChangedObject {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/**
 * Keys of the pods a changed policy selects as its subject in `before` or in `after`, whatever
 * its policyTypes (a superset is only slower). A NetworkPolicy "selects particular Pods in the
 * same namespace", so only that namespace's pods are tried.
 */
export function policySubjectKeys(before: Cluster, after: Cluster, changed: readonly ChangedObject[]): Set<string> {
  const policies = changed.filter((o) => POLICY_KINDS.has(o.kind));
  const refs = new Set(policies.map(refKey));
  // Names first: a key is a new string, and L has 75,000 policies to look through.
  const names = new Set(policies.map((o) => o.name));
  const keys = new Set<string>();
  if (refs.size === 0) return keys;
  for (const cluster of [before, after]) {
    for (const policy of cluster.policies.all) if (names.has(policy.ref.name) && refs.has(refKey(policy.ref))) addSubjects(cluster, policy, keys);
  }
  return keys;
}

function addSubjects(cluster: Cluster, policy: Policy, into: Set<string>): void {
  const s = policy.subject;
  const pods = s.type === 'namespace' ? (cluster.podsByNamespace.get(s.namespace) ?? []) : cluster.pods;
  for (const pod of pods) if (subjectSelects(cluster, policy, pod)) into.add(pod.key);
}
