// Fixtures of GitOps repositories (test/fixtures/gitops/) read as the CLI reads them, and
// small workload builders.
import { join } from 'node:path';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { matrix } from '../../core/evaluate/matrix.js';
import { resolveFlow } from '../../core/evaluate/resolve.js';
import { loadSnapshot, readSources } from '../../functions/cli/input.js';

export const GITOPS = join(import.meta.dirname, '..', 'fixtures', 'gitops');

export function fixtureCluster(dir: string): Cluster {
  return buildCluster(loadSnapshot(readSources([join(GITOPS, dir)], { stdin: () => '', err: () => {} })).snapshot);
}

/** The upstream truth table of every non-host-network endpoint on one port. */
export function table(cluster: Cluster, port: number, protocol: 'TCP' | 'UDP' = 'TCP'): string {
  return matrix(cluster, cluster.pods.filter((p) => !p.hostNetwork), [{ port, protocol }], null)[0]!.table;
}

type Obj = Record<string, any>;

export function deployment(ns: string, name: string, labels: Record<string, string>, ports: { name: string; containerPort: number; protocol?: string }[] = [], kind = 'Deployment'): Obj {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: ns },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'img', ports }] } } },
  };
}

export const HASH = '5d8f7c9b6';

/** A running pod a ReplicaSet of Deployment `owner` made: `<owner>-<hash>-<suffix>`, labelled with the hash. */
export function ownedPod(ns: string, owner: string, suffix: string, labels: Record<string, string>, ip: string, ports: { name: string; containerPort: number }[] = [], node = 'node-1'): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${owner}-${HASH}-${suffix}`, namespace: ns, labels: { ...labels, 'pod-template-hash': HASH }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${owner}-${HASH}`, uid: 'u', controller: true }] },
    spec: { nodeName: node, containers: [{ name: 'main', ports }] },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
  };
}

export const namespace = (name: string, labels: Record<string, string> = {}): Obj => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
export const node = (name: string, ip: string): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { addresses: [{ type: 'InternalIP', address: ip }] } });

/** A grpc port (9000) the scenes below admit by name. */
export const GRPC = [{ name: 'grpc', containerPort: 9000 }];

/** Only the `app: api` pods admitted, on the grpc port, from `tier: front`. */
export const API_FROM_FRONT = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'api-from-front', namespace: 'shop' },
  spec: { podSelector: { matchLabels: { app: 'api' } }, ingress: [{ from: [{ podSelector: { matchLabels: { tier: 'front' } } }], ports: [{ port: 'grpc' }] }] },
};
/** A front-tier Deployment (admitted) and another (not), in shop. */
export const FRONT = deployment('shop', 'web', { app: 'web', tier: 'front' });
export const OTHER = deployment('shop', 'batch', { app: 'batch' });

/** Whether TCP to `port` is allowed from one endpoint name to another. */
export const allowedTcp = (c: Cluster, from: string, to: string, port: number | string): boolean => evaluate(c, resolveFlow(c, { from: { pod: from }, to: { pod: to }, port, protocol: 'TCP' })).allowed;
