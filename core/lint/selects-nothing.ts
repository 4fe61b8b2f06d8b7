// selects-no-pods: a policy whose subject matches no pod in the snapshot does nothing here.
//
// NetworkPolicy: "podSelector selects the pods to which this NetworkPolicy object applies";
// ANP/BANP/CNP subject: "Subject defines the pods to which this AdminNetworkPolicy applies",
// and "host-networked pods are not included in subject selection" (match.ts subjectSelects).
// Exact for the snapshot; a policy written ahead of its workloads fires too, which is why it
// is a warning and not an error.
import type { Cluster } from '../cluster.js';
import { selectedPods } from './cells.js';
import type { Policy } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { finding, subjectPath, type Finding } from './types.js';

export function policiesSelectingNoPods(cluster: Cluster): Finding[] {
  const out: Finding[] = [];
  // A repository of policies alone has no pods to select: every policy would fire. The cluster's
  // warnings say the check needs pods or workloads instead.
  if (cluster.pods.length === 0) return out;
  for (const policy of cluster.policies.all) {
    if (selectedPods(cluster, policy).length > 0) continue;
    out.push(finding(policy, 'selects-no-pods', 'warning', subjectPath(policy), why(cluster, policy), 'check the selector against the labels of the pods it is meant for, or delete the policy'));
  }
  return out;
}

function why(cluster: Cluster, policy: Policy): string {
  const s = policy.subject;
  // The same test without the host-network exclusion: does the selector match anything at all?
  const labelsMatch = (p: PodInfo) =>
    s.type === 'namespace'
      ? p.namespace === s.namespace && cluster.selectors.matchesPod(s.pods, p.idx)
      : cluster.selectors.matchesNamespace(s.namespaces, p.nsIdx) && (s.pods === null || cluster.selectors.matchesPod(s.pods, p.idx));
  const candidates = s.type === 'namespace' ? cluster.podsByNamespace.get(s.namespace) ?? [] : cluster.pods;
  if (candidates.some(labelsMatch)) return 'the policy selects only host-network pods, which policies never apply to';
  if (s.type === 'namespace') {
    const here = cluster.podsByNamespace.get(s.namespace) ?? [];
    return here.length === 0 ? `namespace ${s.namespace} has no pods in the snapshot, so the policy applies to nothing` : `no pod in namespace ${s.namespace} matches spec.podSelector, so the policy applies to nothing`;
  }
  const namespaces = cluster.namespaces.filter((ns) => cluster.selectors.matchesNamespace(s.namespaces, ns.idx));
  if (namespaces.length === 0) return 'no namespace in the snapshot matches the subject, so the policy applies to nothing';
  return 'no pod in the snapshot matches the subject, so the policy applies to nothing';
}
