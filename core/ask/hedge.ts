// What an answer cannot vouch for, said in its sentence when it could change the answer: other
// engines' policies that were not evaluated, host-network pods answered as their node, objects
// a lenient reading left out. The full list stays in the answer's `warnings`.
import type { Cluster } from '../cluster.js';
import type { PodInfo } from '../snapshot/cluster.js';

const plural = (kind: string, n: number) => (n === 1 ? kind : kind.endsWith('y') ? `${kind.slice(0, -1)}ies` : `${kind}s`);
const list = (xs: readonly string[]) => (xs.length <= 1 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/**
 * " — but 2 CiliumNetworkPolicies were not evaluated and may deny it", or "". `allowed`: the
 * answer's outcome (null when mixed, or a set of pods); `pods`: the endpoints it is about.
 */
export function hedge(cluster: Cluster, allowed: boolean | null, pods: readonly (PodInfo | null)[]): string {
  const parts: string[] = [];
  const kinds = Object.entries(cluster.notEvaluated);
  if (kinds.length > 0) {
    const n = kinds.reduce((sum, [, c]) => sum + c, 0);
    // parseSnapshot counts them as `Kind (apiVersion)`.
    const named = kinds.map(([k, c]) => `${c} ${plural(k.slice(0, k.indexOf(' (')), c)}`);
    // They select and allow or deny traffic too: an allowed flow may be denied, a denied one allowed.
    parts.push(`${list(named)} ${n === 1 ? 'was' : 'were'} not evaluated and may ${allowed === true ? 'deny it' : allowed === false ? 'allow it' : 'change it'}`);
  }
  // "host-networked pods are not included in subject selection": their traffic is their node's.
  const host = [...new Set(pods.filter((p): p is PodInfo => p !== null && p.hostNetwork).map((p) => p.key))];
  if (host.length > 0) parts.push(`${list(host)} ${host.length === 1 ? 'is a host-network pod, answered as its node' : 'are host-network pods, answered as their nodes'}`);
  if (cluster.leftOut > 0) parts.push(`${cluster.leftOut} invalid object${cluster.leftOut === 1 ? ' was' : 's were'} left out`);
  return parts.length === 0 ? '' : ` — but ${parts.join('; ')}`;
}

/** The sentence with the hedge before its final full stop. */
export function hedged(text: string, hedgeText: string): string {
  return hedgeText === '' ? text : `${text.replace(/\.$/, '')}${hedgeText}.`;
}

/**
 * Said with every answer about traffic from outside the cluster. The NetworkPolicy docs:
 * "cluster ingress and egress mechanisms often require rewriting the source or destination IP
 * of packets. In cases where this happens, it is not defined whether this happens before or
 * after NetworkPolicy processing".
 */
export const SOURCE_REWRITE =
  'NetworkPolicy sees a client\'s address only where it is preserved: a load balancer, NodePort or ingress controller that rewrites it makes the traffic come from a node or a proxy pod instead (whether before or after NetworkPolicy processing is not defined)';
