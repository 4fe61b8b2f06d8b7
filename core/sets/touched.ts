// What a change touched, and how it moves each set's members (incremental.ts says what a
// version from changes reuses): the touched pods on both sides, and per set the members that
// leave and enter, or null where that cannot be told exactly (the set is resolved again).
import type { Cluster } from '../cluster.js';
import { namespaceMatches } from '../evaluate/match.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';
import type { Peer, Protocol } from '../policy/model.js';
import type { IrSet, NamespacesDefinition, SetDefinition } from './ir.js';
import type { IpAddr } from '../net/ip.js';
import type { KeyedElement, MemberEdit } from './member-edit.js';
import { pushPodElements, type Owned, type OwnedAddresses } from './members.js';
import type { CompiledSelector } from '../../schemas/k8s/label-selector.js';
import { compiledPodSelector, resolveDefinition, subjectIn } from './resolve.js';

/** The pods a change touched, and what membership checks learn about them once per change. */
export interface Touched {
  readonly pods: readonly TouchedPod[];
  /** Each pod's owned addresses, per side. */
  readonly owned: { readonly before: OwnedAddresses; readonly after: OwnedAddresses };
  /** Every touched pod only relabelled, and no namespace changed. */
  readonly labelsOnly: boolean;
  /** Namespaces the change applied or deleted: sets relative to one by label are resolved again. */
  readonly namespaces: ReadonlySet<string>;
  /** Some Node was applied or deleted: node sets are resolved again. */
  readonly nodes: boolean;
  /** Per pod selector (canonical key): whether it matches some touched pod on one side only. */
  readonly flips: Map<string, boolean>;
  /** Per pod test (pod selector and port): the touched pods it passes on some side. */
  readonly candidates: Map<string, readonly Candidate[]>;
  /** The same lists by namespace: most sets hold the pods of one namespace. */
  readonly byNamespace: Map<readonly Candidate[], Map<string, Candidate[]>>;
}

/** A touched pod some set's pod test passes, before or after (candidate()). */
interface Candidate {
  readonly pod: TouchedPod;
  readonly before: boolean;
  readonly after: boolean;
}

/** A changed pod (or one sharing an address with it) as it was and as it is; either may be absent. */
interface TouchedPod {
  readonly namespace: string;
  readonly before: PodInfo | undefined;
  readonly after: PodInfo | undefined;
  /** On both sides with the same namespace, node-independent facts and owned addresses: only labels may differ. */
  readonly labelsOnly: boolean;
}

/** The changed pods, and every pod sharing an address with one of them, paired by key across both sides. */
export function touchedPods(owned: Touched['owned'], before: Cluster, after: Cluster, changedKeys: ReadonlySet<string>): TouchedPod[] {
  const ips = new Set<string>();
  for (const c of [before, after]) for (const key of changedKeys) for (const ip of c.podByKey.get(key)?.ips ?? []) ips.add(ipKey(ip));
  const keys = new Set(changedKeys);
  // Only an address's owner holds it in a set (members.ts): the owners on both sides are the
  // pods whose share may move (a pod that owns it on neither side contributes nothing).
  for (const c of [before, after]) {
    for (const k of ips) {
      const o = c.ipOwners.get(k);
      if (o?.kind === 'pod') keys.add(o.pod.key);
    }
  }
  // A pod finished on both sides is on neither: it changes no set.
  return [...keys].filter((key) => before.podByKey.has(key) || after.podByKey.has(key)).map((key) => {
    const [b, a] = [before.podByKey.get(key), after.podByKey.get(key)];
    const labelsOnly = b !== undefined && a !== undefined && b.hostNetwork === a.hostNetwork && b.ips.length === a.ips.length && sameAddresses(owned.before.of(b), owned.after.of(a)) && JSON.stringify(b.namedPorts) === JSON.stringify(a.namedPorts);
    return { namespace: (b ?? a)!.namespace, before: b, after: a, labelsOnly };
  });
}

type PortRef = { readonly name: string; readonly protocol: Protocol | null };

