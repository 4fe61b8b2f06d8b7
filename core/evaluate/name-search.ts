// Lookups names.ts makes for names written without a namespace, for a namespace's pods, for
// "the internet", and for suggestions: which namespaces hold a name, which pods a namespace
// has, which public address stands for the internet, what a misspelt name or port was close to.
import type { Cluster } from '../cluster.js';
import { representative } from '../ask/internet.js';
import type { Protocol } from '../policy/model.js';
import type { ClusterObjects, PodInfo } from '../snapshot/cluster.js';
import { workloadKindOf, workloadName } from '../snapshot/workload-names.js';
import type { AddressRegions } from './cidr.js';
import { findService, selectedPods, serviceName } from './service.js';

export const SERVICE_WORDS = new Set(['svc', 'service', 'services']);
// kubectl's names for pods: `kubectl get po/web`.
export const POD_WORDS = new Set(['pod', 'pods', 'po']);
/** `ns/staging`, `namespace/staging`: every pod of namespace staging (kubectl's `ns/NAME`). */
export const NAMESPACE_WORDS = new Set(['ns', 'namespace', 'namespaces']);
/** The endpoint text of "the internet" (an `ip` spec: it is addresses, never a node's name). */
export const INTERNET = 'internet';

export const namespaceNames = (cluster: ClusterObjects): Set<string> => new Set([...cluster.nsByName.keys(), ...cluster.services.map((s) => s.metadata.namespace ?? 'default')]);

/** The pods of a workload `kind/name` (`deployment/web`) in `ns`. */
export const workloadPods = (cluster: ClusterObjects, ns: string, wname: string): PodInfo[] => (cluster.podsByNamespace.get(ns) ?? []).filter((p) => p.workload === wname);

/** Whether `ns` holds what `text` names without a namespace: `web` (a pod, workload or Service of that name), `deploy/web`, `svc/web`, `pod/web`. */
export function holds(cluster: ClusterObjects, ns: string, text: string): boolean {
  const parts = text.split('/');
  const name = parts[parts.length - 1]!;
  const pods = cluster.podsByNamespace.get(ns) ?? [];
  const pod = cluster.podByKey.get(`${ns}/${name}`) !== undefined;
  const service = findService(cluster, ns, name) !== undefined;
  if (parts.length === 1) return pod || service || pods.some((p) => p.workload !== undefined && p.workload.slice(p.workload.indexOf('/') + 1) === name);
  if (POD_WORDS.has(parts[0]!)) return pod;
  if (SERVICE_WORDS.has(parts[0]!)) return service;
  const kind = workloadKindOf(parts[0]!);
  return kind !== null && workloadPods(cluster, ns, workloadName(kind, name)).length > 0;
}

/** The namespaces holding `text`, default first when it is one of them (kubectl reads a name without -n in default). */
export function namespacesHolding(cluster: ClusterObjects, text: string): string[] {
  const all = [...namespaceNames(cluster)].filter((ns) => holds(cluster, ns, text)).sort();
  return all.includes('default') ? ['default'] : all;
}

/**
 * A workload and a Service of one name in one namespace that pick the same pods are one set of
 * endpoints: true when the Service's selector picks exactly the workload's pods.
 */
export function sameEndpoints(cluster: ClusterObjects, workloadPodsOf: readonly PodInfo[], service: Parameters<typeof selectedPods>[1]): boolean {
  const { ready, notReady } = selectedPods(cluster, service);
  const picked = new Set([...ready, ...notReady].map((p) => p.key));
  return picked.size === workloadPodsOf.length && workloadPodsOf.every((p) => picked.has(p.key));
}

/** Whether a Service has the port a destination is asked on (a number among its ports, a name among their names). */
export function servicePortAsked(service: Parameters<typeof selectedPods>[1], port: number | string | null, protocol: Protocol | null): boolean {
  if (port === null || service.spec.clusterIP === 'None') return false;
  return service.spec.ports.some((p) => (protocol === null || p.protocol === protocol) && (typeof port === 'number' ? p.port === port : p.name === port));
}

/** Every pod of a namespace that policies select (host-network pods are their node's). */
export const namespaceMembers = (cluster: ClusterObjects, ns: string): PodInfo[] => (cluster.podsByNamespace.get(ns) ?? []).filter((p) => !p.hostNetwork);

/** The internet as one public address per address family the pods use, chosen as the exposure question does (core/ask/internet.ts). */
export function internetRegions(cluster: Cluster): AddressRegions {
  const families = [...new Set(cluster.pods.flatMap((p) => p.ips.map((i) => i.family)))].sort();
  const regions = (families.length === 0 ? [4 as const] : families).map((family) => {
    const rep = representative(cluster, family);
    const side = [...(rep.outside.length > 0 ? [`outside ${rep.outside.join(', ')}`] : []), ...(rep.inside.length > 0 ? [`inside ${rep.inside.join(', ')}`] : [])];
    const name = `${rep.ip} (a public address: answered for it, and for every public address no policy tells apart from it${side.length > 0 ? `, ${side.join(' and ')}` : ''})`;
    return { cidrs: [family === 4 ? '0.0.0.0/0' : '::/0'], address: rep.ip, owner: null, heldBy: null, name };
  });
  return { regions, cutBy: 0, held: { pod: 0, node: 0, clusterIP: 0 } };
}

/** Everything a name without a namespace could have meant, as [name, the form to write], from every namespace. */
export function everywhere(cluster: ClusterObjects): [string, string][] {
  const out: [string, string][] = [...cluster.nodeByName.keys()].map((n) => [n, n]);
  for (const ns of namespaceNames(cluster)) {
    const pods = cluster.podsByNamespace.get(ns) ?? [];
    for (const p of pods) if (p.workload !== p.name) out.push([p.name, p.key]);
    for (const w of new Set(pods.flatMap((p) => (p.workload ? [p.workload] : [])))) out.push([w.slice(w.indexOf('/') + 1), `${ns}/${w}`]);
    out.push([ns, `ns/${ns}`]);
  }
  for (const s of cluster.services) out.push([s.metadata.name, serviceName(s)]);
  return out;
}

/** A named port no pod of the destination has: the pods' port names within two edits of it. */
export function portNamesOf(pods: readonly PodInfo[], protocol: Protocol | null): string[] {
  return [...new Set(pods.flatMap((p) => p.namedPorts.filter((np) => protocol === null || np.protocol === protocol).map((np) => np.name)))].sort();
}
