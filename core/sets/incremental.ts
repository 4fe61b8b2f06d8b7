// A version's set form from the previous one's, when only pods changed (added, deleted,
// relabelled, readdressed, moved: what a cluster does all day). It must equal a full compile of
// the same objects, ids and bodies (property-tested), so it reuses only what cannot differ:
//  - a pod's tables depend on its namespace, labels and named ports and on the policies
//    (compile/group.ts); an unchanged pod keeps its table ids when no policy or namespace changed;
//  - a set's members depend on the pods its definition matches: a set keeps its members unless
//    a changed pod is a member on one side only, or on both with other owned addresses or named
//    ports (an over-approximation is only slower, never wrong); CIDR and node sets do not depend
//    on pods at all, because node addresses are owned before any pod's (snapshot/cluster.ts ipOwners);
//  - a pod owning an address of a changed pod, before or after, counts as touched: which of
//    them owns the address may move.
// Anything else that changed (policies, namespaces, nodes, workloads, services) gets a full compile.
import type { Cluster } from '../cluster.js';
import { namespaceMatches } from '../evaluate/match.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';
import type { Peer, Protocol } from '../policy/model.js';
import type { IrSet, SetDefinition, SetIr, SetId } from './ir.js';
import type { SetCompileStats, SetReuse } from './compile.js';
import type { CompiledSelector } from '../../schemas/k8s/label-selector.js';
import type { SetIndex } from './set-index.js';
import { compiledPodSelector, resolveDefinition, subjectIn } from './resolve.js';

/** The earlier version: its cluster and the set form compiled from it. */
export interface CompiledVersion {
  readonly cluster: Cluster;
  readonly ir: SetIr;
  readonly stats?: SetCompileStats | undefined;
}