export const UNCHANGED = 'unchanged' as const;
/** What a ports set over pods or every pod filters their addresses by: nothing. */
const ANY_PEER: Peer = { type: 'any' };

/**
 * How the set's members differ: unchanged, unless some touched pod is a member on one side
 * only, or a member on both with other owned addresses or (port sets) other named ports; then
 * what those pods held of the set leaves and what they hold enters. A pod relabelled without
 * entering or leaving the set changes nothing (most sets select by namespace alone). Null
 * (resolve again) where a side cannot be read exactly: relative sets whose namespace appeared
 * or went. Called for every set a change reaches, so it resolves namespaces only for sets a
 * touched pod's labels could be in.
 */
export function memberChange(next: Cluster, previous: Cluster, set: IrSet, touched: Touched): MemberEdit | typeof UNCHANGED | null {
  let d: SetDefinition | null = set.definition;
  let port: PortRef | null = null;
  if (d.type === 'named-port') {
    port = { name: d.port, protocol: d.protocol };
    d = d.of;
  }
  if (d !== null && d.type === 'nodes') return touched.nodes ? null : UNCHANGED;
  // Relative to a changed namespace's labels: pods of any namespace may enter or leave.
  if (d !== null && d.type === 'pods' && relativeByLabel(d.namespaces, touched.namespaces)) return null;
  // A CIDR set's members are addresses, whoever has them; its ports set holds the pods in them.
  if (d !== null && d.type !== 'pods' && port === null) return UNCHANGED;
  // A relabel reaches only sets whose pod selector it flips (the pod's share is the same on both sides).
  if (touched.labelsOnly && (d === null || d.type !== 'pods' || d.pods === null)) return UNCHANGED;
  const podSelector = d === null || d.type !== 'pods' || d.pods === null ? null : compiledPodSelector(d.pods);
  if (podSelector !== null && touched.labelsOnly) {
    // Thousands of sets share a few selectors (one per app label): each is tried once per change.
    let flips = touched.flips.get(podSelector.key);
    if (flips === undefined) touched.flips.set(podSelector.key, (flips = touched.pods.some((t) => podSelector.matches(t.before!.labels) !== podSelector.matches(t.after!.labels))));
    if (!flips) return UNCHANGED;
  }
  // Sets of one named namespace (most NetworkPolicy peers) hold no pod of another.
  const only = d === null || d.type !== 'pods' ? null : 'name' in d.namespaces ? d.namespaces.name : 'self' in d.namespaces ? d.namespaces.self : null;
  const candidates = only === null ? candidatesOf(touched, podSelector, port) : candidatesIn(touched, podSelector, port, only);
  if (candidates.length === 0) return UNCHANGED;
  // The compiler writes ports sets over pods, CIDRs or every pod only (definitions.ts): nothing else is edited.
  if (d !== null && d.type !== 'pods' && d.type !== 'cidrs') return null;
  // A ports set over CIDRs holds the elements of pods in any namespace whose addresses are in them.
  const filter = d !== null && d.type === 'cidrs' ? resolveDefinition(next, d).peer : ANY_PEER;
  const [was, is] = d === null || d.type === 'cidrs' ? [ANY, ANY] : [peerIn(previous, d), peerIn(next, d)];
  if (was === null || is === null) return null;
  const leave: (IpAddr | KeyedElement)[] = [];
  const enter: (IpAddr | KeyedElement)[] = [];
  const share = (out: (IpAddr | KeyedElement)[], owned: readonly Owned[], pod: PodInfo) => {
    if (port === null) for (const o of owned) out.push(o.ip);
    else pushPodElements(out as KeyedElement[], pod, owned, filter, port);
  };
  for (const c of candidates) {
    const { before, after } = c.pod;
    const inBefore = c.before && inNamespaces(previous, was, before!);
    const inAfter = c.after && inNamespaces(next, is, after!);
    const [had, has] = [inBefore ? touched.owned.before.of(before!) : [], inAfter ? touched.owned.after.of(after!) : []];
    if (inBefore && inAfter && sameAddresses(had, has) && portsOf(before, port) === portsOf(after, port)) continue;
    if (inBefore) share(leave, had, before!);
    if (inAfter) share(enter, has, after!);
  }
  if (leave.length === 0 && enter.length === 0) return UNCHANGED;
  return port === null ? { kind: 'addresses', leave: leave as IpAddr[], enter: enter as IpAddr[] } : { kind: 'ports', leave: leave as KeyedElement[], enter: enter as KeyedElement[] };
}

