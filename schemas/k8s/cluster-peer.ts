// Peers and ports shared by AdminNetworkPolicy/BaselineAdminNetworkPolicy (v1alpha1) and
// ClusterNetworkPolicy (v1alpha2), normalised to one tagged shape. Namespace and pod selection
// (in either the current or the KEP-2091 draft spelling) and the subject: cluster-selection.ts.
import { z } from '../zod.js';
import { parseCidr } from './ip.js';
import { inKeyOrder, type LabelSelector } from './meta.js';
import {
  issue, isObject, namespacesSelection, podsSelection, presentKeys, selector, stringList,
  type ClusterApiVersion, type Ctx, type DraftSpelling, type NamespaceMatch,
} from './cluster-selection.js';

export type ClusterPeer =
  | { type: 'namespaces'; namespaces: NamespaceMatch; draft?: DraftSpelling }
  | { type: 'pods'; namespaces: NamespaceMatch; podSelector: LabelSelector; draft?: DraftSpelling }
  | { type: 'nodes'; selector: LabelSelector }
  | { type: 'networks'; cidrs: string[] }
  | { type: 'domainNames'; names: string[] }
  // "If an implementation sees no fields are set then it can infer that the deployed CRD
  // is of an incompatible version with an unknown field. In that case it should fail closed."
  | { type: 'unknown'; fields: string[] };

export type ClusterPort =
  | { type: 'range'; protocol: 'TCP' | 'UDP' | 'SCTP'; start: number; end: number }
  | { type: 'named'; name: string };

/**
 * DomainName, copied from upstream (v1alpha2 apis/v1alpha2/clusternetworkpolicy_types.go L554,
 * v1alpha1 apis/v1alpha1/adminnetworkpolicy_types.go L290, the same on release-0.1):
 * `+kubebuilder:validation:Pattern=`…`. Its `A-z` ranges (not `A-Z`) also admit `[\]^_\``
 * where a label starts; kept as written, so what the CRD admits is admitted here.
 */
