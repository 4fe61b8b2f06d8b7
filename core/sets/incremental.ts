// A version's set form from the previous one's, when only pods changed (added, deleted,
// relabelled, readdressed, moved: what a cluster does all day). It must equal a full compile of
// the same objects, ids and bodies (property-tested), so it reuses only what cannot differ:
//  - a pod's tables depend on its namespace, labels and named ports and on the policies
//    (compile/group.ts); an unchanged pod keeps its table ids when no policy or namespace changed;
//  - a set's members depend on the pods its definition matches: a set keeps its members unless
//    a changed pod, before or after the change, could be one of them (an over-approximation is
//    only slower, never wrong); CIDR and node sets do not depend on pods at all, because node
//    addresses are owned before any pod's (snapshot/cluster.ts ipOwners);
//  - a pod sharing an address with a changed pod counts as changed: which of them owns the
//    address may move.
// Anything else that changed (policies, namespaces, nodes, workloads, services) gets a full compile.
import type { Cluster } from '../cluster.js';
import { namespaceMatches } from '../evaluate/match.js';
import { ipKey, type PodInfo } from '../snapshot/cluster.js';
import type { IrSet, SelectorDefinition, SetDefinition, SetIr, SetId } from './ir.js';
import type { SetReuse } from './compile.js';
import { compileSelector, type CompiledSelector } from '../select/selector.js';
import { resolveDefinition, selectorSpec, subjectIn } from './resolve.js';

/** The earlier version: its cluster and the set form compiled from it. */
export interface CompiledVersion {
  readonly cluster: Cluster;
  readonly ir: SetIr;
}

/** An object a change applied or deleted. */
export interface ChangedObject {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/** Pods as they were and as they are (either side may be absent). */
interface Touched {
  readonly before: readonly PodInfo[];
  readonly after: readonly PodInfo[];
}

/** Reuse for a compile of `next` from `base`, or null when more than pods changed. */
export function podChangeReuse(base: CompiledVersion, next: Cluster, changed: readonly ChangedObject[]): SetReuse | null {
  if (changed.length === 0 || changed.some((o) => o.kind !== 'Pod')) return null;
  const changedKeys = new Set(changed.map((o) => `${o.namespace ?? 'default'}/${o.name}`));
  const touched = touchedPods(base.cluster, next, changedKeys);
  // Nodes a changed pod was or is on: every other node keeps its pods, bindings and addresses.
  const touchedNodes = new Set<string>();
  for (const c of [base.cluster, next]) {
    for (const key of changedKeys) {
      const node = c.podByKey.get(key)?.nodeName;
      if (node) touchedNodes.add(node);
    }
  }
  const verdicts = new Map<SetId, boolean>();
  return {
    // An unchanged pod is on the node it was on.
    bindings: (pod) => (changedKeys.has(pod.key) || pod.nodeName === null ? undefined : base.ir.nodes[pod.nodeName]?.pods[pod.key]),
    table: (id) => base.ir.tables[id],
    unchangedSet: (id) => {
      const set = base.ir.sets[id];
      if (!set) return undefined;
      let affected = verdicts.get(id);
      if (affected === undefined) verdicts.set(id, (affected = mayHold(next, base.cluster, set, touched)));
      return affected ? undefined : set;
    },
    earlierSet: (id) => base.ir.sets[id],
    earlierNode: (name) => base.ir.nodes[name],
    untouchedNode: (name) => (touchedNodes.has(name) ? undefined : base.ir.nodes[name]),
    earlier: base.ir,
  };
}

/** The changed pods, and every pod sharing an address with one of them, on both sides. */
function touchedPods(before: Cluster, after: Cluster, changedKeys: ReadonlySet<string>): Touched {
  const ips = new Set<string>();
  for (const c of [before, after]) for (const key of changedKeys) for (const ip of c.podByKey.get(key)?.ips ?? []) ips.add(ipKey(ip));
  const pick = (c: Cluster) => c.pods.filter((p) => changedKeys.has(p.key) || p.ips.some((ip) => ips.has(ipKey(ip))));
  return { before: pick(before), after: pick(after) };
}

/** Whether any touched pod, before or after, could be a member of the set. */
function mayHold(next: Cluster, previous: Cluster, set: IrSet, touched: Touched): boolean {
  let d: SetDefinition | null = set.definition;
  let pods = [...touched.before, ...touched.after];
  if (d.type === 'named-port') {
    // Only pods naming the port can be elements, and only if the peer could hold them.
    const port = d.port;
    pods = pods.filter((p) => p.namedPorts.some((np) => np.name === port));
    if (pods.length === 0) return false;
    d = d.of;
    if (d === null) return true;
  }
  if (d.type === 'nodes') return false;
  // A CIDR set's members are addresses, whoever has them; a ports set over CIDRs holds the pods in them.
  if (d.type === 'cidrs') return set.definition.type === 'named-port';
  if (d.type === 'named-port') return true;
  // The pod selector first: most sets are told apart by it, without resolving namespaces.
  const podSelector = d.pods === null ? null : compiledOnce(d.pods);
  const candidates = podSelector ? pods.filter((p) => podSelector.matches(p.labels)) : pods;
  if (candidates.length === 0) return false;
  const { peer, subjectNamespace } = resolveDefinition(next, d);
  const subject = subjectIn(next, subjectNamespace);
  if (peer.type !== 'pods' || !subject) return true;
  return candidates.some((p) => {
    // Namespaces did not change (only pods did), so the later cluster's are the pod's; one
    // that exists on one side only (implicit, with its pods) counts.
    const ns = next.nsByName.get(p.namespace);
    return ns === undefined || previous.nsByName.get(p.namespace) === undefined || namespaceMatches(next, peer.namespaces, ns, subject);
  });
}

// Set definitions live as long as the versions that hold them: each selector compiles once.
const compiled = new WeakMap<SelectorDefinition, CompiledSelector>();
function compiledOnce(d: SelectorDefinition): CompiledSelector {
  let c = compiled.get(d);
  if (!c) compiled.set(d, (c = compileSelector(selectorSpec(d))));
  return c;
}
