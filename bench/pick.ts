// Objects the change benches edit, picked the same way everywhere: a pod a NetworkPolicy selects
// by label (relabelling it changes what policies select), and the pods of one workload.
import type { K8sObject } from './generate.js';

export /** The first (by namespace/name) NetworkPolicy that selects pods by `app`, and a pod it selects. */
function podSelectedByLabel(items: readonly K8sObject[]): { pod: K8sObject; policy: K8sObject; app: string } {
  const policies = items
    .filter((o) => o.kind === 'NetworkPolicy' && typeof (o.spec as any)?.podSelector?.matchLabels?.app === 'string')
    .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  for (const policy of policies) {
    const match = (policy.spec as any).podSelector.matchLabels as Record<string, string>;
    const pod = items.find(
      (o) => o.kind === 'Pod' && o.metadata.namespace === policy.metadata.namespace && !(o.spec as any)?.hostNetwork && Object.entries(match).every(([k, v]) => o.metadata.labels?.[k] === v),
    );
    if (pod) return { pod, policy, app: match.app! };
  }
  throw new Error('no NetworkPolicy selects a pod by app label');
}


/** The `count` pods of the largest app in one namespace (a Deployment's replicas), for a rolling update. */
export function podsOfOneApp(items: readonly K8sObject[], count: number): K8sObject[] {
  const byApp = new Map<string, K8sObject[]>();
  for (const o of items) {
    if (o.kind !== 'Pod' || (o.spec as any)?.hostNetwork) continue;
    const key = `${o.metadata.namespace}/${o.metadata.labels?.app ?? ''}`;
    (byApp.get(key) ?? byApp.set(key, []).get(key)!).push(o);
  }
  const largest = [...byApp.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  // Not enough replicas in one app: the largest ones, as a rollout over several Deployments.
  return largest.length >= count ? largest.slice(0, count) : [...byApp.values()].sort((a, b) => b.length - a.length).flat().slice(0, count);
}

/**
 * The `nth` NetworkPolicy (by namespace/name) that selects pods by `app`, edited as a pull
 * request would: one more ingress rule, from a client app on a port of its own (a new peer set).
 */
export function editedPolicy(items: readonly K8sObject[], nth: number): { before: K8sObject; after: K8sObject } {
  // Policies that select some pod (a filler policy's `version` label may select none).
  const pods = items.filter((o) => o.kind === 'Pod' && !(o.spec as any)?.hostNetwork);
  const selects = (policy: K8sObject) => {
    const match = Object.entries((policy.spec as any).podSelector.matchLabels as Record<string, string>);
    return pods.some((o) => o.metadata.namespace === policy.metadata.namespace && match.every(([k, v]) => o.metadata.labels?.[k] === v));
  };
  const policies = items
    .filter((o) => o.kind === 'NetworkPolicy' && typeof (o.spec as any)?.podSelector?.matchLabels?.app === 'string' && (o.spec as any).podSelector.matchExpressions === undefined)
    .sort((a, b) => `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`));
  let before: K8sObject | undefined;
  for (let i = 0; i < policies.length && !before; i++) {
    const p = policies[(nth * 7919 + i) % policies.length]!;
    if (selects(p)) before = p;
  }
  if (!before) throw new Error('no NetworkPolicy selects a pod by app label');
  const spec = before.spec as { policyTypes?: string[]; ingress?: unknown[] };
  const rule = { from: [{ podSelector: { matchLabels: { app: `bench-client-${nth}` } } }], ports: [{ protocol: 'TCP', port: 9000 + nth }] };
  const policyTypes = spec.policyTypes && !spec.policyTypes.includes('Ingress') ? [...spec.policyTypes, 'Ingress'] : spec.policyTypes;
  return { before, after: { ...before, spec: { ...spec, ...(policyTypes ? { policyTypes } : {}), ingress: [...(spec.ingress ?? []), rule] } } };
}

/** The first AdminNetworkPolicy (by name) with ingress rules, with one more Deny rule in front of them. */
export function editedAdminPolicy(items: readonly K8sObject[]): { before: K8sObject; after: K8sObject } | null {
  const before = items.filter((o) => o.kind === 'AdminNetworkPolicy' && Array.isArray((o.spec as any)?.ingress)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
  if (!before) return null;
  const spec = before.spec as { ingress: unknown[] };
  const rule = { name: 'bench-deny-scanner', action: 'Deny', from: [{ namespaces: { matchLabels: { 'bench-scanner': 'true' } } }] };
  return { before, after: { ...before, spec: { ...spec, ingress: [rule, ...spec.ingress] } } };
}

/** The first (by name) `env: dev` namespace promoted to `env: prod`: the admin policies selecting by env now select its pods, and peers by env see them. */
export function promotedNamespace(items: readonly K8sObject[]): { before: K8sObject; after: K8sObject } | null {
  const before = items.filter((o) => o.kind === 'Namespace' && o.metadata.labels?.env === 'dev').sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
  if (!before) return null;
  return { before, after: { ...before, metadata: { ...before.metadata, labels: { ...before.metadata.labels, env: 'prod' } } } };
}

/** A worker node added, as an autoscaler adds one: the last worker's labels and shape, a new name and an address no object has. */
export function addedNode(items: readonly K8sObject[]): K8sObject {
  const workers = items.filter((o) => o.kind === 'Node' && o.metadata.name.startsWith('worker-')).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const last = workers[workers.length - 1]!;
  const name = `${last.metadata.name}-scaled`;
  const status = last.status as { addresses: { type: string; address: string }[] };
  return {
    ...last,
    metadata: { ...last.metadata, name, labels: { ...last.metadata.labels, 'kubernetes.io/hostname': name } },
    status: { ...status, addresses: [{ type: 'InternalIP', address: '192.0.2.250' }, { type: 'Hostname', address: name }] },
  };
}