export const DOMAIN_NAME_PATTERN = /^(\*\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\.?$/;

export interface PeerOptions {
  /** Peer kinds allowed on this side (ingress peers have no nodes/networks). */
  readonly allowed: readonly ('namespaces' | 'pods' | 'nodes' | 'networks' | 'domainNames')[];
  readonly maxNetworks: number;
  readonly maxDomainNames: number;
  readonly version: ClusterApiVersion;
}

export function clusterPeer(opts: PeerOptions) {
  // Kept in key order, as every parsed object is (meta.ts sortedObject).
  return z.unknown().transform((raw, ctx): ClusterPeer => inKeyOrder(peerOf(raw, ctx, opts)));
}

const PEER_KINDS = ['namespaces', 'pods', 'nodes', 'networks', 'domainNames'];

/** A `listType=set` list of strings with MinItems=1 and MaxItems=`max`. */
function stringSet(raw: unknown, ctx: Ctx, field: string, max: number): string[] {
  const items = stringList(raw, ctx, [field], field);
  if (items.length === 0) issue(ctx, [field], 'must have at least 1 item');
  if (items.length > max) issue(ctx, [field], `must have at most ${max} items`);
  if (new Set(items).size !== items.length) issue(ctx, [field], 'duplicate entries are not allowed (listType=set)');
  return items;
}

function peerOf(raw: unknown, ctx: Ctx, opts: PeerOptions): ClusterPeer {
  if (!isObject(raw)) return issue(ctx, [], 'a peer must be an object');
  const present = presentKeys(raw);
  const known = present.filter((k) => (opts.allowed as readonly string[]).includes(k));
  if (present.length === 0) return issue(ctx, [], `exactly one of ${opts.allowed.join(', ')} must be set`);
  if (known.length === 0) {
    const notHere = present.filter((k) => PEER_KINDS.includes(k));
    if (notHere.length > 0) return issue(ctx, [notHere[0]!], `not allowed here; this peer accepts ${opts.allowed.join(', ')}`);
    return { type: 'unknown', fields: present };
  }
  if (known.length > 1) return issue(ctx, [], `exactly one of ${opts.allowed.join(', ')} must be set (found ${known.join(', ')})`);
  // "Exactly one of the fields must be set for a given peer" (MaxProperties=1). Fail closed is
  // for a peer with no field this version knows; a field beside a known one can be from no
  // version, and dropping it (`podSelector` next to `namespaces`) would change what the peer matches.
  if (present.length > 1) return issue(ctx, [], `exactly one field may be set (MaxProperties=1); found ${present.join(', ')}: ignoring ${present.filter((k) => k !== known[0]).join(', ')} would change what the peer matches`);
  const key = known[0]!;
  switch (key) {
    case 'namespaces':
      return { type: 'namespaces', ...namespacesSelection(raw.namespaces, ctx, ['namespaces']) };
    case 'pods': {
      const pods = podsSelection(raw.pods, ctx, ['pods'], opts.version);
      return pods ? { type: 'pods', ...pods } : z.NEVER;
    }
    case 'nodes':
      return { type: 'nodes', selector: selector(raw.nodes, ctx, ['nodes']) };
    case 'networks': {
      // Networks: "+listType=set", "MinItems=1", "MaxItems=25"; CIDR: "isCIDR(self)".
      const cidrs = stringSet(raw.networks, ctx, 'networks', opts.maxNetworks);
      cidrs.forEach((c, i) => {
        if (!parseCidr(c)) issue(ctx, ['networks', i], `Invalid CIDR format provided: "${c}"`);
      });
      return { type: 'networks', cidrs };
    }
    case 'domainNames': {
      // DomainNames: "+listType=set", "MinItems=1", "MaxItems=25" (v1alpha2 types L406-410,
      // v1alpha1 adminnetworkpolicy_types.go L263-268); each a DomainName (pattern above).
      const names = stringSet(raw.domainNames, ctx, 'domainNames', opts.maxDomainNames);
      names.forEach((d, i) => {
        if (!DOMAIN_NAME_PATTERN.test(d)) issue(ctx, ['domainNames', i], `invalid domain name ${JSON.stringify(d)}: should match '${DOMAIN_NAME_PATTERN.source}' (a name such as "kubernetes.io", or "*." before one for its subdomains)`);
      });
      return { type: 'domainNames', names };
    }
  }
  return { type: 'unknown', fields: [key] };
}

export const PortNumberValue = z
  .number({ error: 'must be an integer between 1 and 65535' })
  .int('must be an integer between 1 and 65535')
  .min(1, 'must be between 1 and 65535')
  .max(65535, 'must be between 1 and 65535');

export const ClusterProtocol = z.enum(['TCP', 'UDP', 'SCTP'], { error: 'supported values: "TCP", "UDP", "SCTP"' });

export function checkRange(r: { start: number; end: number }, ctx: Ctx, path: (string | number)[]): void {
  // v1alpha2 CEL "self.start < self.end"; v1alpha1 documents the same ("the Start value must be less than End").
  if (!(r.start < r.end)) ctx.addIssue({ code: 'custom', path: [...path, 'end'], message: 'Start port must be less than End port' });
}

/**
 * Upstream CEL: "networks/nodes peer cannot be set with namedPorts since there are no namedPorts
 * for networks/nodes". In v1alpha2 that rule is `<network-policy-api:experimental:validation>`:
 * the standard-channel CRD (which has no nodes or domainNames fields) admits a named port with a
 * `networks` peer, so `networksAllowed` lets it through (core/policy/from-cluster-policy.ts warns
 * and says how it is read); the experimental CRD's rule still refuses nodes and domainNames peers.
 */
export function checkNamedPortPeers(peers: ClusterPeer[], ports: ClusterPort[] | null, ctx: Ctx, peersField: string, portsField: string, networksAllowed = false): void {
  if (!ports || !ports.some((p) => p.type === 'named')) return;
  const bad = peers.findIndex((p) => (p.type === 'networks' && !networksAllowed) || p.type === 'nodes' || p.type === 'domainNames');
  if (bad >= 0) {
    const idx = ports.findIndex((p) => p.type === 'named');
    ctx.addIssue({ code: 'custom', path: [portsField, idx], message: `networks/nodes/domainNames peer (${peersField}[${bad}]) cannot be set with named ports since there are no named ports for networks/nodes/domainNames` });
  }
}
