// The pods whose tables a policy change can change, per direction: those a changed policy
// selects as its subject, before or after the change, for each direction in which what the
// compiler reads of the policy differs. A pod's table for a direction is made of what the
// policies selecting it for that direction say (compile/group.ts: each tier's rules in order,
// whether the NetworkPolicy tier isolates; evaluate/decide.ts subjectPolicies reads a policy for
// a direction only when it has rules for it); a policy that selects the pod on neither side is
// not among them, and tables name sets by definition, never by policy. So every other pod keeps
// its tables (and a subject keeps its table for a direction the policy reads the same in), and
// every set its members: members are what a definition selects of pods, namespaces and nodes,
// none of which a policy change touches. Each tier of a table is made of that tier's policies
// alone (sets/tables.ts), so a subject whose changed policies are all of the Admin tier keeps
// its NetworkPolicy and Baseline tiers (belowAdmin says which are not).
import { POLICY_KINDS, type Cluster } from '../cluster.js';
import { subjectSelects } from '../evaluate/match.js';
import { rulesFor, ruleKey, type Direction, type Policy } from '../policy/model.js';
import { refKey } from '../preview/changes.js';

/** An object a change applied or deleted. */
export interface ChangedObject {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** Keys of the pods whose table for each direction a policy change may change. */
export interface PolicySubjects {
  readonly ingress: ReadonlySet<string>;
  readonly egress: ReadonlySet<string>;
  /**
   * Those of them a changed policy of the NetworkPolicy or Baseline tier (on either side of the
   * change) selects: the others' tables differ from the earlier ones in their Admin tier alone.
   */
  readonly belowAdmin: { readonly ingress: ReadonlySet<string>; readonly egress: ReadonlySet<string> };
}

const DIRECTIONS: readonly Direction[] = ['ingress', 'egress'];

/**
 * Keys of the pods a changed policy selects as its subject in `before` or in `after`, for each
 * direction its reading differs in (directionView), whatever else (a superset is only slower).
 * A NetworkPolicy "selects particular Pods in the same namespace", so only that namespace's
 * pods are tried.
 */
export function policySubjectKeys(before: Cluster, after: Cluster, changed: readonly ChangedObject[]): PolicySubjects {
  const keys = { ingress: new Set<string>(), egress: new Set<string>() };
  const belowAdmin = { ingress: new Set<string>(), egress: new Set<string>() };
  const policies = changed.filter((o) => POLICY_KINDS.has(o.kind));
  if (policies.length === 0) return { ...keys, belowAdmin };
  const refs = new Set(policies.map(refKey));
  // Names first: a key is a new string, and L has 75,000 policies to look through.
  const names = new Set(policies.map((o) => o.name));
  const found = (cluster: Cluster) => {
    const out = new Map<string, Policy>();
    for (const policy of cluster.policies.all) if (names.has(policy.ref.name) && refs.has(refKey(policy.ref))) out.set(refKey(policy.ref), policy);
    return out;
  };
  const [was, is] = [found(before), found(after)];
  for (const ref of refs) {
    const [p, q] = [was.get(ref), is.get(ref)];
    const dirs = DIRECTIONS.filter((d) => directionView(before, p, d) !== directionView(after, q, d));
    if (dirs.length === 0) continue;
    // A ClusterNetworkPolicy may move between tiers: a side of either tier counts for it.
    const into = (p && p.tier !== 'admin') || (q && q.tier !== 'admin') ? [keys, belowAdmin] : [keys];
    if (p) addSubjects(before, p, dirs, into);
    if (q) addSubjects(after, q, dirs, into);
  }
  return { ...keys, belowAdmin };
}

function addSubjects(cluster: Cluster, policy: Policy, dirs: readonly Direction[], into: readonly Record<Direction, Set<string>>[]): void {
  const s = policy.subject;
  const pods = s.type === 'namespace' ? (cluster.podsByNamespace.get(s.namespace) ?? []) : cluster.pods;
  for (const pod of pods) if (subjectSelects(cluster, policy, pod)) for (const d of dirs) for (const keys of into) keys[d].add(pod.key);
}

/**
 * Everything the compiler reads of a policy for one direction, as text comparable across two
 * clusters (selectors by their canonical keys, not by ids, which are each cluster's): '' when
 * it reads nothing (absent, or without rules for the direction: decide.ts subjectPolicies), else
 * its place among the policies (id, tier, priority), whether it is a legacy one (allows only,
 * isolates by the namespace's annotation), whom it selects, and its rules for the direction in
 * order (compile/group.ts reads what each says: action, peers, ports).
 */
export function directionView(cluster: Cluster, policy: Policy | undefined, dir: Direction): string {
  const rules = policy ? rulesFor(policy, dir) : null;
  if (!policy || rules === null || (policy.tier !== 'networkpolicy' && rules.length === 0)) return '';
  const key = (id: number | null) => (id === null ? '*' : JSON.stringify(cluster.selectors.selector(id).key));
  const s = policy.subject;
  const subject = s.type === 'namespace' ? `ns ${JSON.stringify(s.namespace)} ${key(s.pods)}` : `cluster ${key(s.namespaces)} ${key(s.pods)}`;
  return `${policy.id}|${policy.tier}|${policy.priority}|${policy.legacy}|${subject}|${rules.map((r) => ruleKey(r, key)).join('\n')}`;
}
