// AdminNetworkPolicy, BaselineAdminNetworkPolicy (v1alpha1) and ClusterNetworkPolicy
// (v1alpha2) into the shared Policy shape.
import type { AdminNetworkPolicy, BaselineAdminNetworkPolicy } from '../../schemas/k8s/admin-network-policy.js';
import type { ClusterNetworkPolicy } from '../../schemas/k8s/cluster-network-policy.js';
import type { ClusterPeer, ClusterPort } from '../../schemas/k8s/cluster-peer.js';
import type { ClusterSubject, NamespaceMatch as SchemaNamespaceMatch } from '../../schemas/k8s/cluster-selection.js';
import { parseCidr, type IpRange } from '../net/ip.js';
import type { SelectorCache } from '../select/cache.js';
import type { Action, Direction, NamespaceMatch, Peer, Policy, PolicyRef, PortMatch, Rule, Tier } from './model.js';
import type { ClusterWarning } from '../warnings.js';
import { draftSpellingWarning } from './draft-spellings.js';

type ClusterRule = { name?: string | undefined; action: string; peers: ClusterPeer[]; ports: ClusterPort[] | null };

const ACTIONS: Record<string, Action> = { Allow: 'allow', Accept: 'allow', Deny: 'deny', Pass: 'pass' };

function namespaceMatch(m: SchemaNamespaceMatch, selectors: SelectorCache): NamespaceMatch {
  switch (m.type) {
    case 'selector':
      return { type: 'selector', selector: selectors.intern(m.selector) };
    case 'related':
      return { type: m.relation === 'Self' ? 'self' : 'notSelf' };
    case 'sameLabels':
    case 'notSameLabels':
      return { type: m.type, keys: m.keys };
  }
}

/**
 * Where a peer's warnings point: the policy and the peer's path in it; `where` names the peer in
 * their text. `v1alpha2`: the policy is a ClusterNetworkPolicy, whose draft spellings are warned about.
 */
type PeerSite = Pick<ClusterWarning, 'object'> & { readonly path: string; readonly where: string; readonly v1alpha2: boolean };

function peerOf(p: ClusterPeer, action: Action, selectors: SelectorCache, warnings: ClusterWarning[], site: PeerSite): Peer {
  const { where, v1alpha2, ...about } = site;
  if (v1alpha2 && (p.type === 'namespaces' || p.type === 'pods') && p.draft) warnings.push(draftSpellingWarning({ ...about, where }, p.draft, p.namespaces, false));
  switch (p.type) {
    case 'namespaces':
      return { type: 'pods', namespaces: namespaceMatch(p.namespaces, selectors), pods: null };
    case 'pods':
      return { type: 'pods', namespaces: namespaceMatch(p.namespaces, selectors), pods: selectors.intern(p.podSelector) };
    case 'nodes':
      return { type: 'nodes', selector: selectors.intern(p.selector) };
    case 'networks':
      return { type: 'cidrs', ranges: p.cidrs.map((c) => parseCidr(c)!) as IpRange[], except: [] };
    case 'domainNames':
      // The field: "only supported for Accept rules" (no CEL enforces it, so a Deny or Pass rule may carry it).
      warnings.push({ code: 'domain-names-not-evaluated', ...about, message: `${where}: domainNames peers are not evaluated (a snapshot has no DNS answers); the peer matches no flow${action === 'allow' ? '' : ' (upstream supports domainNames in Accept rules only)'}` });
      return { type: 'none', reason: 'domainNames peer (not evaluated)' };
    case 'unknown':
      // Fail closed: "For Allow rules … treat the rule as matching no traffic. For Deny and
      // Pass rules … treat the rule as a 'Deny all' rule."
      warnings.push({ code: 'unknown-peer-fail-closed', ...about, message: `${where}: peer has no field this version knows (${p.fields.join(', ')}); failing closed (${action === 'allow' ? 'matches nothing' : 'matches everything'})` });
      return action === 'allow' ? { type: 'none', reason: `unknown peer fields ${p.fields.join(', ')} (fail closed)` } : { type: 'any' };
  }
}

function portOf(p: ClusterPort): PortMatch {
  return p.type === 'named' ? { type: 'named', name: p.name, protocol: null } : { type: 'range', protocol: p.protocol, lo: p.start, hi: p.end };
}

