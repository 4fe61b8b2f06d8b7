// Workloads a GitOps repository holds instead of pods: Deployment, StatefulSet, DaemonSet,
// ReplicaSet (apps/v1), ReplicationController (v1), Job and CronJob (batch/v1), Argo
// Rollouts' Rollout (argoproj.io/v1alpha1) and OpenKruise's CloneSet (apps.kruise.io/v1alpha1).
// Only what
// makes their pods endpoints is read: the pod template's labels and container ports.
// Unknown fields are dropped, as for the other kinds.
import { z } from '../zod.js';
import { ContainerSchema } from './core.js';
import { LabelSelectorSchema, LabelsSchema, OwnedMetaSchema as ObjectMetaSchema, ownedMeta, sortedObject, sortedRecord } from './meta.js';
import { NAME_RULES, nameProblem } from './names.js';

const labels = LabelsSchema.nullish().transform((v) => v ?? {});
const containers = z.array(ContainerSchema).nullish().transform((v) => v ?? []);

/** "PodTemplateSpec describes the data a pod should have when created from a template." */
export const PodTemplateSchema = sortedObject({
  metadata: sortedObject({ labels }).nullish().transform((v) => v ?? { labels: {} }),
  spec: sortedObject({ hostNetwork: z.boolean().nullish().transform((v) => v ?? false), containers, initContainers: containers })
    .nullish()
    .transform((v) => v ?? { hostNetwork: false, containers: [], initContainers: [] }),
});
export type PodTemplate = z.infer<typeof PodTemplateSchema>;

// apps/v1 requires `selector` ("spec.selector: Required value"); v1 ReplicationController
// and batch/v1 Job default it from the template's labels (or the Job controller's own label).
// `replicas: 0` asks for no pods ("Number of desired pods … Defaults to 1").
const replicas = z.number().int().min(0).nullish().transform((v) => v ?? 1);
const appsSpec = sortedObject({ selector: LabelSelectorSchema, template: PodTemplateSchema, replicas });

// Names: ValidateDeploymentName, ValidateStatefulSetName, ValidateDaemonSetName,
// ValidateReplicaSetName, ValidateReplicationControllerName (which Job and CronJob use too) are
// all NameIsDNSSubdomain; Job and CronJob add limits of their own below.
export const DeploymentSchema = sortedObject({ apiVersion: z.literal('apps/v1'), kind: z.literal('Deployment'), metadata: ObjectMetaSchema, spec: appsSpec });
export const StatefulSetSchema = sortedObject({ apiVersion: z.literal('apps/v1'), kind: z.literal('StatefulSet'), metadata: ObjectMetaSchema, spec: appsSpec });
export const DaemonSetSchema = sortedObject({ apiVersion: z.literal('apps/v1'), kind: z.literal('DaemonSet'), metadata: ObjectMetaSchema, spec: appsSpec });
export const ReplicaSetSchema = sortedObject({ apiVersion: z.literal('apps/v1'), kind: z.literal('ReplicaSet'), metadata: ObjectMetaSchema, spec: appsSpec });
// OpenKruise's CloneSet "manages stateless applications … comparable to the native
// Deployment": selector, template and replicas as a Deployment has them, its pods made and
// owned by the CloneSet itself (no ReplicaSet between).
export const CloneSetSchema = sortedObject({ apiVersion: z.literal('apps.kruise.io/v1alpha1'), kind: z.literal('CloneSet'), metadata: ObjectMetaSchema, spec: appsSpec });
export const ReplicationControllerSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('ReplicationController'),
  metadata: ObjectMetaSchema,
  // "selector … If empty, defaulted to labels on Pod template."
  spec: sortedObject({ selector: z.record(z.string(), z.string()).nullish().transform((v) => (v ? sortedRecord(v) : null)), template: PodTemplateSchema, replicas }),
});
export const JobSchema = sortedObject({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('Job'),
  metadata: ObjectMetaSchema,
  spec: sortedObject({ selector: LabelSelectorSchema.nullish().transform((v) => v ?? null), manualSelector: z.boolean().nullish(), template: PodTemplateSchema }),
  // "A Job is finished when it has a Complete or Failed condition" (status only in live snapshots).
  status: sortedObject({ conditions: z.array(sortedObject({ type: z.string(), status: z.string() })).nullish().transform((v) => v ?? []) })
    .nullish()
    .transform((v) => v ?? { conditions: [] }),
}).superRefine((job, ctx) => {
  // Without manualSelector the API server labels the template `batch.kubernetes.io/job-name:
  // <name>` (batch strategy generateSelector) and ValidateJob checks it as a label value.
  // (A name that is no subdomain at all has its issue from the metadata already.)
  const { name } = job.metadata;
  if (job.spec.manualSelector !== true && name.length > 63 && nameProblem(name, NAME_RULES.dns1123Subdomain) === null) {
    ctx.addIssue({ code: 'custom', path: ['metadata', 'name'], message: 'must be no more than 63 characters: the Job labels its pods job-name=<name>, a label value' });
  }
});
export const CronJobSchema = sortedObject({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('CronJob'),
  // ValidateCronJobCreate: "must be no more than 52 characters", room for the 11-character
  // suffix (`-$TIMESTAMP`) its Jobs get within the 63 of a label value.
  metadata: ownedMeta(NAME_RULES.dns1123Subdomain, 52),
  spec: sortedObject({ jobTemplate: sortedObject({ metadata: sortedObject({ labels }).nullish(), spec: sortedObject({ template: PodTemplateSchema }) }) }),
});

