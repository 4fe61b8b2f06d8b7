// Pods and the workloads that own them. A pod's controller is followed up to the workload a
// repository holds (Pod → ReplicaSet → Deployment or Rollout, Pod → Job → CronJob, Pod →
// StatefulSet, DaemonSet, ReplicationController, CloneSet); a workload whose pods are in the input is
// represented by them, one without pods becomes one endpoint with no address, built from its
// pod template.
import type { Pod } from '../../schemas/k8s/core.js';
import { isWorkload, podTemplateOf, type PodTemplate, type PodTemplateObject, type Workload, type WorkloadKind } from '../../schemas/k8s/workload.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import type { Labels } from '../../schemas/k8s/label-selector.js';
import { workloadName } from './workload-names.js';
import { layerOver, type Lookup } from '../layered-map.js';

type OwnerRef = Pod['metadata']['ownerReferences'][number];

/** "If this object is managed by a controller, then an entry in this list will point to this controller, with the controller field set to true." */
function controllerOf(refs: readonly OwnerRef[]): OwnerRef | null {
  return refs.find((r) => r.controller === true) ?? (refs.length === 1 ? refs[0]! : null);
}

const TOP: ReadonlySet<string> = new Set<WorkloadKind>(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicationController', 'CronJob', 'Rollout', 'CloneSet']);

/** The label Argo Rollouts puts on a Rollout's pods (and its ReplicaSets' names end with). */
const ROLLOUT_HASH = 'rollouts-pod-template-hash';

/** An Owners' lookups: over the earlier version's when made from changes (Owners.changed). */
interface OwnerMaps {
  readonly byKey: Lookup<string, Workload>;
  /** By `ns/deployment/web`. */
  readonly byName: Lookup<string, Workload>;
  /** PodTemplates, by `ns/name`: what a Rollout's workloadRef may name. */
  readonly podTemplates: Lookup<string, PodTemplateObject>;
  /** Rollouts that take their template by workloadRef: while there are none, no template is unresolved. */
  readonly rolloutRefs: number;
}

const namespaceOf = (o: SnapshotObject): string => o.metadata.namespace ?? 'default';
const takesTemplateByRef = (w: Workload): boolean => w.kind === 'Rollout' && w.spec.workloadRef !== null;

export class Owners {
  private readonly byKey: Lookup<string, Workload>;
  private readonly byName: Lookup<string, Workload>;
  private readonly podTemplates: Lookup<string, PodTemplateObject>;
  readonly rolloutRefs: number;
  /** The workloads in the objects' order, listed when first asked. */
  private listed: readonly Workload[] | null = null;

  constructor(
    private readonly objects: readonly SnapshotObject[],
    maps?: OwnerMaps,
  ) {
    if (maps) {
      ({ byKey: this.byKey, byName: this.byName, podTemplates: this.podTemplates, rolloutRefs: this.rolloutRefs } = maps);
      return;
    }
    const [byKey, byName, podTemplates] = [new Map<string, Workload>(), new Map<string, Workload>(), new Map<string, PodTemplateObject>()];
    let rolloutRefs = 0;
    for (const o of objects) {
      if (o.kind === 'PodTemplate') podTemplates.set(`${namespaceOf(o)}/${o.metadata.name}`, o);
      if (!isWorkload(o)) continue;
      byKey.set(`${namespaceOf(o)}/${o.kind}/${o.metadata.name}`, o);
      byName.set(`${namespaceOf(o)}/${workloadName(o.kind, o.metadata.name)}`, o);
      if (takesTemplateByRef(o)) rolloutRefs++;
    }
    [this.byKey, this.byName, this.podTemplates, this.rolloutRefs] = [byKey, byName, podTemplates, rolloutRefs];
  }

  /**
   * The workloads of `objects`: these owners' objects with `removed` taken out and then `added`
   * put in (objects of other kinds are passed over). A layer over these owners' lookups rather
   * than all of them again (10⁵ workloads in a live cluster of L's size).
   */
  changed(objects: readonly SnapshotObject[], removed: readonly SnapshotObject[], added: readonly SnapshotObject[]): Owners {
    const [byKey, byName, podTemplates] = [layerOver(this.byKey), layerOver(this.byName), layerOver(this.podTemplates)];
    let rolloutRefs = this.rolloutRefs;
    for (const [list, present] of [[removed, false], [added, true]] as const) {
      for (const o of list) {
        if (o.kind === 'PodTemplate') {
          const key = `${namespaceOf(o)}/${o.metadata.name}`;
          if (present) podTemplates.set(key, o);
          else podTemplates.delete(key);
        }
        if (!isWorkload(o)) continue;
        const [key, name] = [`${namespaceOf(o)}/${o.kind}/${o.metadata.name}`, `${namespaceOf(o)}/${workloadName(o.kind, o.metadata.name)}`];
        if (present) {
          byKey.set(key, o);
          byName.set(name, o);
        } else {
          byKey.delete(key);
          byName.delete(name);
        }
        if (takesTemplateByRef(o)) rolloutRefs += present ? 1 : -1;
      }
    }
    return new Owners(objects, { byKey, byName, podTemplates, rolloutRefs });
  }

  private workloads(): readonly Workload[] {
    return (this.listed ??= this.objects.filter(isWorkload));
  }

  private get(ns: string, kind: string, name: string): Workload | undefined {
    return this.byKey.get(`${ns}/${kind}/${name}`);
  }

  /** The workload object named `deployment/web` in `ns`, when the input has it. */
  named(ns: string, name: string): Workload | undefined {
    return this.byName.get(`${ns}/${name}`);
  }

  /**
   * The workload a ReplicaSet or Job belongs to, `kind/name`. Without the intermediate object:
   * "The Deployment controller adds [pod-template-hash] to every ReplicaSet that a Deployment
   * creates or adopts", named `[DEPLOYMENT-NAME]-[HASH]`; a CronJob's Jobs are named
   * `[CRONJOB-NAME]-[SCHEDULED-TIME]` (followed only when that CronJob is in the input).
   */
  private up(ns: string, ref: OwnerRef, hash: string | undefined, rolloutHash: string | undefined): string | null {
    if (TOP.has(ref.kind)) return workloadName(ref.kind as WorkloadKind, ref.name);
    if (ref.kind !== 'ReplicaSet' && ref.kind !== 'Job') return null;
    const mid = this.get(ns, ref.kind, ref.name);
    if (mid) {
      const parent = controllerOf(mid.metadata.ownerReferences);
      if (parent && TOP.has(parent.kind)) return workloadName(parent.kind as WorkloadKind, parent.name);
      return workloadName(ref.kind, ref.name);
    }
    if (ref.kind === 'ReplicaSet' && hash && ref.name.endsWith(`-${hash}`)) return workloadName('Deployment', ref.name.slice(0, -hash.length - 1));
    // Argo Rollouts names a Rollout's ReplicaSets `<rollout>-<hash>` and labels their pods rollouts-pod-template-hash.
    if (ref.kind === 'ReplicaSet' && rolloutHash && ref.name.endsWith(`-${rolloutHash}`)) return workloadName('Rollout', ref.name.slice(0, -rolloutHash.length - 1));
    const cron = /^(.+)-\d+$/.exec(ref.name);
    if (ref.kind === 'Job' && cron && this.get(ns, 'CronJob', cron[1]!)) return workloadName('CronJob', cron[1]!);
    return workloadName(ref.kind, ref.name);
  }

  /** `deployment/web` for a pod some workload controls, else null (bare and static pods). */
  ownerOfPod(pod: Pod): string | null {
    const ref = controllerOf(pod.metadata.ownerReferences);
    return ref ? this.up(pod.metadata.namespace ?? 'default', ref, pod.metadata.labels['pod-template-hash'], pod.metadata.labels[ROLLOUT_HASH]) : null;
  }

  /**
   * Workloads that stand for endpoints themselves: not a ReplicaSet a Deployment controls nor
   * a Job a CronJob controls (their pods count for the owner), not scaled to `replicas: 0`,
   * not a finished Job.
   */
  endpointWorkloads(): Workload[] {
    return this.workloads().filter((w) => this.standsAlone(w));
  }

  /** Whether a workload is one of endpointWorkloads' (an endpoint of its own while none of its pods runs). */
  standsAlone(w: Workload): boolean {
    // Its template is a Deployment's the input does not hold: nothing says what its pods are
    // (cluster.ts warns).
    if (this.templateOf(w) === null) return false;
    const parent = controllerOf(w.metadata.ownerReferences);
    if ((w.kind === 'ReplicaSet' || w.kind === 'Job') && parent && TOP.has(parent.kind)) return false;
    if ('replicas' in w.spec && w.spec.replicas === 0) return false;
    if (w.kind === 'Job' && w.status.conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')) return false;
    return true;
  }

  /**
   * A workload's pod template: its own, or for a Rollout with `workloadRef` the one of the
   * Deployment, ReplicaSet or PodTemplate it names in its namespace (schemas/k8s/workload.ts);
   * null when the input does not hold it.
   */
  templateOf(w: Workload): PodTemplate | null {
    const own = podTemplateOf(w);
    if (own !== null || w.kind !== 'Rollout' || w.spec.workloadRef === null) return own;
    const { kind, name } = w.spec.workloadRef;
    const ns = w.metadata.namespace ?? 'default';
    // Argo's templateref.go: a Deployment's or ReplicaSet's spec.template, a PodTemplate's template.
    if (kind === 'PodTemplate') return this.podTemplates.get(`${ns}/${name}`)?.template ?? null;
    const ref = kind === 'Deployment' || kind === 'ReplicaSet' ? this.get(ns, kind, name) : undefined;
    return ref ? podTemplateOf(ref) : null;
  }

  /** Rollouts whose `workloadRef` names an object whose template the input does not give. */
  unresolvedRollouts(): { namespace: string; name: string; ref: string }[] {
    const out: { namespace: string; name: string; ref: string }[] = [];
    if (this.rolloutRefs === 0) return out;
    for (const w of this.workloads()) if (w.kind === 'Rollout' && w.spec.workloadRef && this.templateOf(w) === null) out.push({ namespace: w.metadata.namespace ?? 'default', name: w.metadata.name, ref: `${w.spec.workloadRef.kind} ${w.spec.workloadRef.name}` });
    return out;
  }
}

/** Labels the pods of a workload carry, from its template: the template's, and for a Job the controller's own. */
export function templateLabels(w: Workload, template: PodTemplate): Labels {
  const labels = template.metadata.labels;
  // "The Job controller adds the labels batch.kubernetes.io/job-name=<job-name> … For
  // backward compatibility, job-name … also" (unless manualSelector is set).
  if (w.kind === 'Job' && !w.spec.manualSelector) return { ...labels, 'batch.kubernetes.io/job-name': w.metadata.name, 'job-name': w.metadata.name };
  return labels;
}

/**
 * The pods whose workload (Owners.ownerOfPod) changed workload objects may name otherwise. A
 * pod's workload is read from its controller reference: by name alone for a Deployment,
 * StatefulSet and the other top kinds; through the ReplicaSet's or Job's object it names (its
 * own controller), and a Job's CronJob by the Job's name. So only changed ReplicaSets and Jobs
 * reach the pods they control, and changed CronJobs the pods of Jobs in their namespace.
 */
export class WorkloadReaders {
  /** Changed ReplicaSets and Jobs, `kind/name` by namespace. */
  private readonly controllers = new Map<string, Set<string>>();
  private readonly cronJobNamespaces = new Set<string>();

  constructor(changed: readonly SnapshotObject[]) {
    for (const o of changed) {
      if (o.kind === 'CronJob') this.cronJobNamespaces.add(namespaceOf(o));
      if (o.kind !== 'ReplicaSet' && o.kind !== 'Job') continue;
      const ns = namespaceOf(o);
      (this.controllers.get(ns) ?? this.controllers.set(ns, new Set()).get(ns)!).add(`${o.kind}/${o.metadata.name}`);
    }
  }

  /** The namespaces of the pods it may reach (none: no pod's workload can read otherwise). */
  namespaces(): Set<string> {
    return new Set([...this.controllers.keys(), ...this.cronJobNamespaces]);
  }

  reaches(pod: Pod): boolean {
    // Most pods are in namespaces the change does not touch: one lookup.
    const ns = namespaceOf(pod);
    const controllers = this.controllers.get(ns);
    if (!controllers && !this.cronJobNamespaces.has(ns)) return false;
    const ref = controllerOf(pod.metadata.ownerReferences);
    if (!ref || (ref.kind !== 'ReplicaSet' && ref.kind !== 'Job')) return false;
    return (ref.kind === 'Job' && this.cronJobNamespaces.has(ns)) || (controllers?.has(`${ref.kind}/${ref.name}`) ?? false);
  }
}