function rules(list: ClusterRule[], dir: Direction, ref: PolicyRef, selectors: SelectorCache, warnings: ClusterWarning[]): Rule[] {
  const v1alpha2 = ref.apiVersion === 'policy.networking.k8s.io/v1alpha2';
  // Both kinds call a rule's peer list `from` on ingress and `to` on egress (the path lint findings give).
  const peers = dir === 'ingress' ? 'from' : 'to';
  const object = { kind: ref.kind, name: ref.name }; // cluster-scoped
  return list.map((r, index) => {
    const action = ACTIONS[r.action]!;
    const failClosedDenyAll = action !== 'allow' && r.peers.some((p) => p.type === 'unknown');
    const networks = r.peers.findIndex((p) => p.type === 'networks');
    if (v1alpha2 && networks >= 0 && r.ports?.some((m) => m.type === 'named')) {
      // "You can't use this in a rule that targets resources without named ports (e.g. Nodes or
      // Networks)", enforced only by the experimental CRD: read as NetworkPolicy reads a named
      // port with an ipBlock peer, said rather than silently.
      warnings.push({
        code: 'named-port-with-networks',
        object,
        path: `spec.${dir}[${index}].protocols`,
        message: `${ref.kind} ${ref.name} ${dir} rule ${index}: destinationNamedPort with a networks peer (${peers}[${networks}]): the standard-channel CRD admits it, the experimental one refuses it ("there are no namedPorts for networks"); netpolc resolves the named port on the pods whose addresses are in those networks, as NetworkPolicy does for an ipBlock peer, and no other address matches it`,
      });
    }
    return {
      index,
      name: r.name,
      action,
      peers: r.peers.map((p, i) => peerOf(p, action, selectors, warnings, { object, path: `spec.${dir}[${index}].${peers}[${i}]`, where: `${ref.kind} ${ref.name} ${dir} rule ${index} peer ${i}`, v1alpha2 })),
      // A fail-closed Deny/Pass is "Deny all": its ports are not consulted either.
      ports: failClosedDenyAll ? null : r.ports && r.ports.map(portOf),
    };
  });
}

function subjectOf(s: ClusterSubject, selectors: SelectorCache): Policy['subject'] {
  const ns = s.namespaces.type === 'selector' ? s.namespaces.selector : null;
  // Subjects only take label selectors; a draft `related` subject is meaningless, so it is all namespaces.
  return { type: 'cluster', namespaces: selectors.intern(ns ?? {}), pods: s.podSelector ? selectors.intern(s.podSelector) : null };
}

/** Why dropping a field a v1alpha1 spec lacks keeps what the policy means (schemas/k8s/admin-network-policy.ts). */
const IGNORED_BECAUSE: Record<string, string> = {
  priority: 'a BaselineAdminNetworkPolicy has no priority (KEP-2091: "There is no Priority field associated with BaselineAdminNetworkPolicy"); it is evaluated after every Baseline-tier ClusterNetworkPolicy',
  tier: 'v1alpha1 has no tier field; the kind decides the tier, and this one names the same tier',
};

export function fromAdminNetworkPolicy(p: AdminNetworkPolicy | BaselineAdminNetworkPolicy, id: number, selectors: SelectorCache, warnings: ClusterWarning[]): Policy {
  const tier: Tier = p.kind === 'AdminNetworkPolicy' ? 'admin' : 'baseline';
  const ref = { apiVersion: p.apiVersion, kind: p.kind, name: p.metadata.name };
  for (const field of p.spec.ignoredFields ?? []) {
    warnings.push({ code: 'field-ignored', object: { kind: p.kind, name: p.metadata.name }, path: `spec.${field}`, message: `${p.kind} ${p.metadata.name}: spec.${field} ignored: ${IGNORED_BECAUSE[field] ?? 'not a v1alpha1 field'}` });
  }
  return {
    id,
    ref,
    tier,
    // A BANP has no priority; it sorts after every Baseline-tier ClusterNetworkPolicy.
    priority: p.kind === 'AdminNetworkPolicy' ? p.spec.priority : Number.MAX_SAFE_INTEGER,
    subject: subjectOf(p.spec.subject, selectors),
    ingress: rules(p.spec.ingress, 'ingress', ref, selectors, warnings),
    egress: rules(p.spec.egress, 'egress', ref, selectors, warnings),
    legacy: false,
  };
}

export function fromClusterNetworkPolicy(p: ClusterNetworkPolicy, id: number, selectors: SelectorCache, warnings: ClusterWarning[]): Policy {
  const ref = { apiVersion: p.apiVersion, kind: p.kind, name: p.metadata.name };
  const s = p.spec.subject;
  if (s.draft) warnings.push(draftSpellingWarning({ object: { kind: p.kind, name: p.metadata.name }, path: 'spec.subject', where: `${p.kind} ${p.metadata.name} subject` }, s.draft, s.namespaces, true));
  return {
    id,
    ref,
    tier: p.spec.tier === 'Admin' ? 'admin' : 'baseline',
    priority: p.spec.priority,
    subject: subjectOf(p.spec.subject, selectors),
    ingress: rules(p.spec.ingress, 'ingress', ref, selectors, warnings),
    egress: rules(p.spec.egress, 'egress', ref, selectors, warnings),
    legacy: false,
  };
}