/** An object a change applied or deleted. */
export interface ChangedObject {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** The pods a change touched, and what membership checks learn about them once per change. */
interface Touched {
  readonly pods: readonly TouchedPod[];
  /** Every touched pod only relabelled. */
  readonly labelsOnly: boolean;
  /** Per pod selector (canonical key): whether it matches some touched pod on one side only. */
  readonly flips: Map<string, boolean>;
}

/** A changed pod (or one sharing an address with it) as it was and as it is; either may be absent. */
interface TouchedPod {
  readonly before: PodInfo | undefined;
  readonly after: PodInfo | undefined;
  /** On both sides with the same namespace, node-independent facts and owned addresses: only labels may differ. */
  readonly labelsOnly: boolean;
}

/** Reuse for a compile of `next` from `base`, or null when more than pods changed. */
export function podChangeReuse(base: CompiledVersion, next: Cluster, changed: readonly ChangedObject[], index: () => SetIndex): SetReuse | null {
  if (changed.length === 0 || changed.some((o) => o.kind !== 'Pod')) return null;
  const changedKeys = new Set(changed.map((o) => `${o.namespace ?? 'default'}/${o.name}`));
  const pods = touchedPods(base.cluster, next, changedKeys);
  const touched: Touched = { pods, labelsOnly: pods.every((t) => t.labelsOnly), flips: new Map() };
  // Only the sets a change can reach are looked at (set-index.ts): the others keep their members.
  const reached = touched.labelsOnly
    ? index().flippedBy(pods.map((t) => ({ namespace: t.after!.namespace, before: t.before!.labels, after: t.after!.labels })))
    : index().drawingFrom(new Set(pods.flatMap((t) => [t.before?.namespace, t.after?.namespace].filter((ns): ns is string => ns !== undefined))));
  // Nodes a changed pod was or is on: every other node keeps its pods, bindings and addresses.
  const touchedNodes = new Set<string>();
  for (const c of [base.cluster, next]) {
    for (const key of changedKeys) {
      const node = c.podByKey.get(key)?.nodeName;
      if (node) touchedNodes.add(node);
    }
  }
  return {
    // An unchanged pod is on the node it was on.
    bindings: (pod) => (changedKeys.has(pod.key) || pod.nodeName === null ? undefined : base.ir.nodes[pod.nodeName]?.pods[pod.key]),
    table: (id) => base.ir.tables.get(id),
    setsToResolve: () => {
      const out: SetId[] = [];
      for (const id of reached) {
        const set = base.ir.sets.get(id);
        if (set && membersMayDiffer(next, base.cluster, set, touched)) out.push(id);
      }
      return out;
    },
    earlierNode: (name) => base.ir.nodes[name],
    untouchedNode: (name) => (touchedNodes.has(name) ? undefined : base.ir.nodes[name]),
    earlier: base.ir,
    earlierStats: base.stats,
  };
}

/** The changed pods, and every pod sharing an address with one of them, paired by key across both sides. */
function touchedPods(before: Cluster, after: Cluster, changedKeys: ReadonlySet<string>): TouchedPod[] {
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
  return [...keys].map((key) => {
    const [b, a] = [before.podByKey.get(key), after.podByKey.get(key)];
    const labelsOnly = b !== undefined && a !== undefined && b.hostNetwork === a.hostNetwork && b.ips.length === a.ips.length && ownedText(before, b) === ownedText(after, a) && JSON.stringify(b.namedPorts) === JSON.stringify(a.namedPorts);
    return { before: b, after: a, labelsOnly };
  });
}

type PortRef = { readonly name: string; readonly protocol: Protocol | null };

/**
 * Whether the set's members may differ: some touched pod is a member on one side only, or a
 * member on both with other addresses or (port sets) other named ports. A pod relabelled
 * without entering or leaving the set changes nothing (most sets select by namespace alone).
 * Conservative where a side cannot be read exactly (relative sets whose namespace appeared or
 * went, ports sets over CIDRs): an over-approximation is only slower, never wrong. Called for
 * every set of a version, so it makes no closures and resolves namespaces only for sets a
 * touched pod's labels could be in.
 */
function membersMayDiffer(next: Cluster, previous: Cluster, set: IrSet, touched: Touched): boolean {
  let d: SetDefinition | null = set.definition;
  let port: PortRef | null = null;
  if (d.type === 'named-port') {
    port = { name: d.port, protocol: d.protocol };
    d = d.of;
  }
  if (d !== null && d.type === 'nodes') return false;
  if (d !== null && (d.type === 'cidrs' || d.type === 'named-port')) {
    // A CIDR set's members are addresses, whoever has them; its ports set holds the pods in them.
    if (port === null) return false;
    for (const t of touched.pods) if (portsOf(t.before, port) !== '' || portsOf(t.after, port) !== '') return true;
    return false;
  }
  // A relabel reaches only sets whose pod selector it flips (the pod's share is the same on both sides).
  if (touched.labelsOnly && (d === null || d.pods === null)) return false;
  const podSelector = d === null || d.pods === null ? null : compiledPodSelector(d.pods);
  if (podSelector !== null && touched.labelsOnly) {
    // Thousands of sets share a few selectors (one per app label): each is tried once per change.
    let flips = touched.flips.get(podSelector.key);
    if (flips === undefined) touched.flips.set(podSelector.key, (flips = touched.pods.some((t) => podSelector.matches(t.before!.labels) !== podSelector.matches(t.after!.labels))));
    if (!flips) return false;
  }
  // Sets of one named namespace (most NetworkPolicy peers) hold no pod of another.
  const only = d === null ? null : 'name' in d.namespaces ? d.namespaces.name : 'self' in d.namespaces ? d.namespaces.self : null;
  let any = false;
  for (const t of touched.pods) if ((any = (only === null || (t.before ?? t.after)!.namespace === only) && (candidate(t.before, podSelector, port) || candidate(t.after, podSelector, port)))) break;
  if (!any) return false;
  const [was, is] = d === null ? [ANY, ANY] : [peerIn(previous, d), peerIn(next, d)];
  if (was === null || is === null) return true;
  for (const { before, after } of touched.pods) {
    const inBefore = candidate(before, podSelector, port) && inNamespaces(previous, was, before!);
    const inAfter = candidate(after, podSelector, port) && inNamespaces(next, is, after!);
    if (inBefore !== inAfter) return true;
    if (inBefore && (ownedText(previous, before!) !== ownedText(next, after!) || portsOf(before, port) !== portsOf(after, port))) return true;
  }
  return false;
}

/** A pods set's namespaces in one cluster; ANY for a ports set over every pod; null when it cannot be told. */
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

/** The addresses that resolve to a pod (ipOwners), as text: what a set holds of it. */
function ownedText(c: Cluster, pod: PodInfo): string {
  let out = '';
  for (const ip of pod.ips) {
    const o = c.ipOwners.get(ipKey(ip));
    if (o?.kind === 'pod' && o.pod === pod) out += `${ipKey(ip)},`;
  }
  return out;
}
