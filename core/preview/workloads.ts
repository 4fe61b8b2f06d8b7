// Previews of repositories: the head a pull request describes holds workloads, the base (a
// live cluster) their pods. The pods follow their workloads into the head:
//   - a head without pods (a repository) keeps the base's pods, nodes and the namespaces it
//     does not declare itself;
//   - a pod whose workload's template changes takes the new template's labels and ports
//     (keeping the labels its controller adds): "a change to the pod template triggers a
//     rollout", and the new pods are made from the new template;
//   - a pod whose workload the base holds and the head does not is gone with it ("When you
//     delete a Deployment, its ReplicaSets and Pods are deleted" by garbage collection);
//   - a workload new in the head has no pods: it is one endpoint without an address.
import type { Pod } from '../../schemas/k8s/core.js';
import type { PodTemplate, Workload } from '../../schemas/k8s/workload.js';
import type { ParsedSnapshot, SnapshotObject } from '../../schemas/snapshot.js';
import { Owners, templateLabels } from '../snapshot/owners.js';
import { CONTROLLER_LABELS } from '../snapshot/workload.js';
import { labelValue, type Labels } from '../../schemas/k8s/label-selector.js';
import { objectKey } from '../lint/types.js';
import type { Cluster } from '../cluster.js';
import { answer } from '../ask/answer.js';

const keyOf = (o: SnapshotObject) => objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
const portsKey = (spec: Pick<Pod['spec'], 'containers' | 'initContainers' | 'hostNetwork'>) =>
  JSON.stringify([spec.hostNetwork, [...spec.containers, ...spec.initContainers].flatMap((c) => c.ports.map((p) => [p.name ?? '', p.containerPort, p.protocol])).sort()]);
const sameLabels = (a: Labels, b: Labels) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/** A workload with its pod template (Owners.templateOf: a Rollout's may be a Deployment's). */
interface Templated {
  readonly w: Workload;
  readonly template: PodTemplate;
}

const templated = (owners: Owners, w: Workload | undefined): Templated | undefined => {
  const template = w && owners.templateOf(w);
  return w && template ? { w, template } : undefined;
};

/** The pod as the head's template makes it; the pod itself when that template did not change. */
function retemplate(pod: Pod, head: Templated, base: Templated | undefined): Pod {
  const [tHead, lHead] = [head.template, templateLabels(head.w, head.template)];
  let labels: Record<string, string>;
  let portsChanged: boolean;
  if (base) {
    const [tBase, lBase] = [base.template, templateLabels(base.w, base.template)];
    portsChanged = portsKey(tBase.spec) !== portsKey(tHead.spec);
    if (!portsChanged && sameLabels(lBase, lHead)) return pod;
    // What the base template put on the pod is replaced; what else the pod carries stays.
    labels = Object.fromEntries(Object.entries(pod.metadata.labels).filter(([k, v]) => lBase[k] !== v));
  } else {
    portsChanged = portsKey(pod.spec) !== portsKey(tHead.spec);
    if (!portsChanged && Object.entries(lHead).every(([k, v]) => labelValue(pod.metadata.labels, k) === v)) return pod;
    labels = Object.fromEntries(Object.entries(pod.metadata.labels).filter(([k]) => CONTROLLER_LABELS.has(k)));
  }
  const spec = portsChanged ? { ...pod.spec, hostNetwork: tHead.spec.hostNetwork, containers: tHead.spec.containers, initContainers: tHead.spec.initContainers } : pod.spec;
  return { ...pod, metadata: { ...pod.metadata, labels: { ...labels, ...lHead } }, spec };
}

/** A workload of the head without pods in either snapshot: who can reach it and what it can reach, as `ask` says it. */
export interface NewWorkload {
  readonly endpoint: string;
  readonly reachedBy: string;
  readonly reaches: string;
}

export function newWorkloads(base: Cluster, head: Cluster): NewWorkload[] {
  return head.pods
    .filter((p) => p.ips.length === 0 && p.workload === p.name && !base.podByKey.has(p.key))
    .map((p) => ({
      endpoint: p.key,
      reachedBy: answer(head, { kind: 'who', to: { pod: p.key }, port: null, protocol: null }).text,
      reaches: answer(head, { kind: 'what', from: { pod: p.key }, port: null, protocol: null }).text,
    }));
}

export interface WorkloadChanges {
  /** `ns/deployment/web` of workloads whose pods took a new template, and of deleted workloads that took pods with them. */
  readonly retemplated: readonly string[];
  readonly deleted: readonly string[];
}

/**
 * The head the preview compares: the base's pods carried into a repository head and made to
 * follow their workloads. `fromChanges`: the head is the base with changes applied, so it holds
 * the cluster's pods already, and one without pods is a cluster whose pods were all deleted, not
 * a repository (their pods are not carried back).
 */
export function headWithPods(base: ParsedSnapshot, head: ParsedSnapshot, fromChanges = false): { head: ParsedSnapshot; workloads: WorkloadChanges } {
  const repository = !fromChanges && !head.objects.some((o) => o.kind === 'Pod');
  const own = new Set(head.objects.map(keyOf));
  const carried = repository ? base.objects.filter((o) => (o.kind === 'Pod' || o.kind === 'Node' || o.kind === 'Namespace') && !own.has(keyOf(o))) : [];
  const [ownersBase, ownersHead] = [new Owners(base.objects), new Owners(head.objects)];
  const retemplated = new Set<string>();
  const objects: SnapshotObject[] = [];
  for (const o of [...head.objects, ...carried]) {
    if (o.kind !== 'Pod') {
      objects.push(o);
      continue;
    }
    const ns = o.metadata.namespace ?? 'default';
    const owner = ownersBase.ownerOfPod(o) ?? ownersHead.ownerOfPod(o);
    const w = owner ? { base: ownersBase.named(ns, owner), head: ownersHead.named(ns, owner) } : null;
    if (!w || (!w.head && !w.base)) objects.push(o);
    // else the workload the base holds is not in the head: its pods are gone with it
    else if (w.head) {
      // A head Rollout whose template is a Deployment's the head lacks: its pods stay as they are.
      const head = templated(ownersHead, w.head);
      const next = head ? retemplate(o, head, templated(ownersBase, w.base)) : o;
      if (next !== o) retemplated.add(`${ns}/${owner}`);
      objects.push(next);
    }
  }
  // Deleted: a workload that owned pods of the base owns none of the head, and the head does not hold it.
  const ownersOf = (os: readonly SnapshotObject[], owners: Owners) =>
    new Set(os.flatMap((o) => (o.kind === 'Pod' && owners.ownerOfPod(o) ? [`${o.metadata.namespace ?? 'default'}/${owners.ownerOfPod(o)}`] : [])));
  const after = ownersOf(objects, ownersBase);
  const deleted = [...ownersOf(base.objects, ownersBase)].filter((w) => {
    const slash = w.indexOf('/');
    return !after.has(w) && !ownersHead.named(w.slice(0, slash), w.slice(slash + 1));
  });
  return { head: { ...head, objects, paths: new Map(head.paths) }, workloads: { retemplated: [...retemplated].sort(), deleted: deleted.sort() } };
}
