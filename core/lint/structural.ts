// Snapshot-independent coverage: "rule i matches everything rule j matches, whatever pods,
// namespaces and nodes exist". Sound but incomplete (conservative): it only recognises one
// peer covering another peer (not unions of peers), label selectors whose requirements are a
// subset of the other's (`{app: a}` covers `{app: a, tier: b}`; `In [a, b]` does not cover
// `In [a]`), and equal relative namespace matches. CIDR peers are compared exactly, as the
// union of a rule's CIDR peers: a rule matches an address when any of its peers does.
import type { Cluster } from '../cluster.js';
import { peerKey, PROTOCOLS, type NamespaceMatch, type Peer, type Policy, type PortMatch, type Protocol, type Rule } from '../policy/model.js';
import type { SelectorId } from '../select/cache.js';
import { NAMESPACE_NAME_LABEL } from '../snapshot/cluster.js';
import { ruleAddresses } from '../policy/rule-addresses.js';
import { addressSet, isSubset } from './ip-sets.js';

type Requirements = ReadonlySet<string>;

const SEP = '\u0000';

/**
 * A selector as its set of requirements, read from the canonical key canonicalSelectorKey
 * builds (`[[label, value]…], [key␀op␀values…]`). `k: v` is written as `k In [v]`, which
 * is the same requirement, so the two spellings compare equal.
 */
function requirements(cluster: Cluster, id: SelectorId): Requirements {
  let byId = parsed.get(cluster);
  if (!byId) parsed.set(cluster, (byId = new Map()));
  let req = byId.get(id);
  if (!req) {
    const [labels, exprs] = JSON.parse(cluster.selectors.selector(id).key) as [[string, string][], string[]];
    byId.set(id, (req = new Set([...labels.map(([k, v]) => `${k}${SEP}In${SEP}${v}`), ...exprs])));
  }
  return req;
}

const parsed = new WeakMap<Cluster, Map<SelectorId, Requirements>>();

/** Every requirement of `wide` is one of `narrow`'s: whatever matches `narrow` matches `wide`. */
function implies(narrow: Requirements, wide: Requirements): boolean {
  for (const r of wide) if (!narrow.has(r)) return false;
  return true;
}

/** A namespace match as selector requirements, where it is one; a name is the immutable name label. */
function namespaceRequirements(cluster: Cluster, m: NamespaceMatch): Requirements | null {
  if (m.type === 'selector') return requirements(cluster, m.selector);
  if (m.type === 'name') return new Set([`${NAMESPACE_NAME_LABEL}${SEP}In${SEP}${m.name}`]);
  return null;
}

function namespacesCover(cluster: Cluster, wide: NamespaceMatch, narrow: NamespaceMatch): boolean {
  const w = namespaceRequirements(cluster, wide);
  if (w && w.size === 0) return true; // an empty selector: every namespace
  const n = namespaceRequirements(cluster, narrow);
  if (w && n) return implies(n, w);
  if (wide.type !== narrow.type) return false;
  switch (wide.type) {
    case 'self':
    case 'notSelf':
      return true;
    case 'sameLabels': {
      // More keys that must share the subject's values: fewer namespaces. Empty selects nothing.
      const keys = (narrow as typeof wide).keys;
      return wide.keys.length > 0 && wide.keys.every((k) => keys.includes(k));
    }
    case 'notSameLabels': {
      const keys = (narrow as typeof wide).keys;
      return wide.keys.length === keys.length && wide.keys.every((k) => keys.includes(k));
    }
    default:
      return false;
  }
}

function podsCover(cluster: Cluster, wide: SelectorId | null, narrow: SelectorId | null): boolean {
  if (wide === null) return true;
  const w = requirements(cluster, wide);
  if (w.size === 0) return true;
  return narrow !== null && implies(requirements(cluster, narrow), w);
}

