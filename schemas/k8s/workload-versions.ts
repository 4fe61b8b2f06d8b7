// Workloads of other API versions read as the apps/v1 (batch/v1) kind they are:
// - versions served before Kubernetes 1.16 (extensions/v1beta1, apps/v1beta1, apps/v1beta2) and
//   CronJobs before 1.21 (batch/v1beta1, batch/v2alpha1), as repositories of older clusters and
//   vendored charts still hold them. The API server converts them to apps/v1 (batch/v1) when it
//   stores them; so does netpolc, with the one default the old versions had and apps/v1 dropped:
//   "selector … If empty, defaulted to labels on the pod template" (extensions/v1beta1 and
//   apps/v1beta1 SetDefaults_Deployment, _DaemonSet, _ReplicaSet, _StatefulSet). apps/v1beta2
//   already required the selector, as apps/v1 does;
// - OpenKruise's Advanced StatefulSet (apps.kruise.io/v1beta1, v1alpha1) and Advanced DaemonSet
//   (apps.kruise.io/v1alpha1), "extended from the upstream StatefulSet/DaemonSet … same fields":
//   the fields netpolc reads (selector, template, replicas) mean what they mean there.

type Legacy = { readonly to: string; readonly selectorFromTemplate: boolean };

const LEGACY: Readonly<Record<string, Legacy>> = {
  'extensions/v1beta1/Deployment': { to: 'apps/v1', selectorFromTemplate: true },
  'extensions/v1beta1/DaemonSet': { to: 'apps/v1', selectorFromTemplate: true },
  'extensions/v1beta1/ReplicaSet': { to: 'apps/v1', selectorFromTemplate: true },
  'apps/v1beta1/Deployment': { to: 'apps/v1', selectorFromTemplate: true },
  'apps/v1beta1/StatefulSet': { to: 'apps/v1', selectorFromTemplate: true },
  'apps/v1beta2/Deployment': { to: 'apps/v1', selectorFromTemplate: false },
  'apps/v1beta2/DaemonSet': { to: 'apps/v1', selectorFromTemplate: false },
  'apps/v1beta2/ReplicaSet': { to: 'apps/v1', selectorFromTemplate: false },
  'apps/v1beta2/StatefulSet': { to: 'apps/v1', selectorFromTemplate: false },
  'batch/v1beta1/CronJob': { to: 'batch/v1', selectorFromTemplate: false },
  'batch/v2alpha1/CronJob': { to: 'batch/v1', selectorFromTemplate: false },
  'apps.kruise.io/v1beta1/StatefulSet': { to: 'apps/v1', selectorFromTemplate: false },
  'apps.kruise.io/v1alpha1/StatefulSet': { to: 'apps/v1', selectorFromTemplate: false },
  'apps.kruise.io/v1alpha1/DaemonSet': { to: 'apps/v1', selectorFromTemplate: false },
};

/** The other API versions read for `kind`, for messages. */
export const legacyVersionsOf = (kind: string): string[] => Object.keys(LEGACY).filter((k) => k.endsWith(`/${kind}`)).map((k) => k.slice(0, -kind.length - 1));

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The object as its apps/v1 (batch/v1) kind has it, when `apiVersion/kind` is another version
 * netpolc reads; null otherwise. Only the version and the defaulted selector change: the rest is
 * validated as the current version is, at the same paths.
 */
export function currentWorkload(apiVersion: string, kind: string, item: Record<string, unknown>): Record<string, unknown> | null {
  const legacy = Object.hasOwn(LEGACY, `${apiVersion}/${kind}`) ? LEGACY[`${apiVersion}/${kind}`]! : null;
  if (!legacy) return null;
  const spec = item.spec;
  if (!legacy.selectorFromTemplate || !isRecord(spec) || (spec.selector !== undefined && spec.selector !== null)) return { ...item, apiVersion: legacy.to };
  const template = spec.template;
  const labels = isRecord(template) && isRecord(template.metadata) ? template.metadata.labels : undefined;
  // No labels to default from: left without, and refused as apps/v1 refuses it.
  if (!isRecord(labels) || Object.keys(labels).length === 0) return { ...item, apiVersion: legacy.to };
  return { ...item, apiVersion: legacy.to, spec: { ...spec, selector: { matchLabels: labels } } };
}
