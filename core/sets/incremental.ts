// A version's set form from the previous one's and a change of any objects: pods added,
// deleted, relabelled, readdressed, moved (what a cluster does all day), policies (what a
// GitOps pipeline applies), namespaces relabelled, annotated, added or deleted, nodes added,
// deleted, relabelled, readdressed (what an autoscaler does), workloads and Services. It must
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
//    and those relative sets are resolved again;
//  - a node's labels and addresses are read by node sets (resolved again), by its own record
//    (its addresses: node-local allowances) and by address ownership (node addresses are owned
//    before any pod's): a pod owning one of a changed node's addresses, on either side, counts
//    as changed; pods' tables never read nodes (no policy selects host-network pods);
//  - workloads, PodTemplates and Services are read by no table and no set: a workload without
//    pods is an endpoint without an address (no tables, in no set: snapshot/cluster.ts
//    endpointFacts), a PodTemplate only gives a Rollout's such endpoint its labels and ports
//    (snapshot/owners.ts templateOf), a pod's workload names its controller for answers, and
//    Services are read by answers alone; their changes touch nothing here.
// Any other change (a compile for some nodes, a base without its set form) gets a full compile.
import { POLICY_KINDS, type Cluster } from '../cluster.js';
import { WORKLOAD_KIND_NAMES } from '../../schemas/k8s/workload.js';
import { ipKey } from '../snapshot/cluster.js';
import type { SetIr } from './ir.js';
import type { SetCompileStats, SetReuse } from './compile.js';
import type { MemberChange } from './member-edit.js';
import { OwnedAddresses } from './members.js';
import type { SetIndex } from './set-index.js';
import { own } from '../names-record.js';
import { policySubjectKeys, type ChangedObject } from './policy-subjects.js';
import { memberChange, touchedPods, UNCHANGED, type Touched } from './touched.js';

/** The earlier version: its cluster and the set form compiled from it. */
export interface CompiledVersion {
  readonly cluster: Cluster;
  readonly ir: SetIr;
  readonly stats?: SetCompileStats | undefined;
}

/** Every kind a snapshot holds; one added to the snapshot schema is compiled whole until this file says what its changes touch. */
const REUSING_KINDS: ReadonlySet<string> = new Set(['Pod', 'Namespace', 'Node', 'Service', ...WORKLOAD_KIND_NAMES, 'PodTemplate', ...POLICY_KINDS]);

/** Reuse for a compile of `next` from `base`, or null when objects of other kinds changed. */
export function changeReuse(base: CompiledVersion, next: Cluster, changed: readonly ChangedObject[], index: () => SetIndex): SetReuse | null {
  if (changed.some((o) => !REUSING_KINDS.has(o.kind))) return null;
  const changedKeys = new Set(changed.filter((o) => o.kind === 'Pod').map((o) => `${o.namespace ?? 'default'}/${o.name}`));
  const namespaces = new Set(changed.filter((o) => o.kind === 'Namespace').map((o) => o.name));
  const nodes = new Set(changed.filter((o) => o.kind === 'Node').map((o) => o.name));
  // Every pod of a changed namespace, as if it had changed (those of the base alone were deleted: changed already).
  for (const ns of namespaces) for (const p of next.podsByNamespace.get(ns) ?? []) changedKeys.add(p.key);
  // Every pod owning a changed node's address on some side: the node may take it, or give it up.
  for (const c of [base.cluster, next]) {
    for (const name of nodes) {
      for (const ip of c.nodeByName.get(name)?.ips ?? []) {
        for (const owners of [base.cluster.ipOwners, next.ipOwners]) {
          const o = owners.get(ipKey(ip));
          if (o?.kind === 'pod') changedKeys.add(o.pod.key);
        }
      }
    }
  }
  // Pods whose tables a changed policy may change: bound again, though they did not change.
  const subjects = policySubjectKeys(base.cluster, next, changed);
  // No pod touched and no node changed: every set keeps its members (a namespace without pods
  // has no sets relative to it: they exist for tables of its pods).
  const reached = changedKeys.size === 0 && nodes.size === 0 ? null : setsReached(base, next, changedKeys, namespaces, nodes.size > 0, index);
  // Nodes a changed pod or a changed policy's subject was or is on, and changed nodes: every other node keeps its pods, bindings and addresses.
  const touchedNodes = new Set<string>(nodes);
  for (const c of [base.cluster, next]) {
    for (const keys of [changedKeys, subjects.ingress, subjects.egress]) {
      for (const key of keys) {
        const node = c.podByKey.get(key)?.nodeName;
        if (node) touchedNodes.add(node);
      }
    }
  }
  return {
    // An unchanged pod is on the node it was on.
    bindings: (pod) => (changedKeys.has(pod.key) || subjects.ingress.has(pod.key) || subjects.egress.has(pod.key) || pod.nodeName === null ? undefined : own(base.ir.nodes, pod.nodeName)?.pods[pod.key]),
    // A changed policy's subject keeps its table for a direction the policy reads the same in (policy-subjects.ts).
    keptTable: (pod, dir) => (changedKeys.has(pod.key) || subjects[dir].has(pod.key) || pod.nodeName === null ? undefined : own(base.ir.nodes, pod.nodeName)?.pods[pod.key]?.[dir]),
    // A subject only Admin-tier policy changes reach: its other tiers are its earlier table's (policy-subjects.ts).
    keptTiers: (pod, dir) => {
      if (changedKeys.has(pod.key) || subjects.belowAdmin[dir].has(pod.key) || pod.nodeName === null) return undefined;
      const id = own(base.ir.nodes, pod.nodeName)?.pods[pod.key]?.[dir];
      return id === undefined ? undefined : base.ir.tables.get(id);
    },
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
function setsReached(base: CompiledVersion, next: Cluster, changedKeys: ReadonlySet<string>, namespaces: ReadonlySet<string>, nodes: boolean, index: () => SetIndex): { ids: ReadonlySet<string>; touched: Touched } {
  const owned = { before: new OwnedAddresses(base.cluster), after: new OwnedAddresses(next) };
  const pods = touchedPods(owned, base.cluster, next, changedKeys);
  const labelsOnly = namespaces.size === 0 && pods.every((t) => t.labelsOnly);
  const touched: Touched = { pods, owned, labelsOnly, namespaces, nodes, flips: new Map(), candidates: new Map(), byNamespace: new Map() };
  // Sets relative to a namespace by label are among those drawing from namespaces chosen otherwise (set-index.ts).
  const ids = touched.labelsOnly
    ? index().flippedBy(pods.map((t) => ({ namespace: t.after!.namespace, before: t.before!.labels, after: t.after!.labels })))
    : index().drawingFrom(new Set(pods.flatMap((t) => [t.before?.namespace, t.after?.namespace].filter((ns): ns is string => ns !== undefined))));
  if (nodes) for (const id of index().nodeSets()) ids.add(id);
  return { ids, touched };
}
