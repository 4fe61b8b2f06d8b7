// A version's set form from the previous one's, when only pods, namespaces and policies changed
// (pods added, deleted, relabelled, readdressed, moved: what a cluster does all day; policies:
// what a GitOps pipeline applies; namespaces relabelled, annotated, added or deleted). It must
// equal a full compile of the same objects, ids and bodies (property-tested), so it reuses only
// what cannot differ:
//  - a pod's tables depend on its namespace, labels and named ports and on the policies that
//    select it (compile/group.ts); an unchanged pod keeps its table ids unless a changed policy
//    selects it before or after the change (policy-subjects.ts);
//  - a set's members depend on the pods its definition matches, never on policies: a set keeps
//    its members unless a changed pod is a member on one side only, or on both with other owned
//    addresses or named ports; then what those pods held of it leaves and what they hold enters
//    (member-edit.ts), or, where that cannot be told exactly, the set is resolved again (only
//    slower, never wrong); CIDR and node sets do not depend on pods at all, because node
//    addresses are owned before any pod's (snapshot/cluster.ts ipOwners); a set a changed policy
//    names for the first time is resolved;
//  - a pod owning an address of a changed pod, before or after, counts as touched: which of
//    them owns the address may move;
//  - a namespace's labels and annotations are read for its own pods only (their tables: which
//    policies select them, the DefaultDeny annotation; their share of sets with namespace
//    selectors or relative forms), except by sets relative to it by label (sameLabels,
//    notSameLabels: KEP-2091 "the same value as the subject"), which draw from every
//    namespace; so every pod of a changed namespace counts as changed (its own facts the same),
//    and those relative sets are resolved again.
// Anything else that changed (nodes, workloads, services) gets a full compile.
import { POLICY_KINDS, type Cluster } from '../cluster.js';
import { namespaceMatches } from '../evaluate/match.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';
import type { Peer, Protocol } from '../policy/model.js';
import type { IrSet, NamespacesDefinition, SetDefinition, SetIr } from './ir.js';
import type { SetCompileStats, SetReuse } from './compile.js';
import type { IpAddr } from '../net/ip.js';
import type { KeyedElement, MemberChange, MemberEdit } from './member-edit.js';
import { OwnedAddresses, pushPodElements, type Owned } from './members.js';
import type { CompiledSelector } from '../../schemas/k8s/label-selector.js';
import type { SetIndex } from './set-index.js';
import { compiledPodSelector, resolveDefinition, subjectIn } from './resolve.js';
import { own } from '../names-record.js';
import { policySubjectKeys, type ChangedObject } from './policy-subjects.js';

/** The earlier version: its cluster and the set form compiled from it. */
export interface CompiledVersion {
  readonly cluster: Cluster;
  readonly ir: SetIr;
  readonly stats?: SetCompileStats | undefined;
}

