// A set definition read back into a peer of a given cluster: the inverse of definitions.ts.
// A set's id is the hash of its definition, so the definition alone must say who is in it;
// resolving it here (rather than keeping the policy peer that first named it) lets a later
// version recompute a set's members without the policies, and the property suite holds
// `members(resolve(definition)) == members(peer)` for every set of random snapshots.
import type { Cluster } from '../cluster.js';
import { parseCidr, type IpRange } from '../net/ip.js';
import type { NamespaceMatch, Peer, PortMatch } from '../policy/model.js';
import { compileSelector, type CompiledSelector, type LabelSelectorSpec, type SelectorRequirement } from '../../schemas/k8s/label-selector.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { NamespacesDefinition, SelectorDefinition, SetDefinition } from './ir.js';

/** A set definition as a peer of `cluster`, and the namespace its relative forms name (null: none). */
export interface ResolvedDefinition {
  readonly peer: Peer;
  /** For ports sets: the named port. */
  readonly port: Extract<PortMatch, { type: 'named' }> | null;
  /** Self, NotSelf, sameLabels and notSameLabels are relative to this namespace. */
  readonly subjectNamespace: string | null;
}

export const selectorSpec = (d: SelectorDefinition): LabelSelectorSpec => ({
  matchLabels: d.matchLabels,
  matchExpressions: d.matchExpressions?.map((e): SelectorRequirement => ({ key: e.key, operator: e.operator as SelectorRequirement['operator'], values: e.values })),
});

function namespaceMatch(cluster: Cluster, d: NamespacesDefinition): { match: NamespaceMatch; subject: string | null } {
  if ('selector' in d) return { match: { type: 'selector', selector: cluster.selectors.intern(selectorSpec(d.selector)) }, subject: null };
  if ('name' in d) return { match: { type: 'name', name: d.name }, subject: null };
  if ('self' in d) return { match: { type: 'self' }, subject: d.self };
  if ('notSelf' in d) return { match: { type: 'notSelf' }, subject: d.notSelf };
  if ('sameLabels' in d) return { match: { type: 'sameLabels', keys: d.sameLabels }, subject: d.of };
  return { match: { type: 'notSameLabels', keys: d.notSameLabels }, subject: d.of };
}

const ranges = (cidrs: readonly string[]): IpRange[] =>
  cidrs.map((c) => {
    const r = parseCidr(c);
    if (!r) throw new Error(`set definition holds ${JSON.stringify(c)}, which is not a CIDR`);
    return r;
  });

function addressPeer(cluster: Cluster, d: Exclude<SetDefinition, { type: 'named-port' }>): { peer: Peer; subject: string | null } {
  switch (d.type) {
    case 'pods': {
      const { match, subject } = namespaceMatch(cluster, d.namespaces);
      return { peer: { type: 'pods', namespaces: match, pods: d.pods === null ? null : cluster.selectors.intern(selectorSpec(d.pods)) }, subject };
    }
    case 'nodes':
      return { peer: { type: 'nodes', selector: cluster.selectors.intern(selectorSpec(d.selector)) }, subject: null };
    case 'cidrs':
      return { peer: { type: 'cidrs', ranges: ranges(d.cidrs), except: ranges(d.except) }, subject: null };
  }
}

export function resolveDefinition(cluster: Cluster, d: SetDefinition): ResolvedDefinition {
  if (d.type !== 'named-port') {
    const { peer, subject } = addressPeer(cluster, d);
    return { peer, port: null, subjectNamespace: subject };
  }
  const of = d.of === null ? { peer: { type: 'any' } as Peer, subject: null } : addressPeer(cluster, d.of as Exclude<SetDefinition, { type: 'named-port' }>);
  return { peer: of.peer, port: { type: 'named', name: d.port, protocol: d.protocol }, subjectNamespace: of.subject };
}

/**
 * What member resolution reads of a subject: its namespace. A relative set exists only for
 * tables of pods in that namespace, so one of them stands in; null when none is left.
 */
export function subjectIn(cluster: Cluster, namespace: string | null): PodInfo | null {
  if (namespace === null) return STANDALONE;
  return cluster.podsByNamespace.get(namespace)?.[0] ?? null;
}

/** Non-relative peers read nothing of the subject (match.ts, classes.ts podsOf). */
const STANDALONE: PodInfo = { idx: -1, key: '', namespace: '', nsIdx: -1, name: '', labels: {}, nodeName: null, hostNetwork: false, ips: [], namedPorts: [] };

// Set definitions live as long as the versions that hold them: each pod selector compiles once
// per definition object (its key tells equal selectors of different sets apart from others).
const compiledSelectors = new WeakMap<SelectorDefinition, CompiledSelector>();

/** A set definition's pod selector, compiled once. */
export function compiledPodSelector(d: SelectorDefinition): CompiledSelector {
  let c = compiledSelectors.get(d);
  if (!c) compiledSelectors.set(d, (c = compileSelector(selectorSpec(d))));
  return c;
}
