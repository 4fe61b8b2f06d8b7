// What a peer selects, written as a set definition independent of who matches it today (as
// Antrea names an AddressGroup by its selector): the same peer in ten thousand policies is one
// set, and a relabelled pod changes a set's members, never its id or the tables that use it.
import type { Cluster } from '../cluster.js';
import { rangeToCidrs } from '../net/ip.js';
import type { NamespaceMatch, Peer, PortMatch } from '../policy/model.js';
import type { SelectorId } from '../select/cache.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { NamespacesDefinition, SelectorDefinition, SetDefinition } from './ir.js';

// Per selector cache, by selector id: one object per selector, shared by every set that names
// it (10⁵ sets at L over a few thousand selectors), so its key is parsed once and what is
// derived from the object (resolve.ts compiledPodSelector, for the set index) is made once.
const selectorDefinitions = new WeakMap<Cluster['selectors'], Map<SelectorId, SelectorDefinition>>();

/** A selector's definition from its canonical key (schemas/k8s/label-selector.ts canonicalSelectorKey). */
function selectorDefinition(cluster: Cluster, id: SelectorId): SelectorDefinition {
  let byId = selectorDefinitions.get(cluster.selectors);
  if (!byId) selectorDefinitions.set(cluster.selectors, (byId = new Map()));
  let definition = byId.get(id);
  if (!definition) byId.set(id, (definition = parsedSelectorDefinition(cluster, id)));
  return definition;
}

function parsedSelectorDefinition(cluster: Cluster, id: SelectorId): SelectorDefinition {
  const [labels, exprs] = JSON.parse(cluster.selectors.selector(id).key) as [[string, string][], string[]];
  const out: { matchLabels?: Record<string, string>; matchExpressions?: SelectorDefinition['matchExpressions'] } = {};
  if (labels.length > 0) out.matchLabels = Object.fromEntries(labels);
  if (exprs.length > 0) {
    out.matchExpressions = exprs.map((e) => {
      const [key, operator, values] = e.split('\u0000') as [string, string, string];
      return operator === 'In' || operator === 'NotIn' ? { key, operator, values: values === '' ? [] : values.split('\u0001') } : { key, operator };
    });
  }
  return out;
}

/** Relative forms (Self, NotSelf, sameLabels, notSameLabels) name the subject's namespace. */
function namespacesDefinition(cluster: Cluster, m: NamespaceMatch, subject: PodInfo): NamespacesDefinition {
  switch (m.type) {
    case 'selector':
      return { selector: selectorDefinition(cluster, m.selector) };
    case 'name':
      return { name: m.name };
    case 'self':
      return { self: subject.namespace };
    case 'notSelf':
      return { notSelf: subject.namespace };
    case 'sameLabels':
      return { sameLabels: m.keys, of: subject.namespace };
    case 'notSameLabels':
      return { notSameLabels: m.keys, of: subject.namespace };
  }
}

/** The set a peer stands for; null for `any` (every address) and `none` (no rule is written). */
export function peerDefinition(cluster: Cluster, peer: Peer, subject: PodInfo): SetDefinition | null {
  switch (peer.type) {
    case 'any':
    case 'none':
      return null;
    case 'pods':
      return { type: 'pods', namespaces: namespacesDefinition(cluster, peer.namespaces, subject), pods: peer.pods === null ? null : selectorDefinition(cluster, peer.pods) };
    case 'nodes':
      return { type: 'nodes', selector: selectorDefinition(cluster, peer.selector) };
    case 'cidrs':
      return { type: 'cidrs', cidrs: peer.ranges.flatMap(rangeToCidrs), except: peer.except.flatMap(rangeToCidrs) };
  }
}

/** An egress named port over a peer's set (of: null for any peer). */
export function namedPortDefinition(of: SetDefinition | null, m: Extract<PortMatch, { type: 'named' }>): SetDefinition {
  return { type: 'named-port', of, port: m.name, protocol: m.protocol };
}
