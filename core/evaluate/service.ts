// Services as kube-proxy routes them. "For each Service, kube-proxy … configure[s] the node to
// capture traffic to the Service's clusterIP and port, and redirect that traffic to one of the
// Service's endpoints (usually a Pod …)" (Virtual IPs and Service Proxies): the packet a
// NetworkPolicy sees is addressed to a backing pod on its targetPort, so a flow to a Service is
// answered for each of those pods. This file finds the Service a flow names and routes its port;
// names.ts reads the names, expand.ts makes the flows.
import { labelValue } from '../../schemas/k8s/label-selector.js';
import type { Service } from '../../schemas/k8s/core.js';
import type { IpAddr } from '../net/ip.js';
import { parseIp } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import { ipKey, type ClusterObjects, type PodInfo } from '../snapshot/cluster.js';
import { FlowError, NoVerdict } from './resolve.js';

type ServicePort = Service['spec']['ports'][number];

interface Index {
  readonly byKey: ReadonlyMap<string, Service>;
  readonly byClusterIp: ReadonlyMap<string, Service>;
  readonly clusterIps: readonly { readonly ip: IpAddr; readonly service: Service }[];
}
// Built once per services list (a cluster with pods replaced keeps its list).
const indexes = new WeakMap<readonly Service[], Index>();
function indexOf(cluster: ClusterObjects): Index {
  let ix = indexes.get(cluster.services);
  if (ix) return ix;
  const byKey = new Map<string, Service>();
  const byClusterIp = new Map<string, Service>();
  const ips = new Map<string, IpAddr>();
  for (const s of cluster.services) {
    byKey.set(serviceKey(s), s);
    for (const text of [s.spec.clusterIP, ...s.spec.clusterIPs]) {
      const ip = text && text !== 'None' ? parseIp(text) : null;
      if (!ip) continue;
      byClusterIp.set(ipKey(ip), s);
      ips.set(ipKey(ip), ip);
    }
  }
  const clusterIps = [...byClusterIp].map(([k, service]) => ({ ip: ips.get(k)!, service }));
  indexes.set(cluster.services, (ix = { byKey, byClusterIp, clusterIps }));
  return ix;
}

export const serviceKey = (s: Service): string => `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`;
/** How answers name a Service: `shop/svc/db`. */
export const serviceName = (s: Service): string => `${s.metadata.namespace ?? 'default'}/svc/${s.metadata.name}`;

export function findService(cluster: ClusterObjects, namespace: string, name: string): Service | undefined {
  return indexOf(cluster).byKey.get(`${namespace}/${name}`);
}

/** Every ClusterIP and the Service it names (the last Service listed with an address wins, as serviceAt finds it). */
export function clusterIps(cluster: ClusterObjects): readonly { readonly ip: IpAddr; readonly service: Service }[] {
  return indexOf(cluster).clusterIps;
}

/** "The port on each node on which this service is exposed when type=NodePort or LoadBalancer" (ServicePort.nodePort). */
const hasNodePorts = (s: Service) => s.spec.type === 'NodePort' || s.spec.type === 'LoadBalancer';

/** The Service an address names: its ClusterIP, or a node address on one of its NodePorts. */
export function serviceAt(cluster: ClusterObjects, ip: IpAddr, port: number | string | null, protocol: Protocol | null): { service: Service; via: 'clusterIP' | 'nodePort' } | null {
  const key = ipKey(ip);
  const byIp = indexOf(cluster).byClusterIp.get(key);
  if (byIp) return { service: byIp, via: 'clusterIP' };
  if (typeof port !== 'number' || cluster.ipOwners.get(key)?.kind !== 'node') return null;
  const service = cluster.services.find((s) => hasNodePorts(s) && s.spec.ports.some((p) => p.nodePort === port && (protocol === null || p.protocol === protocol)));
  return service ? { service, via: 'nodePort' } : null;
}

export const selectorText = (s: Service): string => Object.entries(s.spec.selector ?? {}).map(([k, v]) => `${k}=${v}`).join(',');

/**
 * Why the snapshot cannot say where the Service's traffic goes, or null. "Services of type
 * ExternalName map a Service to a DNS name" (no proxying); for a Service without a selector,
 * "the corresponding EndpointSlice objects are not created automatically" (Service docs): its
 * endpoints are whatever someone else wrote, which the snapshot does not hold.
 */
export function unroutable(s: Service): string | null {
  const name = serviceName(s);
  if (s.spec.type === 'ExternalName') return `${name} is an ExternalName Service (a DNS alias of ${s.spec.externalName ?? 'another name'}): nothing is proxied and where that name leads is not in the snapshot; no verdict`;
  if (!s.spec.selector || Object.keys(s.spec.selector).length === 0) return `${name} is selector-less: its endpoints (EndpointSlices managed elsewhere) are not in the snapshot; no verdict`;
  return null;
}

