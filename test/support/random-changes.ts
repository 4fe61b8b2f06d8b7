// Random changes between versions, as a watcher would send them: pod edits (relabel, move,
// readdress onto another pod's address, host network, delete, add, ports, finish, and rolling
// updates: pods deleted and as many added under new names, addresses and pod-template-hash)
// namespace edits (relabel, the DefaultDeny annotation toggled, added, deleted), node edits
// (relabel, readdress onto a pod's address, add, delete; both with pod edits or without),
// objects sent again unchanged but for what parsing drops (status updates), one policy edited in
// one direction (a rule list only, or its subject) and, less often, any
// change of objects (policies, namespaces, nodes) drawn from another random snapshot.
import fc from 'fast-check';
import { nextVersion, type CompiledState, type NextVersion } from '../../core/sets/next-version.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { POLICY_KINDS } from '../../core/cluster.js';
import type { SnapshotChanges } from '../../core/preview/changes.js';
import { changeArb, changeOf, NODES, snapshotArb } from './random-snapshot.js';

type PodItem = { kind: 'Pod'; metadata: { name: string; namespace: string; labels: Record<string, string>; ownerReferences?: object[] }; spec: { nodeName: string; hostNetwork: boolean; containers: { name: string; ports: object[] }[] }; status: { phase: string; podIP: string; podIPs: { ip: string }[] } };

const podEdit = fc.oneof(
  fc.record({ op: fc.constant('relabel' as const), pod: fc.nat(), labels: fc.dictionary(fc.constantFrom('app', 'constructor'), fc.constantFrom('x', 'y'), { maxKeys: 2 }) }),
  fc.record({ op: fc.constant('move' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('readdress' as const), pod: fc.nat(), other: fc.nat(), fresh: fc.boolean() }),
  fc.record({ op: fc.constant('host' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('add' as const), pod: fc.nat(), ns: fc.constantFrom('a', 'b', 'c', 'new'), fresh: fc.boolean() }),
  fc.record({ op: fc.constant('ports' as const), pod: fc.nat(), other: fc.nat() }),
  fc.record({ op: fc.constant('finish' as const), pod: fc.nat() }),
  fc.record({ op: fc.constant('recreate' as const), pod: fc.nat(), labels: fc.dictionary(fc.constantFrom('app', 'constructor'), fc.constantFrom('x', 'y'), { maxKeys: 2 }) }),
  fc.record({ op: fc.constant('roll' as const), pod: fc.nat(), count: fc.integer({ min: 1, max: 3 }), hash: fc.constantFrom('h1', 'h2'), owned: fc.boolean() }),
);
/**
 * snapshotArb with Deployment `web` objects in some namespaces and some pods of it (owned by its
 * ReplicaSet `web-h0`, with that pod-template-hash; the ReplicaSet object too, half the time): a
 * workload whose pods all go is an endpoint itself, one that gets its first pod is no longer.
 */
export const workloadSnapshotArb = fc.tuple(snapshotArb, fc.subarray(['a', 'b', 'c']), fc.nat(63), fc.boolean()).map(([s, namespaces, owned, replicaSets]) => ({
  ...s,
  items: [
    ...s.items.map((item, i) => {
      const p = item as unknown as PodItem;
      if (p.kind !== 'Pod' || (owned & (1 << i % 6)) === 0) return item;
      return { ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, 'pod-template-hash': 'h0' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-h0', controller: true }] } };
    }),
    ...namespaces.map((namespace) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace },
      spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 80 }] }] } } },
    })),
    // The ReplicaSet between them, as a live cluster holds it.
    ...(replicaSets ? namespaces : []).map((namespace) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-h0', namespace, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true }] },
      spec: { replicas: 2, selector: { matchLabels: { app: 'x', 'pod-template-hash': 'h0' } }, template: { metadata: { labels: { app: 'x', 'pod-template-hash': 'h0' } }, spec: { containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 80 }] }] } } },
    })),
  ],
}));

/**
 * Policy edits, as a GitOps pipeline applies them: policies of another random snapshot applied
 * (the same names replace, edited; others are new), some current policies deleted, and
 * sometimes pod edits in the same change.
 */
const policyStepArb = fc.record({ policies: changeArb, pods: fc.array(podEdit, { maxLength: 2 }) });

/**
 * One policy edited in one direction only, as a reviewer edits one rule list: its last rule of
 * that direction dropped, a rule of another policy of its kind (that direction) added, its rules
 * reversed or cleared; or its subject widened (every pod of its scope), which changes what it
 * reads in each direction it has rules for. The other direction's tables of its subjects stay.
 */
