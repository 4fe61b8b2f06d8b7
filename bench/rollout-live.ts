// A rollout step on a live cluster's snapshot, which holds the workloads that own its pods: each
// app's pods under one ReplicaSet, each ReplicaSet under its Deployment. A step, as a watcher
// sends it: a new ReplicaSet scaled up by one pod, the old one down by one, one pod of the old
// template replaced by one of the new; through nextVersion (in process, no store), the median of
// N steps. Then the same steps with their pods alone (a watcher of pods only), from the same
// snapshot without workloads: the figure a workload change is measured against, in the same run.
//
//   node --expose-gc [--max-old-space-size=12000] --import tsx bench/rollout-live.ts [S|M|L] [steps] [--no-deployments]
//
// At L, Deployments and ReplicaSets together (~84,000) take the snapshot past the 250,000-object
// limit: `--no-deployments` keeps the ReplicaSets alone (their pods then belong to the
// Deployment named by their pod-template-hash: owners.ts).
import { GENERATORS, type K8sObject, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { compiledState, nextVersion, type CompiledState } from '../core/sets/next-version.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';

const argv = process.argv.slice(2);
const size = (argv.find((a) => a === 'S' || a === 'M' || a === 'L') ?? 'M') as SizeName;
const asked = Number(argv.find((a) => /^\d+$/.test(a)) ?? 5);
const withDeployments = !argv.includes('--no-deployments');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

type Obj = K8sObject & { spec: any; status?: any };
const items = (GENERATORS[size]() as unknown as { items: Obj[] }).items;
const pods = items.filter((o) => o.kind === 'Pod');

// One ReplicaSet per app and namespace (the generator names one per pod), its pods' controller.
const replicaSets = new Map<string, Obj>();
for (const p of pods) {
  const ref = (p.metadata as any).ownerReferences?.[0];
  if (!ref || ref.kind !== 'ReplicaSet') continue;
  // System pods (coredns, …) carry `k8s-app` instead of `app`.
  const app = p.metadata.labels?.app ?? p.metadata.labels?.['k8s-app'] ?? ref.name.slice(0, ref.name.lastIndexOf('-'));
  const name = `${app}-rs0`;
  ref.name = name;
  const key = `${p.metadata.namespace}/${name}`;
  const have = replicaSets.get(key);
  if (have) {
    have.spec.replicas++;
    continue;
  }
  const labels: Record<string, string> = { ...p.metadata.labels };
  delete labels['pod-template-hash'];
  const owner = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: app, uid: `u-${key}`, controller: true }];
  replicaSets.set(key, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: p.metadata.namespace, labels, ownerReferences: owner }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: p.spec.containers } } } } as Obj);
}
const deployments = [...replicaSets.values()].map((rs) => ({ ...rs, kind: 'Deployment', metadata: { name: (rs.metadata as any).ownerReferences[0].name, namespace: rs.metadata.namespace, labels: rs.metadata.labels } }) as Obj);
const live = [...items, ...replicaSets.values(), ...(withDeployments ? deployments : [])];

// The largest ReplicaSet rolls: step i brings ReplicaSet `<app>-rolled` with i + 1 pods, the old one i + 1 fewer.
const old = [...replicaSets.values()].sort((a, b) => b.spec.replicas - a.spec.replicas)[0]!;
const oldPods = pods.filter((p) => (p.metadata as any).ownerReferences?.[0]?.name === old.metadata.name && p.metadata.namespace === old.metadata.namespace);
const app = ((old.metadata as any).ownerReferences[0] as { name: string }).name;
// One old pod replaced per step: at most as many steps as the ReplicaSet has pods.
const steps = Math.min(asked, oldPods.length);
function step(i: number, withWorkloads: boolean): { apply: unknown[]; delete: { kind: string; namespace: string; name: string }[] } {
  const name = `${app}-rolled`;
  const labels = { ...old.metadata.labels, 'pod-template-hash': 'rolled' };
  const fresh = { ...old, metadata: { ...old.metadata, name, labels }, spec: { ...old.spec, replicas: i + 1, selector: { matchLabels: labels }, template: { ...old.spec.template, metadata: { labels } } } };
  const less = { ...old, spec: { ...old.spec, replicas: old.spec.replicas - i - 1 } };
  const gone = oldPods[i % oldPods.length]!;
  const pod = { ...gone, metadata: { ...gone.metadata, name: `${name}-${i}`, labels: { ...gone.metadata.labels, 'pod-template-hash': 'rolled' }, ownerReferences: [{ ...(gone.metadata as any).ownerReferences[0], name }] }, status: { ...gone.status, podIP: `100.64.${i >> 8}.${i & 255}`, podIPs: [{ ip: `100.64.${i >> 8}.${i & 255}` }] } };
  return { apply: withWorkloads ? [fresh, less, pod] : [pod], delete: [{ kind: 'Pod', namespace: gone.metadata.namespace!, name: gone.metadata.name }] };
}

function run(objects: readonly unknown[], withWorkloads: boolean): { ms: number[]; from: string[] } {
  const parsed = parseSnapshot(JSON.parse(JSON.stringify({ kind: 'List', apiVersion: 'v1', items: objects })));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues.slice(0, 3)));
  let state: CompiledState = compiledState(parsed.snapshot, { sha256Hex: nodeSha256Hex }).state;
  const ms: number[] = [];
  const from: string[] = [];
  for (let i = 0; i < steps; i++) {
    const change = step(i, withWorkloads);
    const apply = parseSnapshot(JSON.parse(JSON.stringify(change.apply)));
    if (!apply.ok) throw new Error(JSON.stringify(apply.issues.slice(0, 3)));
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const next = nextVersion(state, { apply: apply.snapshot, delete: change.delete }, { sha256Hex: nodeSha256Hex });
    ms.push(performance.now() - t);
    if (!next.ok) throw new Error(JSON.stringify(next.issues.slice(0, 3)));
    from.push(`${next.clusterFrom}${next.incremental ? '' : ' (full compile)'}`);
    state = next.state;
  }
  return { ms, from };
}

const withWorkloads = run(live, true);
const podsAlone = run(items, false);
console.log(
  JSON.stringify({
    size,
    objects: live.length,
    workloads: live.length - items.length,
    steps,
    rolloutStepMsMedian: Math.round(median(withWorkloads.ms)),
    rolloutStepMs: withWorkloads.ms.map(Math.round),
    clusterFrom: [...new Set(withWorkloads.from)],
    podsAloneMsMedian: Math.round(median(podsAlone.ms)),
    podsAloneClusterFrom: [...new Set(podsAlone.from)],
    overPodsAlone: +(median(withWorkloads.ms) / median(podsAlone.ms)).toFixed(2),
  }),
);
