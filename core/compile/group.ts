// Pods whose policies say the same thing compile to the same table. The grouping key is the
// content of what the verdict engine reads (decide.ts): the rules of each tier in order, whether
// the NetworkPolicy tier isolates, and what depends on the pod itself. Different policies with
// equal rules (one NetworkPolicy per Deployment, written from one template) share a table, so
// it is compiled once (M: 6,046 policy sets, 4,459 contents).
import type { Cluster } from '../cluster.js';
import { subjectPolicies, type RuleHit, type SubjectPolicies } from '../evaluate/decide.js';
import { isRelativePeer, rulesFor, ruleKey, type Direction, type Policy, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';

export interface Group {
  /** Equal for pods whose tables are equal (the compiler's grouping key). */
  readonly signature: string;
  /**
   * The same, but naming the policies rather than what they say: pods that share it have the
   * same verdicts for the same reasons (answers and previews that cite policies group by this).
   */
  readonly policySignature: string;
  readonly dir: Direction;
  /** A pod of the group; every pod of the group gets the same verdicts. */
  readonly representative: PodInfo;
  /** Policies that select the pod for this direction, in tier order. */
  readonly policies: readonly Policy[];
  /** The same, per tier, as the verdict engine reads them. */
  readonly sp: SubjectPolicies;
  readonly rules: readonly Rule[];
  /**
   * Per tier, equal for groups whose rules of that tier compile to the same set rules: the rules'
   * contents, with the subject's namespace where a rule is relative to it and, for ingress, its
   * ports of the names the rules use. Tables share tiers (Admin and Baseline tiers, ~70% of the
   * rules over all groups at M, have a few distinct contents), so each is compiled once.
   */
  readonly tiers: Readonly<Record<Tier, string>>;
}

export type Tier = 'admin' | 'np' | 'baseline';

/** Per cluster, as selector ids are: rule contents and tier contents as small numbers, equal for equal content. */
interface ContentIds {
  readonly byRule: WeakMap<Rule, number>;
  readonly byText: Map<string, number>;
  readonly byTier: Map<string, number>;
}

const contentIds = new WeakMap<Cluster, ContentIds>();

const idsOf = (cluster: Cluster): ContentIds => contentIds.get(cluster) ?? contentIds.set(cluster, { byRule: new WeakMap(), byText: new Map(), byTier: new Map() }).get(cluster)!;

/** What a rule says (action, peers, ports). */
function contentId(ids: ContentIds, rule: Rule): number {
  let id = ids.byRule.get(rule);
  if (id === undefined) {
    const text = ruleKey(rule);
    id = ids.byText.get(text);
    if (id === undefined) ids.byText.set(text, (id = ids.byText.size));
    ids.byRule.set(rule, id);
  }
  return id;
}

/** What groupOf reads of one tier's policies for a direction: their rules' contents in order (as one number), whether a peer is namespace-relative, the port names they use. */
interface TierFacts {
  readonly content: number;
  readonly relative: boolean;
  readonly portNames: readonly string[];
}

// By the tier's interned policy list (evaluate/policy-lists.ts: one array per list, cluster and
// direction): pods in many namespaces are selected by the same AdminNetworkPolicies (and
// replicas' identities by the same NetworkPolicies), and their rules were read again for every
// pod identity (L: 75k identities × dozens of rules).
const tierFacts = new WeakMap<readonly Policy[], TierFacts>();

function factsOf(cluster: Cluster, hits: readonly RuleHit[], policies: readonly Policy[]): TierFacts {
  let facts = tierFacts.get(policies);
  if (!facts) {
    const ids = idsOf(cluster);
    const names = new Set<string>();
    for (const h of hits) for (const m of h.rule.ports ?? []) if (m.type === 'named') names.add(m.name);
    const text = hits.map((h) => contentId(ids, h.rule)).join(',');
    let content = ids.byTier.get(text);
    if (content === undefined) ids.byTier.set(text, (content = ids.byTier.size));
    facts = { content, relative: hits.some((h) => h.rule.peers.some(isRelativePeer)), portNames: [...names] };
    tierFacts.set(policies, facts);
  }
  return facts;
}

export function groupOf(cluster: Cluster, pod: PodInfo, dir: Direction): Group {
  // The engine's own reading of which policies select the pod (decide.ts), kept for partition.
  const sp = subjectPolicies(cluster, dir, pod);
  const policies = [...sp.admin, ...sp.nps, ...sp.baseline];
  const [admin, np, baseline] = [factsOf(cluster, sp.hits.admin, sp.admin), factsOf(cluster, sp.hits.np, sp.nps), factsOf(cluster, sp.hits.baseline, sp.baseline)];
  // decide reads each tier's rules in order (first match; Pass skips the rest of its tier) and,
  // for NetworkPolicies, only whether any isolates (the proposal's namespace annotation isolates
  // ingress by itself).
  const isolation = sp.isolating.length > 0 || sp.legacyIsolated ? 'isolated' : 'open';
  // What depends on the pod itself. Namespace-relative peers (Self, sameLabels, …) depend on the
  // subject's namespace; ingress named ports resolve on the subject.
  let own = '';
  if (admin.relative || np.relative || baseline.relative) own += `|ns=${pod.namespace}`;
  const names = dir === 'ingress' ? new Set([...admin.portNames, ...np.portNames, ...baseline.portNames]) : null;
  if (names && names.size > 0) own += `|${subjectPortsText(pod, names)}`;
  const tiers = { admin: tierKey(dir, admin, pod), np: tierKey(dir, np, pod), baseline: tierKey(dir, baseline, pod) };
  return new PodGroup(`${dir}|${admin.content}|${isolation}|${np.content}|${baseline.content}${own}`, dir, pod, policies, sp, `${isolation}${own}`, tiers);
}

/** A tier's key (Group.tiers): its content, and what of the pod its rules read. */
function tierKey(dir: Direction, facts: TierFacts, pod: PodInfo): string {
  let key = `${dir}|${facts.content}`;
  if (facts.relative) key += `|ns=${pod.namespace}`;
  if (dir === 'ingress' && facts.portNames.length > 0) key += `|${subjectPortsText(pod, new Set(facts.portNames))}`;
  return key;
}

/** The subject's ports of these names, as text: what ingress rules naming them resolve to. */
const subjectPortsText = (pod: PodInfo, names: ReadonlySet<string>): string =>
  pod.namedPorts
    .filter((np) => names.has(np.name))
    .map((np) => `${np.name}=${np.port}/${np.protocol}`)
    .sort()
    .join(',');

/**
 * A Group whose rule list and policy signature are made when first read: the set compiler reads
 * neither (8·10³ groups at M), answers and previews read them of the groups they cite.
 */
class PodGroup implements Group {
  #rules: readonly Rule[] | undefined;
  #policySignature: string | undefined;

  constructor(
    readonly signature: string,
    readonly dir: Direction,
    readonly representative: PodInfo,
    readonly policies: readonly Policy[],
    readonly sp: SubjectPolicies,
    /** Whether the NetworkPolicy tier isolates, and what depends on the pod itself. */
    private readonly tail: string,
    readonly tiers: Readonly<Record<Tier, string>>,
  ) {}

  get rules(): readonly Rule[] {
    return (this.#rules ??= this.policies.flatMap((p) => rulesFor(p, this.dir)!));
  }

  get policySignature(): string {
    return (this.#policySignature ??= `${this.dir}|${this.policies.map((p) => p.id).join(',')}|${this.tail}`);
  }
}

/** The label keys subject selectors read: of policies that pick pods in any namespace, and per namespace index. */
interface SubjectKeys {
  readonly all: readonly string[];
  readonly byNamespace: readonly (readonly string[] | undefined)[];
}

// By policy set: a version from pod or workload changes has its previous version's policies and
// namespaces (the same objects), so it reads the same keys (10⁵ policies at L: ~80 ms a version).
const subjectKeys = new WeakMap<Cluster['policies'], { readonly namespaces: Cluster['nsByName']; readonly keys: SubjectKeys }>();

function subjectKeysOf(cluster: Cluster): SubjectKeys {
  const kept = subjectKeys.get(cluster.policies);
  let keys = kept?.namespaces === cluster.nsByName ? kept.keys : undefined;
  if (!keys) {
    const read = (policies: readonly Policy[], into: Set<string>) => {
      const selectors = new Set<number>();
      for (const p of policies) if (p.subject.pods !== null) selectors.add(p.subject.pods);
      for (const id of selectors) for (const k of cluster.selectors.selector(id).keys) into.add(k);
      return into;
    };
    // The policies subjectPolicies (evaluate/decide.ts) reads: Admin and Baseline tiers in every
    // namespace, NetworkPolicies in their own.
    const all = read([...cluster.policies.admin, ...cluster.policies.baseline], new Set());
    const byNamespace: (readonly string[] | undefined)[] = [];
    for (const [ns, policies] of cluster.policies.byNamespace) {
      const info = cluster.nsByName.get(ns);
      if (info) byNamespace[info.idx] = [...read(policies, new Set(all))].sort();
    }
    keys = { all: [...all].sort(), byNamespace };
    subjectKeys.set(cluster.policies, { namespaces: cluster.nsByName, keys });
  }
  return keys;
}

/**
 * The label keys a subject selector that can pick a pod of this namespace reads, sorted. A label
 * selector reads only the keys it names ("matchLabels and matchExpressions are ANDed", each
 * requirement on one key), so pods of a namespace equal on these keys are selected by the same
 * policies; the other labels (pod-template-hash, statefulset.kubernetes.io/pod-name,
 * controller-uid, …) cannot change a group, as Cilium leaves them out of identities.
 */
export function subjectLabelKeys(cluster: Cluster, nsIdx: number): readonly string[] {
  const keys = subjectKeysOf(cluster);
  return keys.byNamespace[nsIdx] ?? keys.all;
}

/**
 * One pod identity: a namespace and the values of the label keys its subject selectors read
 * (subjectLabelKeys), reached key by key from the namespace's root. Label values are strings the
 * pods already hold, so each step is a lookup of a string whose hash V8 keeps, not a new key
 * string to build and hash for every pod (10⁵ pods × 2 directions at L).
 */
class Identity {
  private next: Map<string | number | undefined, Identity> | undefined;
  readonly groups: { ingress?: Group; egress?: Group } = {};

  /** The identity with one more value: a label key's (undefined: the pod has no such label), then for ingress each named port's name, number and protocol. */
  step(value: string | number | undefined): Identity {
    const next = (this.next ??= new Map());
    let child = next.get(value);
    if (!child) next.set(value, (child = new Identity()));
    return child;
  }
}

/**
 * groupOf, once per pod identity: what groupOf reads of a pod is its namespace, the labels some
 * subject selector reads (selection) and, for ingress, its named ports; replicas of a Deployment
 * and of a StatefulSet share all three.
 */
export function groupsByIdentity(cluster: Cluster): (pod: PodInfo, dir: Direction) => Group {
  const roots: Identity[] = [];
  const keys = subjectKeysOf(cluster);
  // groupOf reads only the subject's ports of names some ingress rule names: in most clusters
  // none, and then the ingress identity is the egress one.
  const ingressNames = ingressPortNames(cluster);
  // The compiler asks for both directions of a pod in turn: its identity is found once.
  let lastPod: PodInfo | null = null;
  let lastIdentity: Identity | null = null;
  return (pod, dir) => {
    let identity: Identity;
    if (pod === lastPod) identity = lastIdentity!;
    else {
      identity = roots[pod.nsIdx] ??= new Identity();
      for (const k of keys.byNamespace[pod.nsIdx] ?? keys.all) identity = identity.step(Object.hasOwn(pod.labels, k) ? pod.labels[k] : undefined);
      [lastPod, lastIdentity] = [pod, identity];
    }
    // Every path of a namespace has one step per key, so what follows them is the ports.
    if (dir === 'ingress' && ingressNames.size > 0) for (const np of pod.namedPorts) if (ingressNames.has(np.name)) identity = identity.step(np.name).step(np.port).step(np.protocol);
    return (identity.groups[dir] ??= groupOf(cluster, pod, dir));
  };
}

const ingressNamesOf = new WeakMap<Cluster['policies'], ReadonlySet<string>>();

/** The port names of named-port matches in any policy's ingress rules (once per policy set, as subjectKeysOf). */
function ingressPortNames(cluster: Cluster): ReadonlySet<string> {
  let names = ingressNamesOf.get(cluster.policies);
  if (!names) {
    const found = new Set<string>();
    for (const p of cluster.policies.all) for (const r of rulesFor(p, 'ingress') ?? []) for (const m of r.ports ?? []) if (m.type === 'named') found.add(m.name);
    ingressNamesOf.set(cluster.policies, (names = found));
  }
  return names;
}
