// What a snapshot's answers cannot vouch for or leave out, said once per cluster (Cluster.warnings):
// produced while indexing objects (snapshot/cluster.ts), converting policies
// (policy/from-cluster-policy.ts) and assembling the cluster (cluster.ts).
import type { ObjectRef } from '../schemas/object-key.js';

/** Every cluster warning's stable kebab-case code, listed once with what it says. */
export const WARNING_CODES = {
  'namespace-assumed': 'pods or workloads name a namespace the snapshot has no Namespace object for; assumed with only its name label',
  'address-shared': 'an address more than one endpoint claims; the first one owns it',
  'finished-pods-left-out': 'Succeeded or Failed pods are not endpoints: they neither send nor receive',
  'host-network-pods': 'host-network pods are answered as their node: no policy selects them',
  'pod-on-missing-node': 'a pod runs on a node the snapshot lacks (when it has nodes)',
  'domain-names-not-evaluated': 'a domainNames peer matches no flow: a snapshot has no DNS answers',
  'unknown-peer-fail-closed': 'a peer with no field this version knows fails closed (Allow: nothing; Deny/Pass: everything)',
  'named-port-with-networks': 'a v1alpha2 egress rule sets destinationNamedPort with a networks peer, which the standard-channel CRD admits and the experimental one refuses; the named port resolves on the pods whose addresses are in those networks',
  'draft-spelling': 'a v1alpha2 ClusterNetworkPolicy uses a KEP-2091 draft spelling, which the v1alpha2 API server rejects (strict field validation) or prunes; read with its draft meaning',
  'field-ignored': 'a v1alpha1 policy sets a field its apiVersion lacks (BaselineAdminNetworkPolicy priority, a tier matching its kind); ignored, as the API server prunes it, which does not change what the policy means',
  'same-priority-order': 'two same-tier policies share a priority and select one pod; evaluated in name order',
  'policy-kinds-not-evaluated': "other engines' policies (Cilium, Calico) in the input are not evaluated",
  'kinds-ignored': 'objects of kinds policy evaluation does not read',
  'object-left-out': 'an invalid object or document a lenient reading left out',
  'no-pods': 'the input has no pods and no workloads',
  'rollout-template-missing': "an Argo Rollout takes its pod template (workloadRef) from a Deployment, ReplicaSet or PodTemplate the input does not hold: its pods are unknown and left out",
} as const satisfies Record<string, string>;

export type WarningCode = keyof typeof WARNING_CODES;

/**
 * One cluster warning. Internal for now: every output (HTTP bodies, CLI, previews, bench)
 * renders a warning as its `message` alone (warningMessages), so bodies stay as they were.
 */
export interface ClusterWarning {
  readonly code: WarningCode;
  /** The object it is about, when it is about one. */
  readonly object?: ObjectRef;
  /**
   * Where: inside `object` (`spec.ingress[0].from[1]`, as lint findings' `path`), except for
   * `object-left-out`, about what the cluster does not have: there it is where the problem is
   * in the input (`$.items[3].spec…`; the CLI names the file and document).
   */
  readonly path?: string;
  /** The text every output shows. */
  readonly message: string;
}

/** The warnings as outputs show them: each one's text. */
export const warningMessages = (warnings: readonly ClusterWarning[]): string[] => warnings.map((w) => w.message);