/** A workload without pods in the input stands for its pods (snapshot/cluster.ts). */
const standsForPods = (p: PodInfo) => p.ips.length === 0 && p.workload === p.name;

/**
 * The pods the selector picks in the Service's namespace: "The set of Pods targeted by a
 * Service is usually determined by a selector". Ready here means an endpoint with an address
 * (the snapshot's pods carry no readiness conditions), or a workload standing for its pods.
 */
export function selectedPods(cluster: ClusterObjects, s: Service): { ready: PodInfo[]; notReady: PodInfo[] } {
  const sel = Object.entries(s.spec.selector ?? {});
  const ready: PodInfo[] = [];
  const notReady: PodInfo[] = [];
  for (const p of cluster.podsByNamespace.get(s.metadata.namespace ?? 'default') ?? []) {
    if (!sel.every(([k, v]) => labelValue(p.labels, k) === v)) continue;
    (p.ips.length > 0 || standsForPods(p) ? ready : notReady).push(p);
  }
  return { ready, notReady };
}

/** One Service port's traffic: the port asked for, and where each backing pod receives it. */
export interface Route {
  /** null for a headless Service: no port is proxied. */
  readonly servicePort: ServicePort | null;
  readonly protocol: Protocol;
  /** Backing pods and the port each receives the traffic on; number, or as asked (headless). */
  readonly backends: readonly { readonly pod: PodInfo; readonly port: number | string | null }[];
  /** Ready pods the port does not reach: they lack the named targetPort. */
  readonly lacking: readonly PodInfo[];
  /** "port 5432 → targetPort 5432". */
  readonly text: string;
}

const portList = (s: Service) => s.spec.ports.map((p) => `${p.port}/${p.protocol}${p.name ? ` (${p.name})` : ''}${p.nodePort ? ` nodePort ${p.nodePort}` : ''}`).join(', ') || 'none';

/**
 * The Service's ports a flow on `asked` uses (a port number, a Service port name, a NodePort,
 * or null for every port), each mapped to targetPort per ready pod: "If this is a string, it
 * will be looked up as a named port in the target Pod's container ports. If this is not
 * specified, the value of the 'port' field is used (an identity map)" (ServicePort.targetPort).
 * A headless Service (clusterIP None) proxies nothing: "This field is ignored for services with
 * clusterIP=None", so clients reach its pods on the port they asked for.
 */
export function routes(cluster: ClusterObjects, s: Service, asked: number | string | null, protocol: Protocol | null, via: 'name' | 'clusterIP' | 'nodePort'): Route[] {
  const why = unroutable(s);
  if (why) throw new NoVerdict('to', why);
  const { ready } = selectedPods(cluster, s);
  if (s.spec.clusterIP === 'None') {
    return [{ servicePort: null, protocol: protocol ?? 'TCP', backends: ready.map((pod) => ({ pod, port: asked })), lacking: [], text: `headless: no proxying, each pod on the port asked` }];
  }
  const matches = s.spec.ports.filter((p) => {
    if (protocol !== null && p.protocol !== protocol) return false;
    if (asked === null) return true;
    if (typeof asked === 'string') return p.name === asked;
    return via === 'nodePort' ? p.nodePort === asked : p.port === asked;
  });
  if (matches.length === 0) {
    const what = asked === null ? 'port' : typeof asked === 'string' ? `port named "${asked}"` : via === 'nodePort' ? `NodePort ${asked}` : `port ${asked}`;
    throw new FlowError('port', `${serviceName(s)} has no ${protocol ? `${protocol} ` : ''}${what}; its ports: ${portList(s)}`);
  }
  // Ports of one number on two protocols are two Service ports: each says its protocol, as portList does.
  const named = (sp: ServicePort) => (matches.some((p) => p.protocol !== 'TCP') ? `${sp.port}/${sp.protocol}` : `${sp.port}`);
  return matches.map((sp): Route => {
    const backends: { pod: PodInfo; port: number }[] = [];
    const lacking: PodInfo[] = [];
    for (const pod of ready) {
      const tp = sp.targetPort ?? sp.port;
      const port = typeof tp === 'number' ? tp : pod.namedPorts.find((np) => np.name === tp && np.protocol === sp.protocol)?.port;
      if (port === undefined) lacking.push(pod);
      else backends.push({ pod, port });
    }
    const from = via === 'nodePort' ? `NodePort ${sp.nodePort} (port ${named(sp)})` : `port ${named(sp)}`;
    const numbers = [...new Set(backends.map((b) => b.port))];
    const target = typeof sp.targetPort === 'string'
      ? `targetPort ${sp.targetPort} (${numbers.length === 1 ? numbers[0] : backends.map((b) => `${b.port} on ${b.pod.key}`).join(', ')})`
      : `targetPort ${sp.targetPort ?? sp.port}`;
    return { servicePort: sp, protocol: sp.protocol, backends, lacking, text: `${from} → ${target}` };
  });
}
