// NetworkPolicy (networking.k8s.io/v1) and the legacy proposal form (extensions/v1beta1)
// into the shared Policy shape.
import type { LegacyNetworkPolicy, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from '../../schemas/k8s/network-policy.js';
import { parseCidr, type IpRange } from '../net/ip.js';
import type { SelectorCache } from '../select/cache.js';
import type { Peer, Policy, PortMatch, Rule } from './model.js';

const ANY: Peer = { type: 'any' };

function peerOf(p: Omit<NetworkPolicyPeer, 'ipBlock'> & { ipBlock?: NetworkPolicyPeer['ipBlock'] }, namespace: string, selectors: SelectorCache): Peer {
  if (p.ipBlock) {
    // "ipBlock … cidr … except is a slice of CIDRs that should not be included within an IPBlock"
    return { type: 'cidrs', ranges: [parseCidr(p.ipBlock.cidr)!], except: p.ipBlock.except.map((e) => parseCidr(e)!) as IpRange[] };
  }
  // podSelector alone: "selects particular Pods in the same namespace as the NetworkPolicy";
  // with namespaceSelector: "selects particular Pods within particular namespaces".
  const pods = p.podSelector ? selectors.intern(p.podSelector) : null;
  if (p.namespaceSelector) return { type: 'pods', namespaces: { type: 'selector', selector: selectors.intern(p.namespaceSelector) }, pods };
  return { type: 'pods', namespaces: { type: 'name', name: namespace }, pods };
}

function portOf(p: Pick<NetworkPolicyPort, 'protocol' | 'port'> & { endPort?: number | undefined }): PortMatch {
  // "If this field is not provided, this matches all port names and numbers."
  if (p.port === undefined) return { type: 'range', protocol: p.protocol, lo: 1, hi: 65535 };
  if (typeof p.port === 'string') return { type: 'named', name: p.port, protocol: p.protocol };
  return { type: 'range', protocol: p.protocol, lo: p.port, hi: p.endPort ?? p.port };
}

// A module function, not a closure per policy: tsx keeps function names by defining `name` on
// every named closure it creates (10⁵ policies at L).
// v1: "If this field is empty or missing, this rule matches all sources/destinations/ports."
function ruleOf(index: number, peers: NetworkPolicyPeer[] | null, ports: NetworkPolicyPort[] | null, namespace: string, selectors: SelectorCache): Rule {
  return {
    index,
    action: 'allow',
    peers: peers && peers.length > 0 ? peers.map((p) => peerOf(p, namespace, selectors)) : [ANY],
    ports: ports && ports.length > 0 ? ports.map(portOf) : null,
  };
}

export function fromNetworkPolicy(np: NetworkPolicy, id: number, selectors: SelectorCache): Policy {
  const namespace = np.metadata.namespace ?? 'default';
  const spec = np.spec;
  // Defaulting (pkg/apis/networking/v1/defaults.go): "Any policy that does not specify
  // policyTypes implies at least Ingress", plus Egress when len(spec.egress) != 0.
  // `if len(obj.Spec.PolicyTypes) == 0`: an empty list defaults exactly like an absent one.
  const types = spec.policyTypes && spec.policyTypes.length > 0 ? spec.policyTypes : spec.egress.length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  return {
    id,
    ref: { apiVersion: np.apiVersion, kind: 'NetworkPolicy', namespace, name: np.metadata.name },
    tier: 'networkpolicy',
    priority: 0,
    subject: { type: 'namespace', namespace, pods: selectors.intern(spec.podSelector) },
    ingress: types.includes('Ingress') ? spec.ingress.map((r, i) => ruleOf(i, r.from, r.ports, namespace, selectors)) : null,
    egress: types.includes('Egress') ? spec.egress.map((r, i) => ruleOf(i, r.to, r.ports, namespace, selectors)) : null,
    legacy: false,
  };
}

export function fromLegacyNetworkPolicy(np: LegacyNetworkPolicy, id: number, selectors: SelectorCache): Policy {
  const namespace = np.metadata.namespace ?? 'default';
  // The proposal: "If this field is not provided, this rule matches all sources … If this
  // field is empty, this rule matches no sources (no traffic matches)." Same for ports.
  const rules: Rule[] = np.spec.ingress.map((r, index) => ({
    index,
    action: 'allow',
    peers: r.from === null ? [ANY] : r.from.map((p) => peerOf(p, namespace, selectors)),
    ports: r.ports === null ? null : r.ports.map(portOf),
  }));
  return {
    id,
    ref: { apiVersion: np.apiVersion, kind: 'NetworkPolicy', namespace, name: np.metadata.name },
    tier: 'networkpolicy',
    priority: 0,
    subject: { type: 'namespace', namespace, pods: selectors.intern(np.spec.podSelector) },
    ingress: rules,
    egress: null,
    legacy: true,
  };
}