function relativeByLabel(n: NamespacesDefinition, changed: ReadonlySet<string>): boolean {
  return ('sameLabels' in n || 'notSameLabels' in n) && changed.has(n.of);
}

/** A pods set's namespaces in one cluster; ANY for a ports set over every pod or over CIDRs; null when it cannot be told. */
type ResolvedPeer = { readonly peer: Extract<Peer, { type: 'pods' }>; readonly subject: PodInfo } | typeof ANY;
const ANY = 'any' as const;

function peerIn(c: Cluster, d: Extract<SetDefinition, { type: 'pods' }>): ResolvedPeer | null {
  const { peer, subjectNamespace } = resolveDefinition(c, d);
  const subject = subjectIn(c, subjectNamespace);
  return peer.type === 'pods' && subject ? { peer, subject } : null;
}

function inNamespaces(c: Cluster, r: ResolvedPeer, p: PodInfo): boolean {
  if (r === ANY) return true;
  const ns = c.nsByName.get(p.namespace);
  return ns !== undefined && namespaceMatches(c, r.peer.namespaces, ns, r.subject);
}

/** The touched pods a set's pod test passes on some side: thousands of sets share a few tests. */
function candidatesOf(touched: Touched, podSelector: CompiledSelector | null, port: PortRef | null): readonly Candidate[] {
  const key = `${podSelector?.key ?? ''}\u0000${port === null ? '' : `${JSON.stringify(port.name)}/${port.protocol ?? ''}`}`;
  let list = touched.candidates.get(key);
  if (list === undefined) {
    const out: Candidate[] = [];
    for (const pod of touched.pods) {
      const [before, after] = [candidate(pod.before, podSelector, port), candidate(pod.after, podSelector, port)];
      if (before || after) out.push({ pod, before, after });
    }
    touched.candidates.set(key, (list = out));
  }
  return list;
}

/** candidatesOf in one namespace. */
function candidatesIn(touched: Touched, podSelector: CompiledSelector | null, port: PortRef | null, namespace: string): readonly Candidate[] {
  const all = candidatesOf(touched, podSelector, port);
  let byNamespace = touched.byNamespace.get(all);
  if (byNamespace === undefined) {
    touched.byNamespace.set(all, (byNamespace = new Map()));
    for (const c of all) {
      const list = byNamespace.get(c.pod.namespace);
      if (list) list.push(c);
      else byNamespace.set(c.pod.namespace, [c]);
    }
  }
  return byNamespace.get(namespace) ?? [];
}

/** What the set's pod test says of a pod before its namespace is looked at (podsOf's test). */
function candidate(p: PodInfo | undefined, podSelector: CompiledSelector | null, port: PortRef | null): boolean {
  return p !== undefined && !p.hostNetwork && p.ips.length > 0 && (podSelector === null || podSelector.matches(p.labels)) && (port === null || portsOf(p, port) !== '');
}

/** The pod's ports a named-port set reads, as text ('' for none, or for an address set). */
function portsOf(p: PodInfo | undefined, port: PortRef | null): string {
  if (p === undefined || port === null) return '';
  let out = '';
  for (const np of p.namedPorts) if (np.name === port.name && (port.protocol === null || np.protocol === port.protocol)) out += `${np.protocol}/${np.port},`;
  return out;
}

/** The same owned addresses, in the same order. */
function sameAddresses(a: readonly Owned[], b: readonly Owned[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.ip.family !== b[i]!.ip.family || a[i]!.ip.value !== b[i]!.ip.value) return false;
  return true;
}
