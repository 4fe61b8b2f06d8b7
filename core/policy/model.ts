// One tiered rule shape for every policy kind (Contiv's ContivPolicy idea, extended to tiers):
// NetworkPolicy v1, the legacy extensions/v1beta1 form, ANP/BANP v1alpha1 and CNP v1alpha2
// all become Policy values whose selectors are interned and whose CIDRs are integers.
import type { IpRange } from '../net/ip.js';
import type { SelectorId } from '../select/cache.js';

export type Tier = 'admin' | 'networkpolicy' | 'baseline';
export type Action = 'allow' | 'deny' | 'pass';
export type Direction = 'ingress' | 'egress';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

export interface PolicyRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** How a peer or subject picks namespaces; self/notSelf/sameLabels are relative to the subject pod. */
export type NamespaceMatch =
  | { readonly type: 'selector'; readonly selector: SelectorId }
  | { readonly type: 'name'; readonly name: string }
  | { readonly type: 'self' }
  | { readonly type: 'notSelf' }
  | { readonly type: 'sameLabels'; readonly keys: readonly string[] }
  | { readonly type: 'notSameLabels'; readonly keys: readonly string[] };

export type Peer =
  /** Every endpoint: a v1 rule without from/to, or a fail-closed Deny/Pass peer. */
  | { readonly type: 'any' }
  /** Nothing: a fail-closed Allow peer, or a domainNames peer (no DNS in a snapshot). */
  | { readonly type: 'none'; readonly reason: string }
  /** Pods (never host-network ones) in the matching namespaces, optionally by pod selector. */
  | { readonly type: 'pods'; readonly namespaces: NamespaceMatch; readonly pods: SelectorId | null }
  /** The addresses of matching nodes (not the pods on them). */
  | { readonly type: 'nodes'; readonly selector: SelectorId }
  /** Any endpoint whose address is in a range and not in an exception (ipBlock, networks). */
  | { readonly type: 'cidrs'; readonly ranges: readonly IpRange[]; readonly except: readonly IpRange[] };

/** A pods peer whose namespaces depend on the subject pod's (Self, NotSelf, sameLabels, notSameLabels). */
export function isRelativePeer(p: Peer): boolean {
  return p.type === 'pods' && p.namespaces.type !== 'selector' && p.namespaces.type !== 'name';
}

export type PortMatch =
  | { readonly type: 'range'; readonly protocol: Protocol; readonly lo: number; readonly hi: number }
  /** Resolved on the destination pod; `protocol` null means the container port's own protocol. */
  | { readonly type: 'named'; readonly name: string; readonly protocol: Protocol | null };

/** How a key names a selector: by its id within one cluster (the default), or as another reading needs. */
export type SelectorText = (id: SelectorId) => string | number;
const byId: SelectorText = (id) => id;

function namespacesKey(m: NamespaceMatch, selector: SelectorText): string {
  switch (m.type) {
    case 'selector':
      return `s${selector(m.selector)}`;
    case 'name':
      return `n${JSON.stringify(m.name)}`;
    case 'self':
    case 'notSelf':
      return m.type;
    case 'sameLabels':
    case 'notSameLabels':
      return `${m.type}${JSON.stringify(m.keys)}`;
  }
}

/** What a peer says, as a string: equal for peers that match the same endpoints (within one cluster: selector ids are its). */
export function peerKey(p: Peer, selector: SelectorText = byId): string {
  switch (p.type) {
    case 'any':
    case 'none':
      return p.type;
    case 'pods':
      return `pods(${namespacesKey(p.namespaces, selector)},${p.pods === null ? '*' : selector(p.pods)})`;
    case 'nodes':
      return `nodes(${selector(p.selector)})`;
    case 'cidrs':
      return `cidrs(${p.ranges.map((r) => `${r.family}:${r.lo}-${r.hi}`).join(' ')}/${p.except.map((r) => `${r.family}:${r.lo}-${r.hi}`).join(' ')})`;
  }
}

export const portKey = (m: PortMatch): string => (m.type === 'range' ? `${m.protocol}:${m.lo}-${m.hi}` : `named(${JSON.stringify(m.name)},${m.protocol ?? ''})`);

/** What a rule says (action, peers, ports), as a string: equal for rules that match the same flows alike. */
export function ruleKey(r: Rule, selector: SelectorText = byId): string {
  return `${r.action}|${r.peers.map((p) => peerKey(p, selector)).join(';')}|${r.ports === null ? '*' : r.ports.map(portKey).join(';')}`;
}

export interface Rule {
  readonly index: number;
  readonly name?: string | undefined;
  readonly action: Action;
  /** OR-ed. */
  readonly peers: readonly Peer[];
  /** OR-ed; null matches every port and protocol, [] matches none (legacy proposal). */
  readonly ports: readonly PortMatch[] | null;
}

export type Subject =
  /** NetworkPolicy: pods of one namespace. */
  | { readonly type: 'namespace'; readonly namespace: string; readonly pods: SelectorId }
  /** Cluster-scoped policies. */
  | { readonly type: 'cluster'; readonly namespaces: SelectorId; readonly pods: SelectorId | null };

export interface Policy {
  readonly id: number;
  readonly ref: PolicyRef;
  readonly tier: Tier;
  /** Lower first; NetworkPolicies have 0. */
  readonly priority: number;
  readonly subject: Subject;
  /** null: the policy does not apply to this direction (policyTypes). */
  readonly ingress: readonly Rule[] | null;
  readonly egress: readonly Rule[] | null;
  /** extensions/v1beta1 proposal form: allows only; isolation comes from the namespace annotation. */
  readonly legacy: boolean;
}

export function rulesFor(p: Policy, dir: Direction): readonly Rule[] | null {
  return dir === 'ingress' ? p.ingress : p.egress;
}

export function describePolicy(ref: PolicyRef): string {
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}