const policyDirectionStepArb = fc.record({
  direction: fc.record({ policy: fc.nat(), dir: fc.constantFrom('ingress' as const, 'egress' as const), op: fc.constantFrom('drop' as const, 'copy' as const, 'reverse' as const, 'clear' as const, 'subject' as const), other: fc.nat() }),
  pods: fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(podEdit, { minLength: 1, maxLength: 2 }) }),
});

const namespaceEdit = fc.record({
  ns: fc.constantFrom('a', 'b', 'c', 'new'),
  op: fc.oneof({ weight: 2, arbitrary: fc.constant('relabel' as const) }, { weight: 2, arbitrary: fc.constant('deny' as const) }, { weight: 1, arbitrary: fc.constant('delete' as const) }),
  labels: fc.dictionary(fc.constantFrom('app', 'constructor'), fc.constantFrom('x', 'y'), { maxKeys: 2 }),
});
/**
 * Namespace edits, with pod edits sometimes (a namespace and the pods in it, as a pipeline creates
 * them). Mostly without, and mostly of namespaces that stay: only those keep the cluster (its
 * in-place path), which the properties count.
 */
const namespaceStepArb = fc.record({ namespaces: fc.array(namespaceEdit, { minLength: 1, maxLength: 2 }), pods: fc.oneof({ weight: 2, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: fc.array(podEdit, { minLength: 1, maxLength: 2 }) }) });

const nodeEdit = fc.record({
  node: fc.constantFrom('n1', 'n2', 'n3'),
  op: fc.constantFrom('relabel' as const, 'readdress' as const, 'delete' as const),
  // relabel: the hostname label of this node or the other's (node selectors match by it), and a zone; readdress: onto a pod's address or a fresh one.
  other: fc.nat(),
  fresh: fc.boolean(),
});
/** Node edits (as an autoscaler or a relabelling admin makes them), with pod edits sometimes. */
const nodeStepArb = fc.record({ nodes: fc.array(nodeEdit, { minLength: 1, maxLength: 2 }), pods: fc.oneof(fc.constant([]), fc.array(podEdit, { minLength: 1, maxLength: 2 })) });

/**
 * A Deployment `web` applied (its template's labels and ports edited, or new) or deleted: a
 * workload change; or (`viaTemplate`) the v1 PodTemplate `web-tpl` that the Rollout `web` takes
 * its template from (workloadRef), applied with the Rollout or deleted alone. Or, half the time,
 * a step of a rollout as a live cluster's watcher sends it: a ReplicaSet `web-<hash>` (the
 * controller of pods rolled with that hash) applied with some replicas or deleted, owned by the
 * Deployment or by nothing (then its pods are its own, and without pods it is an endpoint
 * itself), with the Deployment's change or without, and pod edits.
 */
const mostly = (value: boolean) => fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: fc.constant(!value) });
const replicaSetArb = fc.record({ hash: fc.constantFrom('h0', 'h1', 'h2'), replicas: fc.constantFrom(0, 1, 2), delete: fc.boolean(), owned: mostly(true), withWorkload: mostly(false) });
const workloadStepArb = fc.record({
  workload: fc.constantFrom('a', 'b', 'c'),
  app: fc.constantFrom('x', 'y'),
  port: fc.constantFrom(80, 8080),
  delete: fc.boolean(),
  viaTemplate: fc.boolean(),
  replicaSet: fc.option(replicaSetArb, { nil: undefined }),
  pods: fc.array(podEdit, { maxLength: 2 }),
});

/**
 * Objects sent again as the base has them, but for fields parsing drops (a watcher's status
 * updates: a pod's conditions, a Deployment's replica counts), with pod edits sometimes.
 */
const resendStepArb = fc.record({ resend: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), pods: fc.oneof(fc.constant([]), fc.array(podEdit, { minLength: 1, maxLength: 2 })) });

/**
 * One version's change: pod edits (4 in 16), policy edits with or without pod edits (2 in 16) or
 * in one direction (1 in 16), namespace edits with or without pod edits (3 in 16: the fewest of
 * them keep the cluster, only those of namespaces alone, none added or deleted), node edits with
 * or without pod edits (2 in 16), a workload edit or rollout step (2 in 16), objects sent again
 * unchanged (1 in 16) or any change of objects (1 in 16).
 */
