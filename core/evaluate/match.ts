// Does a subject select a pod, a peer match an endpoint, a port match a flow.
import { labelValue } from '../../schemas/k8s/label-selector.js';
import type { SelectorCache } from '../select/cache.js';
import type { NamespaceMatch, Peer, Policy, PortMatch, Rule } from '../policy/model.js';
import { cidrPeerHolds, rangesHold, ruleAddresses } from '../policy/rule-addresses.js';
import type { NamespaceInfo, PodInfo } from '../snapshot/cluster.js';

/**
 * What matching reads of a cluster: its interned selectors and its namespaces. A Cluster is one;
 * named here so that assembling a cluster (core/cluster.ts, which checks policies against each
 * other with subjectSelects) and matching do not import each other.
 */
export interface MatchScope {
  readonly selectors: SelectorCache;
  readonly namespaces: readonly NamespaceInfo[];
}
import type { Endpoint } from './endpoint.js';

export function subjectSelects(cluster: MatchScope, policy: Policy, pod: PodInfo): boolean {
  // "host-networked pods are not included in subject selection."
  if (pod.hostNetwork) return false;
  const s = policy.subject;
  if (s.type === 'namespace') return pod.namespace === s.namespace && cluster.selectors.matchesPod(s.pods, pod.idx);
  return cluster.selectors.matchesNamespace(s.namespaces, pod.nsIdx) && (s.pods === null || cluster.selectors.matchesPod(s.pods, pod.idx));
}

/** Whether namespace `ns` is picked by `m`, for a subject pod (Self/sameLabels are relative to it). */
export function namespaceMatches(cluster: MatchScope, m: NamespaceMatch, ns: NamespaceInfo, subject: PodInfo): boolean {
  switch (m.type) {
    case 'selector':
      return cluster.selectors.matchesNamespace(m.selector, ns.idx);
    case 'name':
      return ns.name === m.name;
    // KEP-2091: "A value of "Self" matches the subject pod's namespace, while a value of
    // "NotSelf" matches namespaces other than the subject pod's namespace."
    case 'self':
      return ns.name === subject.namespace;
    case 'notSelf':
      return ns.name !== subject.namespace;
    case 'sameLabels':
      return sameLabels(cluster.namespaces[subject.nsIdx]!, ns, m.keys);
    case 'notSameLabels':
      // Read as the complement of sameLabels: KEP-2091 Story 4 says `notSameLabels: [tenant]`
      // equals "Pass sameLabels tenant, then Deny all", i.e. every namespace not sharing the values.
      return !sameLabels(cluster.namespaces[subject.nsIdx]!, ns, m.keys);
  }
}

/**
 * The indexes of the namespaces `m` picks for a subject, ascending: namespaceMatches over every
 * namespace, but a selector's list is resolved once per cluster and a name or Self is one
 * lookup, so a question about a namespaceSelector peer does not walk 5,000 namespaces.
 */
export function namespacesPicked(cluster: MatchScope & { readonly nsByName: ReadonlyMap<string, NamespaceInfo> }, m: NamespaceMatch, subject: PodInfo): readonly number[] {
  switch (m.type) {
    case 'selector':
      return cluster.selectors.namespacesMatching(m.selector);
    case 'name': {
      const ns = cluster.nsByName.get(m.name);
      return ns ? [ns.idx] : [];
    }
    case 'self':
      return [subject.nsIdx];
    default: {
      const out: number[] = [];
      for (const ns of cluster.namespaces) if (namespaceMatches(cluster, m, ns, subject)) out.push(ns.idx);
      return out;
    }
  }
}

/** "To be selected a Namespace must have all of the labels defined in SameLabels, and they must all have the same value as the subject"; empty selects nothing. */
function sameLabels(subjectNs: NamespaceInfo, ns: NamespaceInfo, keys: readonly string[]): boolean {
  if (keys.length === 0) return false;
  return keys.every((k) => {
    const value = labelValue(subjectNs.labels, k);
    return value !== undefined && labelValue(ns.labels, k) === value;
  });
}

export function peerMatches(cluster: MatchScope, peer: Peer, endpoint: Endpoint, subject: PodInfo): boolean {
  switch (peer.type) {
    case 'any':
      return true;
    case 'none':
      return false;
    case 'pods': {
      if (endpoint.kind !== 'pod' || endpoint.pod.hostNetwork) return false;
      const pod = endpoint.pod;
      if (!namespaceMatches(cluster, peer.namespaces, cluster.namespaces[pod.nsIdx]!, subject)) return false;
      return peer.pods === null || cluster.selectors.matchesPod(peer.pods, pod.idx);
    }
    case 'nodes':
      // "It selects the nodeIPs as the peer type by matching on the IPs present in the node.Status.Addresses field"
      return endpoint.kind === 'node' && endpoint.node !== null && cluster.selectors.matchesNode(peer.selector, endpoint.node.idx);
    case 'cidrs': {
      // ipBlock and networks match by address, whatever owns it (pods, nodes, host-network pods).
      const ip = endpoint.ip;
      if (!ip) return false;
      return cidrPeerHolds(peer, ip);
    }
  }
}

/**
 * Whether some peer of the rule matches the endpoint ("at least one item in the from list"): the
 * selector peers one by one, the CIDR peers as the one address set they make together
 * (policy/rule-addresses.ts), so a rule of 10,000 ipBlocks costs a binary search, not a scan.
 */
export function rulePeersMatch(cluster: MatchScope, rule: Rule, endpoint: Endpoint, subject: PodInfo): boolean {
  for (const p of rule.peers) if (p.type !== 'cidrs' && peerMatches(cluster, p, endpoint, subject)) return true;
  const addresses = ruleAddresses(rule);
  return addresses.any && endpoint.ip !== null && rangesHold(addresses.ranges, endpoint.ip);
}

/**
 * Named ports resolve on the destination pod: the subject for ingress, the peer for egress;
 * a destination that is not a pod has no named ports.
 */
export function portMatches(m: PortMatch, port: number, protocol: string, destination: PodInfo | null): boolean {
  if (m.type === 'range') return m.protocol === protocol && m.lo <= port && port <= m.hi;
  if (!destination) return false;
  for (const np of destination.namedPorts) if (np.name === m.name && np.port === port && np.protocol === protocol && (m.protocol === null || m.protocol === np.protocol)) return true;
  return false;
}
