// What one subject's rules can tell apart of the endpoints that own addresses (pods and nodes),
// besides the addresses themselves (addresses.ts): the compiler's classes. Each peer kind of
// match.ts peerMatches reads one thing, so each gives one feature or none:
//  - `pods`: whether the peer selects the pod (host-network pods never: "host-network pods
//    are never subjects nor pod/namespace peers"); a peer relative to the subject's
//    namespace (Self, sameLabels …) is a feature of that namespace;
//  - `nodes`: whether the peer selects the node;
//  - `cidrs`: the address only, read through the rules' cuts, so no feature here;
//  - `any`, `none`: nothing.
// An egress rule's named port also reads the destination pod: what the name resolves to on it
// (ingress named ports resolve on the subject, which its group signature holds).
// Owners alike in every feature share a class. The compiler builds the classes by refinement
// (core/compile/classes.ts); ownerClasses below builds the same ones by key, from match.ts
// itself, to hold that construction to this definition.
import type { Cluster } from '../cluster.js';
import { peerMatches } from '../evaluate/match.js';
import { isRelativePeer, peerKey, type Direction, type Peer, type Rule } from '../policy/model.js';
import type { NodeInfo, PodInfo } from '../snapshot/cluster.js';
import { namedPortValue } from './features.js';

export type PeerFeature =
  | { readonly kind: 'pods'; readonly id: string; readonly peer: Extract<Peer, { type: 'pods' }> }
  | { readonly kind: 'nodes'; readonly id: string; readonly peer: Extract<Peer, { type: 'nodes' }> }
  | { readonly kind: 'named-port'; readonly id: string; readonly name: string };

// Features are keyed by what the peer says: the same selector in ten thousand NetworkPolicies is one feature.
const peerKeys = new WeakMap<Peer, string>();

function peerId(peer: Peer): string {
  let k = peerKeys.get(peer);
  if (k === undefined) peerKeys.set(peer, (k = peerKey(peer)));
  return k;
}

type NodeFeature = Extract<PeerFeature, { kind: 'nodes' }>;

const nodeFeature = (peer: Extract<Peer, { type: 'nodes' }>): NodeFeature => ({ kind: 'nodes', id: `n${peerId(peer)}`, peer });

/** The node features of some rules, each once, in first-seen order: they read no subject, so they hold for every rule of a snapshot at once. */
export function nodeFeatures(rules: readonly Rule[]): NodeFeature[] {
  const out = new Map<string, NodeFeature>();
  for (const rule of rules) {
    for (const peer of rule.peers) {
      if (peer.type !== 'nodes') continue;
      const f = nodeFeature(peer);
      if (!out.has(f.id)) out.set(f.id, f);
    }
  }
  return [...out.values()];
}

/** Whether a `nodes` peer selects the node ("matching on the IPs present in the node.Status.Addresses field" of the nodes it selects). */
export const nodeSelected = (cluster: Cluster, f: NodeFeature, node: NodeInfo): boolean => cluster.selectors.matchesNode(f.peer.selector, node.idx);

/** The features of one subject's rules in one direction, each once (equal ids: equal owner sets within a cluster), by id. */
export function peerFeatures(rules: readonly Rule[], dir: Direction, subject: PodInfo): PeerFeature[] {
  const out = new Map<string, PeerFeature>();
  for (const rule of rules) {
    for (const peer of rule.peers) {
      switch (peer.type) {
        case 'pods': {
          const id = isRelativePeer(peer) ? `p${peerId(peer)}@${subject.namespace}` : `p${peerId(peer)}`;
          if (!out.has(id)) out.set(id, { kind: 'pods', id, peer });
          break;
        }
        case 'nodes': {
          const f = nodeFeature(peer);
          if (!out.has(f.id)) out.set(f.id, f);
          break;
        }
        case 'cidrs':
        case 'any':
        case 'none':
          break;
        default: {
          // A new peer kind must say here what it reads of an endpoint: a type error until it does.
          const unread: never = peer;
          void unread;
        }
      }
    }
    // Egress named ports resolve on each destination pod: pods that resolve a name alike share a value.
    if (dir !== 'egress') continue;
    for (const m of rule.ports ?? []) {
      if (m.type !== 'named') continue;
      const id = `np:${m.name}`;
      if (!out.has(id)) out.set(id, { kind: 'named-port', id, name: m.name });
    }
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An owner's value of a feature, as match.ts reads it; "" when it lacks the feature. */
export function featureValue(cluster: Cluster, f: PeerFeature, subject: PodInfo, owner: { readonly pod: PodInfo } | { readonly node: NodeInfo }): string {
  if ('pod' in owner) {
    if (f.kind === 'named-port') return owner.pod.hostNetwork ? '' : namedPortValue(owner.pod, f.name);
    return f.kind === 'pods' && peerMatches(cluster, f.peer, { kind: 'pod', pod: owner.pod, ip: owner.pod.ips[0] ?? null }, subject) ? '1' : '';
  }
  return f.kind === 'nodes' && peerMatches(cluster, f.peer, { kind: 'node', node: owner.node, ip: owner.node.ips[0] ?? null }, subject) ? '1' : '';
}

/**
 * Classes by key: owner id (pods 0..pods-1, then nodes) → class, 0 for owners without any
 * feature or without an address (they own no point to class); classes numbered by first owner.
 */
export function ownerClasses(cluster: Cluster, features: readonly PeerFeature[], subject: PodInfo): Int32Array {
  const owners: ({ readonly pod: PodInfo } | { readonly node: NodeInfo })[] = [...cluster.pods.map((pod) => ({ pod })), ...cluster.nodes.map((node) => ({ node }))];
  const classOf = new Int32Array(owners.length);
  const ids = new Map<string, number>();
  owners.forEach((o, i) => {
    if (('pod' in o ? o.pod.ips : o.node.ips).length === 0) return;
    const values = features.map((f) => featureValue(cluster, f, subject, o));
    if (values.every((v) => v === '')) return;
    const key = JSON.stringify(values);
    classOf[i] = ids.get(key) ?? ids.set(key, ids.size + 1).get(key)!;
  });
  return classOf;
}
