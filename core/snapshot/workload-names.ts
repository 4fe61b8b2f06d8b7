// How people name workloads on the command line, as kubectl does: `deployment/web`,
// `deploy/web`, `deployments.apps/web` (kubectl get -o name prints `deployment.apps/web`).
// An endpoint is `namespace/kind/name`; `kind/name` alone is in namespace "default",
// like `kubectl get deploy/web` without -n.
import type { WorkloadKind } from '../../schemas/k8s/workload.js';

/** Singular lower-case resource name (kubectl's canonical form), and the short names kubectl's discovery lists. */
const NAMES: Record<WorkloadKind, { resource: string; short: readonly string[]; group: string }> = {
  Deployment: { resource: 'deployment', short: ['deploy'], group: 'apps' },
  StatefulSet: { resource: 'statefulset', short: ['sts'], group: 'apps' },
  DaemonSet: { resource: 'daemonset', short: ['ds'], group: 'apps' },
  ReplicaSet: { resource: 'replicaset', short: ['rs'], group: 'apps' },
  ReplicationController: { resource: 'replicationcontroller', short: ['rc'], group: '' },
  Job: { resource: 'job', short: [], group: 'batch' },
  CronJob: { resource: 'cronjob', short: ['cj'], group: 'batch' },
  // Argo Rollouts' CRD: plural rollouts, short name ro.
  Rollout: { resource: 'rollout', short: ['ro'], group: 'argoproj.io' },
  // OpenKruise's CRD: plural clonesets, short name clone.
  CloneSet: { resource: 'cloneset', short: ['clone'], group: 'apps.kruise.io' },
};

const ALIASES = new Map<string, WorkloadKind>();
for (const [kind, n] of Object.entries(NAMES) as [WorkloadKind, (typeof NAMES)[WorkloadKind]][]) {
  for (const base of [n.resource, `${n.resource}s`, ...n.short]) {
    ALIASES.set(base, kind);
    if (n.group) ALIASES.set(`${base}.${n.group}`, kind);
  }
}

/** Every accepted spelling of a workload kind, for messages and docs. */
export const WORKLOAD_ALIASES: readonly string[] = [...ALIASES.keys()];

export function workloadKindOf(word: string): WorkloadKind | null {
  return ALIASES.get(word.toLowerCase()) ?? null;
}

/** `deployment/web`: the name of a workload endpoint in its namespace. */
export function workloadName(kind: WorkloadKind, name: string): string {
  return `${NAMES[kind].resource}/${name}`;
}

/**
 * An endpoint key as a client wrote it, in the form the snapshot indexes: `ns/pod` stays,
 * `ns/deploy/web` → `ns/deployment/web`, `deploy/web` → `default/deployment/web` (only
 * when the caller found no pod `deploy/web`). Null when it is not a workload form.
 */
export function workloadKey(text: string): string | null {
  const parts = text.split('/');
  const [ns, kindWord, name] = parts.length === 3 ? parts : parts.length === 2 ? ['default', parts[0]!, parts[1]!] : [];
  if (!ns || !kindWord || !name) return null;
  const kind = workloadKindOf(kindWord);
  return kind ? `${ns}/${workloadName(kind, name)}` : null;
}