/** The pods a change touched, and what membership checks learn about them once per change. */
interface Touched {
  readonly pods: readonly TouchedPod[];
  /** Each pod's owned addresses, per side. */
  readonly owned: { readonly before: OwnedAddresses; readonly after: OwnedAddresses };
  /** Every touched pod only relabelled, and no namespace changed. */
  readonly labelsOnly: boolean;
  /** Namespaces the change applied or deleted: sets relative to one by label are resolved again. */
  readonly namespaces: ReadonlySet<string>;
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

/** Reuse for a compile of `next` from `base`, or null when more than pods, namespaces and policies changed. */
export function changeReuse(base: CompiledVersion, next: Cluster, changed: readonly ChangedObject[], index: () => SetIndex): SetReuse | null {
  if (changed.length === 0 || changed.some((o) => o.kind !== 'Pod' && o.kind !== 'Namespace' && !POLICY_KINDS.has(o.kind))) return null;
  const changedKeys = new Set(changed.filter((o) => o.kind === 'Pod').map((o) => `${o.namespace ?? 'default'}/${o.name}`));
  const namespaces = new Set(changed.filter((o) => o.kind === 'Namespace').map((o) => o.name));
  // Every pod of a changed namespace, as if it had changed (those of the base alone were deleted: changed already).
  for (const ns of namespaces) for (const p of next.podsByNamespace.get(ns) ?? []) changedKeys.add(p.key);
  // Pods whose tables a changed policy may change: bound again, though they did not change.
  const subjects = policySubjectKeys(base.cluster, next, changed);
  // A namespace without pods has no sets relative to it (they exist for tables of its pods).
  const reached = changedKeys.size === 0 ? null : setsReached(base, next, changedKeys, namespaces, index);
  // Nodes a changed pod or a changed policy's subject was or is on: every other node keeps its pods, bindings and addresses.
  const touchedNodes = new Set<string>();
  for (const c of [base.cluster, next]) {
    for (const keys of [changedKeys, subjects]) {
      for (const key of keys) {
        const node = c.podByKey.get(key)?.nodeName;
        if (node) touchedNodes.add(node);
      }
    }
  }
  return {
    // An unchanged pod is on the node it was on.
    bindings: (pod) => (changedKeys.has(pod.key) || subjects.has(pod.key) || pod.nodeName === null ? undefined : own(base.ir.nodes, pod.nodeName)?.pods[pod.key]),
    table: (id) => base.ir.tables.get(id),
    memberChanges: () => {
      const out: MemberChange[] = [];
      for (const id of reached?.ids ?? []) {
        const set = base.ir.sets.get(id);
        const change = set ? memberChange(next, base.cluster, set, reached!.touched) : UNCHANGED;
        if (change !== UNCHANGED) out.push({ id, edit: change });
      }
      return out;
    },
    earlierNode: (name) => own(base.ir.nodes, name),
    untouchedNode: (name) => (touchedNodes.has(name) ? undefined : own(base.ir.nodes, name)),
    earlier: base.ir,
    earlierStats: base.stats,
  };
}

/** The sets changed pods can reach (set-index.ts), with what their membership checks share: the others keep their members. */
function setsReached(base: CompiledVersion, next: Cluster, changedKeys: ReadonlySet<string>, namespaces: ReadonlySet<string>, index: () => SetIndex): { ids: ReadonlySet<string>; touched: Touched } {
  const owned = { before: new OwnedAddresses(base.cluster), after: new OwnedAddresses(next) };
  const pods = touchedPods(owned, base.cluster, next, changedKeys);
  const labelsOnly = namespaces.size === 0 && pods.every((t) => t.labelsOnly);
  const touched: Touched = { pods, owned, labelsOnly, namespaces, flips: new Map(), candidates: new Map(), byNamespace: new Map() };
  // Sets relative to a namespace by label are among those drawing from namespaces chosen otherwise (set-index.ts).
  const ids = touched.labelsOnly
    ? index().flippedBy(pods.map((t) => ({ namespace: t.after!.namespace, before: t.before!.labels, after: t.after!.labels })))
    : index().drawingFrom(new Set(pods.flatMap((t) => [t.before?.namespace, t.after?.namespace].filter((ns): ns is string => ns !== undefined))));
  return { ids, touched };
}

/** The changed pods, and every pod sharing an address with one of them, paired by key across both sides. */
function touchedPods(owned: Touched['owned'], before: Cluster, after: Cluster, changedKeys: ReadonlySet<string>): TouchedPod[] {
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

const UNCHANGED = 'unchanged' as const;
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
function memberChange(next: Cluster, previous: Cluster, set: IrSet, touched: Touched): MemberEdit | typeof UNCHANGED | null {
  let d: SetDefinition | null = set.definition;
  let port: PortRef | null = null;
  if (d.type === 'named-port') {
    port = { name: d.port, protocol: d.protocol };
    d = d.of;
  }
  if (d !== null && d.type === 'nodes') return UNCHANGED;
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
