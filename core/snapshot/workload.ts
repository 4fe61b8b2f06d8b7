// Which labels name a workload, for grouping pods the way people talk about them ("shop
// app=web") rather than one by one.
import type { Labels } from '../../schemas/k8s/label-selector.js';

// Preferred when several labels pick out the same pods; hash and per-pod labels never name a workload.
export const WORKLOAD_KEYS = ['app.kubernetes.io/name', 'app', 'k8s-app', 'name', 'app.kubernetes.io/component', 'component'];
export const NOT_WORKLOAD = new Set(['pod-template-hash', 'rollouts-pod-template-hash', 'controller-revision-hash', 'pod-template-generation', 'statefulset.kubernetes.io/pod-name', 'apps.kubernetes.io/pod-index', 'apps.kruise.io/cloneset-instance-id']);

/** "app=web" by the first workload key a pod has, else its labels without per-pod ones, else "". */
export function workloadLabel(labels: Labels): string {
  for (const k of WORKLOAD_KEYS) if (labels[k] !== undefined) return `${k}=${labels[k]}`;
  return Object.entries(labels)
    .filter(([k]) => !NOT_WORKLOAD.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/**
 * Labels a controller puts on the pods it makes, beyond its template's: kept when a pod takes
 * a new template ("The Job controller adds … batch.kubernetes.io/job-name", the Deployment
 * controller pod-template-hash, the StatefulSet controller statefulset.kubernetes.io/pod-name).
 */
export const CONTROLLER_LABELS: ReadonlySet<string> = new Set([...NOT_WORKLOAD, 'batch.kubernetes.io/job-name', 'job-name', 'batch.kubernetes.io/controller-uid', 'controller-uid', 'batch.kubernetes.io/job-completion-index']);