export const versionStepArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(podEdit, { minLength: 1, maxLength: 3 }) },
  { weight: 2, arbitrary: policyStepArb },
  { weight: 1, arbitrary: policyDirectionStepArb },
  { weight: 3, arbitrary: namespaceStepArb },
  { weight: 2, arbitrary: nodeStepArb },
  { weight: 2, arbitrary: workloadStepArb },
  { weight: 1, arbitrary: resendStepArb },
  { weight: 1, arbitrary: changeArb },
);

const clone = <T>(v: T): T => structuredClone(v);

/** Pod edits as a change on the current objects (apply and delete). */
function podChange(objects: readonly unknown[], edits: readonly { op: string; pod: number }[], serial: number) {
  const pods = objects.filter((o) => (o as PodItem).kind === 'Pod') as PodItem[];
  const apply = new Map<string, PodItem>();
  const del: { kind: string; namespace: string; name: string }[] = [];
  // Deleted and applied again in the same change (a pod recreated under its name): applied.
  const recreated = new Set<string>();
  let fresh = 0;
  // Addresses no pod of the random snapshots has (theirs are 10.0.0-2.x, readdressed ones 10.0.9.x).
  const freshIps = (p: PodItem) => {
    const n = fresh++;
    const [net, host] = [4 + (serial % 5), 10 + (n % 240)];
    return p.status.podIPs.some((x) => x.ip.includes(':')) ? [`10.0.${net}.${host}`, `fd00::${net}:${host.toString(16)}`] : [`10.0.${net}.${host}`];
  };
  const readdress = (p: PodItem, ips: readonly string[]) => {
    p.status.podIP = ips[0]!;
    p.status.podIPs = ips.map((ip) => ({ ip }));
  };
  for (const e of edits as { op: string; pod: number; labels?: Record<string, string>; other?: number; fresh?: boolean; ns?: string; count?: number; hash?: string; owned?: boolean }[]) {
    if (pods.length === 0) break;
    if (e.op === 'roll') {
      // A rolling update of `count` pods: each deleted, and a new one with the next template's hash.
      for (let k = 0; k < e.count!; k++) {
        const old = pods[(e.pod + k) % pods.length]!;
        if (old.spec.hostNetwork || del.some((d) => d.name === old.metadata.name && d.namespace === old.metadata.namespace)) continue;
        apply.delete(`${old.metadata.name}/${old.metadata.namespace}`);
        del.push({ kind: 'Pod', namespace: old.metadata.namespace, name: old.metadata.name });
        const p = clone(old);
        p.metadata.name = `${old.metadata.name}-${e.hash}${serial}`;
        p.metadata.labels = { ...p.metadata.labels, 'pod-template-hash': e.hash! };
        if (e.owned) p.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${e.hash}`, controller: true }];
        readdress(p, freshIps(old));
        apply.set(`${p.metadata.name}/${p.metadata.namespace}`, p);
      }
      continue;
    }
    const p = clone(apply.get(pods[e.pod % pods.length]!.metadata.name + '/' + pods[e.pod % pods.length]!.metadata.namespace) ?? pods[e.pod % pods.length]!);
    const key = `${p.metadata.name}/${p.metadata.namespace}`;
    const other = pods[(e.other ?? 0) % pods.length]!;
    switch (e.op) {
      case 'relabel':
        p.metadata.labels = e.labels!;
        break;
      case 'move':
        p.spec.nodeName = p.spec.nodeName === NODES[0]!.name ? NODES[1]!.name : NODES[0]!.name;
        break;
      case 'readdress': {
        const ip = e.fresh ? `10.0.9.${serial % 250}` : other.status.podIPs[0]!.ip;
        p.status.podIP = ip;
        p.status.podIPs = [{ ip }, ...p.status.podIPs.slice(1).filter((x) => x.ip.includes(':') !== ip.includes(':'))];
        break;
      }
      case 'host':
        p.spec.hostNetwork = !p.spec.hostNetwork;
        break;
      case 'ports':
        p.spec.containers = clone(other.spec.containers);
        break;
      case 'delete':
        apply.delete(key);
        del.push({ kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name });
        continue;
      case 'add':
        p.metadata.name = `q${serial}-${e.pod}`;
        p.metadata.namespace = e.ns!;
        if (e.fresh && !p.spec.hostNetwork) readdress(p, freshIps(p));
        break;
      case 'finish':
        p.status.phase = 'Succeeded';
        break;
      case 'recreate':
        if (!del.some((d) => d.name === p.metadata.name && d.namespace === p.metadata.namespace)) del.push({ kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name });
        p.metadata.labels = e.labels!;
        recreated.add(key);
        break;
    }
    apply.set(`${p.metadata.name}/${p.metadata.namespace}`, p);
  }
  const deleted = new Set(del.map((d) => `${d.name}/${d.namespace}`));
  return { apply: [...apply.entries()].filter(([k]) => !deleted.has(k) || recreated.has(k)).map(([, v]) => v), delete: del };
}

/** A drawn step as a change on the current objects: {apply, delete} as the API takes them. */
export function stepChange(objects: readonly unknown[], step: StepValue, serial: number) {
  if (Array.isArray(step)) return podChange(objects, step, serial);
  if ('policies' in step) return policyChange(objects, step, serial);
  if ('direction' in step) return policyDirectionChange(objects, step, serial);
  if ('namespaces' in step) return namespaceChange(objects, step, serial);
  if ('nodes' in step) return nodeChange(objects, step, serial);
  if ('workload' in step) return rolloutChange(objects, step, serial);
  if ('resend' in step) return resendChange(objects, step, serial);
  return changeOf({ items: objects }, step);
}

type NamespaceItem = { kind: 'Namespace'; metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
const DEFAULT_DENY = { 'net.beta.kubernetes.io/network-policy': '{"ingress":{"isolation":"DefaultDeny"}}' };

/** Namespace edits on the current objects: relabelled or added, the DefaultDeny annotation toggled, deleted (when there); the last edit of a namespace wins. */
function namespaceChange(objects: readonly unknown[], step: { namespaces: readonly { ns: string; op: 'relabel' | 'deny' | 'delete'; labels: Record<string, string> }[]; pods: readonly { op: string; pod: number }[] }, serial: number) {
  const current = new Map((objects as NamespaceItem[]).filter((o) => o.kind === 'Namespace').map((o) => [o.metadata.name, o]));
  const apply = new Map<string, NamespaceItem>();
  const del = new Set<string>();
  for (const e of step.namespaces) {
    const was = apply.get(e.ns) ?? current.get(e.ns) ?? { kind: 'Namespace', metadata: { name: e.ns } };
    if (e.op === 'delete') {
      apply.delete(e.ns);
      if (current.has(e.ns)) del.add(e.ns);
      continue;
    }
    const annotations = e.op === 'deny' ? (was.metadata.annotations ? undefined : DEFAULT_DENY) : was.metadata.annotations;
    // A relabel always changes the namespace (`rev`, which no selector reads, differs per step): one to the same labels would be no change, and objects sent unchanged have a step of their own.
    const labels = e.op === 'relabel' ? { ...e.labels, rev: String(serial) } : was.metadata.labels;
    apply.set(e.ns, { kind: 'Namespace', metadata: { name: e.ns, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) } });
    del.delete(e.ns);
  }
  const pods = step.pods.length > 0 ? podChange(objects, step.pods, serial) : { apply: [], delete: [] };
  const namespaces = [...apply.values()].map((o) => ({ apiVersion: 'v1', ...o }));
  return { apply: [...namespaces, ...pods.apply], delete: [...[...del].map((name) => ({ kind: 'Namespace', name })), ...pods.delete] };
}

function policyChange(objects: readonly unknown[], step: { policies: Parameters<typeof changeOf>[1]; pods: readonly { op: string; pod: number }[] }, serial: number) {
  const isPolicy = (o: unknown) => POLICY_KINDS.has((o as { kind: string }).kind);
  const policies = changeOf({ items: objects.filter(isPolicy) }, { ...step.policies, other: { items: step.policies.other.items.filter(isPolicy) } });
  const pods = step.pods.length > 0 ? podChange(objects, step.pods, serial) : { apply: [], delete: [] };
  return { apply: [...policies.apply, ...pods.apply], delete: [...policies.delete, ...pods.delete] };
}

type PolicyItem = { kind: string; metadata: { name: string; namespace?: string }; spec: Record<string, unknown> & { ingress?: unknown[]; egress?: unknown[] } };

function policyDirectionChange(objects: readonly unknown[], step: { direction: { policy: number; dir: 'ingress' | 'egress'; op: 'drop' | 'copy' | 'reverse' | 'clear' | 'subject'; other: number }; pods: readonly { op: string; pod: number }[] }, serial: number) {
  const pods = step.pods.length > 0 ? podChange(objects, step.pods, serial) : { apply: [], delete: [] };
  const policies = (objects as PolicyItem[]).filter((o) => POLICY_KINDS.has(o.kind));
  const { policy: at, dir, op, other } = step.direction;
  const was = policies[at % Math.max(1, policies.length)];
  if (!was) return pods;
  const edited: PolicyItem = structuredClone(was);
  const rules = edited.spec[dir] ?? [];
  if (op === 'drop') edited.spec[dir] = rules.slice(0, -1);
  else if (op === 'reverse') edited.spec[dir] = [...rules].reverse();
  else if (op === 'clear') edited.spec[dir] = [];
  else if (op === 'copy') {
    const donors = policies.filter((o) => o.kind === was.kind && (o.spec[dir]?.length ?? 0) > 0);
    const donor = donors[other % Math.max(1, donors.length)];
    if (donor) edited.spec[dir] = [...rules, structuredClone(donor.spec[dir]![other % donor.spec[dir]!.length])];
  } else if (was.kind === 'NetworkPolicy') edited.spec.podSelector = {};
  else edited.spec.subject = { namespaces: {} };
  return { apply: [edited, ...pods.apply], delete: pods.delete };
}

type ObjectItem = { kind: string; metadata: { name: string; namespace?: string } };

/** A workload step: the workload's change, and with a ReplicaSet drawn, that ReplicaSet's and the pod edits (as one change). */
function rolloutChange(objects: readonly unknown[], step: typeof workloadStepArb extends fc.Arbitrary<infer T> ? T : never, serial: number) {
  const rs = step.replicaSet;
  if (!rs) return workloadChange(objects, step);
  const parts = [rs.withWorkload ? workloadChange(objects, step) : { apply: [], delete: [] }, replicaSetChange(objects, step.workload, step.app, rs), podChange(objects, step.pods, serial)];
  return { apply: parts.flatMap((p) => p.apply as unknown[]), delete: parts.flatMap((p) => p.delete) };
}

/** The ReplicaSet `web-<hash>` of a namespace applied (its pods' template: the app label and the hash), or deleted when it is there. */
function replicaSetChange(objects: readonly unknown[], namespace: string, app: string, rs: { hash: string; replicas: number; delete: boolean; owned: boolean }) {
  const name = `web-${rs.hash}`;
  const there = (objects as ObjectItem[]).some((o) => o.kind === 'ReplicaSet' && o.metadata.name === name && o.metadata.namespace === namespace);
  if (rs.delete && there) return { apply: [], delete: [{ kind: 'ReplicaSet', namespace, name }] };
  const labels = { app, 'pod-template-hash': rs.hash };
  const ownerReferences = rs.owned ? [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', controller: true }] : [];
  const template = { metadata: { labels }, spec: { containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 80 }] }] } };
  return { apply: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace, ownerReferences }, spec: { replicas: rs.replicas, selector: { matchLabels: labels }, template } }], delete: [] };
}

/**
 * The Deployment `web` of a namespace applied with the step's template, or deleted when it is
 * there; or the PodTemplate `web-tpl` applied with the Rollout `web` that names it, or deleted
 * alone (the Rollout then has no known template).
 */
function workloadChange(objects: readonly unknown[], step: { workload: string; app: string; port: number; delete: boolean; viaTemplate: boolean }) {
  const [kind, name] = step.viaTemplate ? ['PodTemplate', 'web-tpl'] : ['Deployment', 'web'];
  const there = (objects as ObjectItem[]).some((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === step.workload);
  if (step.delete && there) return { apply: [], delete: [{ kind, namespace: step.workload, name }] };
  // A Rollout's selector matches what stays of its template's labels as the template changes.
  const labels = step.viaTemplate ? { app: step.app, rollout: 'web' } : { app: step.app };
  const template = { metadata: { labels }, spec: { containers: [{ name: 'c', ports: [{ name: 'web', containerPort: step.port }] }] } };
  const metadata = { name, namespace: step.workload };
  if (!step.viaTemplate) return { apply: [{ apiVersion: 'apps/v1', kind, metadata, spec: { selector: { matchLabels: labels }, template } }], delete: [] };
  const rollout = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'web', namespace: step.workload }, spec: { selector: { matchLabels: { rollout: 'web' } }, workloadRef: { apiVersion: 'v1', kind, name } } };
  return { apply: [{ apiVersion: 'v1', kind, metadata, template }, rollout], delete: [] };
}

/** Current objects sent again with status fields parsing drops, and the step's pod edits (which win for a pod both name). */
function resendChange(objects: readonly unknown[], step: { resend: readonly number[]; pods: readonly { op: string; pod: number }[] }, serial: number) {
  const sent = new Map<unknown, Record<string, unknown>>();
  for (const i of step.resend) {
    const o = objects[i % objects.length] as { kind: string; status?: Record<string, unknown> } | undefined;
    if (!o) continue;
    const again: Record<string, unknown> = structuredClone(o);
    if (o.kind === 'Pod') again.status = { ...o.status, conditions: [{ type: 'Ready', status: serial % 2 === 0 ? 'True' : 'False' }] };
    else if (o.kind === 'Deployment') again.status = { observedGeneration: serial, readyReplicas: serial % 3 };
    sent.set(o, again);
  }
  const pods = step.pods.length > 0 ? podChange(objects, step.pods, serial) : { apply: [], delete: [] };
  return { apply: [...sent.values(), ...pods.apply], delete: pods.delete };
}

type NodeItem = { kind: 'Node'; metadata: { name: string; labels?: Record<string, string> }; status?: { addresses?: { type: string; address: string }[] } };

/** Node edits on the current objects: relabelled, readdressed (onto a pod's address or a fresh one) or added, deleted (when there); the last edit of a node wins. */
function nodeChange(objects: readonly unknown[], step: { nodes: readonly { node: string; op: 'relabel' | 'readdress' | 'delete'; other: number; fresh: boolean }[]; pods: readonly { op: string; pod: number }[] }, serial: number) {
  const current = new Map((objects as NodeItem[]).filter((o) => o.kind === 'Node').map((o) => [o.metadata.name, o]));
  const pods = (objects as PodItem[]).filter((o) => o.kind === 'Pod');
  const apply = new Map<string, NodeItem>();
  const del = new Set<string>();
  for (const e of step.nodes) {
    const was = apply.get(e.node) ?? current.get(e.node) ?? { kind: 'Node', metadata: { name: e.node, labels: { 'kubernetes.io/hostname': e.node } }, status: { addresses: [{ type: 'InternalIP', address: `172.18.0.${9 + (serial % 5)}` }] } };
    if (e.op === 'delete') {
      apply.delete(e.node);
      if (current.has(e.node)) del.add(e.node);
      continue;
    }
    const node: NodeItem = structuredClone(was);
    if (e.op === 'relabel') node.metadata.labels = { 'kubernetes.io/hostname': e.other % 2 === 0 ? e.node : e.node === 'n1' ? 'n2' : 'n1', ...(e.fresh ? { zone: 'x' } : {}) };
    else {
      const pod = pods.length > 0 ? pods[e.other % pods.length] : undefined;
      const v4 = e.fresh || !pod ? `172.18.0.${20 + (serial % 5)}` : pod.status.podIPs[0]!.ip;
      node.status = { addresses: [{ type: 'InternalIP', address: v4 }, ...(node.status?.addresses ?? []).filter((a) => a.address.includes(':') !== v4.includes(':'))] };
    }
    apply.set(e.node, node);
    del.delete(e.node);
  }
  const podEdits = step.pods.length > 0 ? podChange(objects, step.pods, serial) : { apply: [], delete: [] };
  const nodes = [...apply.values()].map((o) => ({ apiVersion: 'v1', ...o }));
  return { apply: [...nodes, ...podEdits.apply], delete: [...[...del].map((name) => ({ kind: 'Node', name })), ...podEdits.delete] };
}

type StepValue = typeof versionStepArb extends fc.Arbitrary<infer T> ? T : never;

/** The version a drawn step makes from `state` (and the change), as PUT with {base, changes} does, warm or cold; null when the step's objects do not parse or apply. */
export function nextVersionFrom(state: CompiledState, step: StepValue, serial: number, cold = false): (Extract<NextVersion, { ok: true }> & { changes: SnapshotChanges }) | null {
  const raw = stepChange(state.snapshot.objects, step, serial);
  const apply = parseSnapshot({ items: raw.apply }, '$.changes.apply');
  if (!apply.ok) return null;
  const changes: SnapshotChanges = { apply: apply.snapshot, delete: raw.delete };
  // Cold: the base's objects alone, as a server that read them from the store has them.
  const next = nextVersion(cold ? { snapshot: state.snapshot } : state, changes);
  return next.ok ? { ...next, changes } : null;
}
