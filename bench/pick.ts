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