// Argo Rollouts: "the rollout spec has the same fields as a deployment spec" (selector,
// template, replicas); its stable and canary pods are made from that one template. A Rollout
// may instead take the template of another object (`spec.workloadRef`: "Reference an existing
// Deployment from a Rollout using workloadRef field"); Argo resolves a Deployment's or a
// ReplicaSet's `spec.template` and a PodTemplate's `template` (its templateref.go), and
// core/snapshot/owners.ts reads the first two from the input.
const WorkloadRefSchema = sortedObject({ apiVersion: z.string().nullish(), kind: z.string(), name: z.string().min(1) });
export const RolloutSchema = sortedObject({
  apiVersion: z.literal('argoproj.io/v1alpha1'),
  kind: z.literal('Rollout'),
  metadata: ObjectMetaSchema,
  spec: sortedObject({
    selector: LabelSelectorSchema.nullish().transform((v) => v ?? null),
    template: PodTemplateSchema.nullish().transform((v) => v ?? null),
    workloadRef: WorkloadRefSchema.nullish().transform((v) => v ?? null),
    replicas,
  }),
}).superRefine((rollout, ctx) => {
  const { template, workloadRef, selector } = rollout.spec;
  // Argo's ValidateRolloutSpec: "template must be empty for workload reference rollout".
  if (template !== null && workloadRef !== null) ctx.addIssue({ code: 'custom', path: ['spec', 'template'], message: 'template must be empty for workload reference rollout' });
  if (template === null && workloadRef === null) ctx.addIssue({ code: 'custom', path: ['spec', 'template'], message: 'a Rollout needs spec.template or spec.workloadRef' });
  // A selector may be left out only with workloadRef (it is then the referenced object's).
  if (template !== null && selector === null) ctx.addIssue({ code: 'custom', path: ['spec', 'selector'], message: 'Required value' });
});

// A v1 PodTemplate "describes a template for creating copies of a predefined pod": the third
// kind Argo resolves a Rollout's workloadRef to (its `template`). Not a workload: no pods of its
// own. ValidatePodTemplate names it as a pod is named (NameIsDNSSubdomain).
export const PodTemplateObjectSchema = sortedObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('PodTemplate'),
  metadata: ObjectMetaSchema,
  template: PodTemplateSchema.nullish().transform((v) => v ?? null),
});
export type PodTemplateObject = z.infer<typeof PodTemplateObjectSchema>;

export const WORKLOAD_SCHEMAS = {
  'apps/v1/Deployment': DeploymentSchema,
  'apps/v1/StatefulSet': StatefulSetSchema,
  'apps/v1/DaemonSet': DaemonSetSchema,
  'apps/v1/ReplicaSet': ReplicaSetSchema,
  'v1/ReplicationController': ReplicationControllerSchema,
  'batch/v1/Job': JobSchema,
  'batch/v1/CronJob': CronJobSchema,
  'argoproj.io/v1alpha1/Rollout': RolloutSchema,
  'apps.kruise.io/v1alpha1/CloneSet': CloneSetSchema,
} as const;

export type Workload = { [K in keyof typeof WORKLOAD_SCHEMAS]: z.infer<(typeof WORKLOAD_SCHEMAS)[K]> }[keyof typeof WORKLOAD_SCHEMAS];
export type WorkloadKind = Workload['kind'];
export const WORKLOAD_KIND_NAMES: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'ReplicationController', 'Job', 'CronJob', 'Rollout', 'CloneSet'];

export function isWorkload(o: { kind: string }): o is Workload {
  return (WORKLOAD_KIND_NAMES as readonly string[]).includes(o.kind);
}

/**
 * The pod template of a workload; a CronJob's is `spec.jobTemplate.spec.template`. Null for a
 * Rollout that takes its template from a Deployment (`workloadRef`): Owners.templateOf reads it there.
 */
export function podTemplateOf(w: Workload): PodTemplate | null {
  return w.kind === 'CronJob' ? w.spec.jobTemplate.spec.template : w.spec.template;
}

/** Where the pod template sits in the object, for issues. */
export function templatePath(w: Workload): readonly string[] {
  return w.kind === 'CronJob' ? ['spec', 'jobTemplate', 'spec', 'template'] : ['spec', 'template'];
}