export function peerCovers(cluster: Cluster, wide: Peer, narrow: Peer): boolean {
  if (narrow.type === 'none' || wide.type === 'any') return true;
  switch (narrow.type) {
    case 'any':
      return false;
    case 'pods':
      return wide.type === 'pods' && namespacesCover(cluster, wide.namespaces, narrow.namespaces) && podsCover(cluster, wide.pods, narrow.pods);
    case 'nodes':
      return wide.type === 'nodes' && implies(requirements(cluster, narrow.selector), requirements(cluster, wide.selector));
    case 'cidrs':
      return wide.type === 'cidrs' && isSubset(addressSet(narrow), addressSet(wide));
  }
}

/** Whether the union of `ranges` covers [lo, hi]. */
function rangesCover(ranges: readonly (readonly [number, number])[], lo: number, hi: number): boolean {
  let next = lo;
  for (const [a, b] of [...ranges].sort((x, y) => x[0] - y[0])) {
    if (a > next) break;
    if (b >= next) next = b + 1;
    if (next > hi) return true;
  }
  return next > hi;
}

export function portsCover(wide: readonly PortMatch[] | null, narrow: readonly PortMatch[] | null): boolean {
  if (wide === null) return true;
  const ranges = (p: Protocol) => wide.flatMap((m) => (m.type === 'range' && m.protocol === p ? [[m.lo, m.hi] as const] : []));
  const full = (p: Protocol) => rangesCover(ranges(p), 1, 65535);
  if (narrow === null) return PROTOCOLS.every(full);
  return narrow.every((m) => {
    if (m.type === 'range') return rangesCover(ranges(m.protocol), m.lo, m.hi);
    // A named port resolves to some number of its protocol (any protocol when null, ANP/CNP).
    const sameName = wide.some((w) => w.type === 'named' && w.name === m.name && (w.protocol === null || w.protocol === m.protocol));
    return sameName || (m.protocol !== null ? full(m.protocol) : PROTOCOLS.every(full));
  });
}

/** A rule's selector peers as coverage reads them, built once per rule: lints compare every pair of rules in a namespace. */
interface RuleSelectors {
  readonly any: boolean;
  /** `pods` and `nodes` peers, one per peerKey, and those keys. */
  readonly selectors: readonly Peer[];
  readonly keys: ReadonlySet<string>;
}

const selectorsMemo = new WeakMap<Rule, RuleSelectors>();

function ruleSelectors(rule: Rule): RuleSelectors {
  let r = selectorsMemo.get(rule);
  if (!r) {
    const selectors = new Map<string, Peer>();
    for (const p of rule.peers) if (p.type === 'pods' || p.type === 'nodes') selectors.set(peerKey(p), p);
    selectorsMemo.set(rule, (r = { any: rule.peers.some((p) => p.type === 'any'), selectors: [...selectors.values()], keys: new Set(selectors.keys()) }));
  }
  return r;
}

/**
 * Every peer of `narrow` is covered by `wide`, and the ports likewise: its addresses by the
 * union of wide's CIDR peers, each selector peer by one peer of wide (an equal one first).
 */
export function ruleCovers(cluster: Cluster, wide: Rule, narrow: Rule): boolean {
  if (!portsCover(wide.ports, narrow.ports)) return false;
  const [w, n] = [ruleSelectors(wide), ruleSelectors(narrow)];
  if (w.any) return true;
  if (n.any) return false;
  const addresses = ruleAddresses(narrow).ranges;
  if (addresses.length > 0 && !isSubset(addresses, ruleAddresses(wide).ranges)) return false;
  return n.selectors.every((p) => w.keys.has(peerKey(p)) || w.selectors.some((q) => peerCovers(cluster, q, p)));
}

/** Two NetworkPolicies of one namespace: `wide` selects every pod `narrow` selects, by selector requirements. */
export function npSubjectCovers(cluster: Cluster, wide: Policy, narrow: Policy): boolean {
  const w = wide.subject;
  const n = narrow.subject;
  if (w.type !== 'namespace' || n.type !== 'namespace' || w.namespace !== n.namespace) return false;
  return implies(requirements(cluster, n.pods), requirements(cluster, w.pods));
}
