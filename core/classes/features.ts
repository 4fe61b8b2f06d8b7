// What a rule can read of an endpoint, written down once. Two endpoints the rules cannot tell
// apart share a class, and every class construction (compile, lint, preview, ask) keys its
// endpoints with these functions, so a fact the matchers start to read is added here for all.
//
// evaluate/match.ts and engine.ts read, of a peer or subject pod: its namespace (name, labels,
// and the proposal's isolation annotation), its labels, whether it is host-network (then it is
// its node's address, never a pods peer nor a subject), its named ports (resolved on the
// destination), and its addresses (CIDR peers, per family: addresses.ts). Of a node: its
// labels (`nodes` peers) and its addresses. The node a pod runs on only matters to
// "traffic from the node where a Pod is running is always allowed", a relation between two
// endpoints that constructions keep beside the class (preview per member, ask as locality).
import { cidrPeerHolds } from '../policy/rule-addresses.js';
import type { Peer } from '../policy/model.js';
import type { NamespaceInfo, PodInfo } from '../snapshot/cluster.js';

/** Labels in key order, as one string: equal for equal label sets. */
export const labelKey = (labels: Readonly<Record<string, string>>): string => JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** A namespace as rules read it across snapshots, where its index is not stable: name, labels and the isolation annotation decide.ts reads. */
export const namespaceKey = (ns: NamespaceInfo): string => `${ns.name}|${labelKey(ns.labels)}|${ns.legacyIngressIsolation ? 'deny' : ''}`;

/** A pod's named ports as a set: a rule's named port matches if any declaration does (match.ts portMatches). */
export const namedPortsKey = (p: PodInfo): string => p.namedPorts.map((n) => `${n.name}/${n.port}/${n.protocol}`).sort().join(',');

/**
 * A pod's named ports in declaration order: a port asked by name resolves to the first
 * declaration of that name (resolve.ts resolvePort, ask/describe.ts namedPort), so questions
 * naming a port read the order.
 */
export const namedPortsInOrderKey = (p: PodInfo): string => JSON.stringify(p.namedPorts);

/** What one port name resolves to on a pod ("" when it has none; several values sorted): all an egress rule naming it reads of the destination. */
export function namedPortValue(pod: PodInfo, name: string): string {
  let one = '';
  let several: string[] | null = null;
  for (const np of pod.namedPorts) {
    if (np.name !== name) continue;
    const v = `${np.port}/${np.protocol}`;
    if (one === '') one = v;
    else (several ??= [one]).push(v);
  }
  return several ? several.sort().join(',') : one;
}

/** The families a pod has addresses in: a flow is evaluated in one family both ends have. */
export const familiesKey = (p: PodInfo): string => [...new Set(p.ips.map((i) => i.family))].sort().join(',');

/**
 * A pod's address families in address order: a flow between named endpoints takes the
 * destination's primary family the source also has (resolve.ts chooseFamily).
 */
export const familySequenceKey = (p: PodInfo): string => p.ips.map((i) => i.family).join();

/** For each CIDR peer, per address of the pod, whether the peer matches it (match.ts peerMatches, `cidrs`). */
export const cidrMembershipKey = (peers: readonly Extract<Peer, { type: 'cidrs' }>[], pod: PodInfo): string =>
  peers.map((p) => pod.ips.map((ip) => +cidrPeerHolds(p, ip)).join('')).join('.');

/** Which of a pod's facts a comparison can see (lint: a rule set alone sees less than the whole policy set). */
export interface PodDetail {
  readonly labels: boolean;
  readonly namespace: boolean;
  readonly namedPorts: boolean;
}

export const FULL_DETAIL: PodDetail = { labels: true, namespace: true, namedPorts: true };

/**
 * The pod facts rules read besides addresses, as one key: `namespace` is the caller's key of
 * the pod's namespace (its index within one snapshot, namespaceKey across two) and `addresses`
 * the caller's key of its addresses (familiesKey, or the CIDR intervals they fall in).
 */
export function podKey(p: PodInfo, namespace: string, addresses: string, detail: PodDetail = FULL_DETAIL): string {
  return `${detail.namespace ? namespace : ''}|${detail.labels ? labelKey(p.labels) : ''}|${detail.namedPorts ? namedPortsKey(p) : ''}|${addresses}`;
}
