// Normalises parsed snapshot objects into an indexed cluster: pods by key and namespace,
// addresses as integers, an owner index from address to pod or node.
import type { Namespace, Node, Pod, Service } from '../../schemas/k8s/core.js';
import { legacyIngressIsolation } from '../../schemas/object-checks.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { formatIp, parseIp, type Family, type IpAddr } from '../net/ip.js';
import type { Lookup } from '../layered-map.js';
import { sortOnce } from '../sorted.js';
import { snapshotObjectKey } from './hash.js';
import type { Labels } from '../../schemas/k8s/label-selector.js';
import type { Protocol } from '../policy/model.js';
import type { PodTemplate, Workload } from '../../schemas/k8s/workload.js';
import { Owners, templateLabels } from './owners.js';
import { workloadName } from './workload-names.js';
import type { ClusterWarning } from '../warnings.js';
import type { ObjectRef } from '../../schemas/object-key.js';

export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export interface NamespaceInfo {
  readonly idx: number;
  readonly name: string;
  readonly labels: Labels;
  /** The proposal's `net.beta.kubernetes.io/network-policy` DefaultDeny annotation. */
  readonly legacyIngressIsolation: boolean;
  /** True when the snapshot had no Namespace object and one was assumed. */
  readonly implicit: boolean;
}

export interface NamedPort {
  readonly name: string;
  readonly port: number;
  readonly protocol: Protocol;
}

export interface PodInfo {
  readonly idx: number;
  /** "namespace/name" */
  readonly key: string;
  readonly namespace: string;
  readonly nsIdx: number;
  readonly name: string;
  readonly labels: Labels;
  readonly nodeName: string | null;
  readonly hostNetwork: boolean;
  /** Primary address first (status.podIPs order). */
  readonly ips: readonly IpAddr[];
  readonly namedPorts: readonly NamedPort[];
  /**
   * The workload that controls the pod, `deployment/web`. A workload without pods in the
   * input is an endpoint itself: its `name` is the workload's and it has no address.
   */
  readonly workload?: string | undefined;
}

export interface NodeInfo {
  readonly idx: number;
  readonly name: string;
  readonly labels: Labels;
  readonly ips: readonly IpAddr[];
}

export type IpOwner = { readonly kind: 'pod'; readonly pod: PodInfo } | { readonly kind: 'node'; readonly node: NodeInfo };

/** The pod that owns an address, if a pod does. */
export const ownerPod = (o: IpOwner | undefined): PodInfo | undefined => (o?.kind === 'pod' ? o.pod : undefined);

export interface ClusterObjects {
  readonly namespaces: readonly NamespaceInfo[];
  readonly pods: readonly PodInfo[];
  readonly nodes: readonly NodeInfo[];
  readonly services: readonly Service[];
  readonly nsByName: ReadonlyMap<string, NamespaceInfo>;
  readonly podByKey: Lookup<string, PodInfo>;
  readonly nodeByName: ReadonlyMap<string, NodeInfo>;
  readonly podsByNamespace: ReadonlyMap<string, readonly PodInfo[]>;
  /** Pods by spec.nodeName, each list in key order. */
  readonly podsByNode: ReadonlyMap<string, readonly PodInfo[]>;
  /** `${family}:${value}` → owner. Node addresses win over host-network pods sharing them. */
  readonly ipOwners: Lookup<string, IpOwner>;
  /** Keys of addresses more than one endpoint claims (the first owns it; a warning says so). */
  readonly sharedAddresses: ReadonlySet<string>;
  /** What indexing the objects found to warn of; a Cluster's list adds the rest (core/cluster.ts). */
  readonly warnings: ClusterWarning[];
}

// Keys of the same address objects are asked for in every version and by every set.
const ipKeys = new WeakMap<IpAddr, string>();
export function ipKey(ip: IpAddr): string {
  let k = ipKeys.get(ip);
  if (k === undefined) ipKeys.set(ip, (k = `${ip.family}:${ip.value}`));
  return k;
}

/**
 * Objects of one kind in namespace/name order (keys built once, not per comparison). A
 * version's objects are kept in kind/namespace/name order, so each kind comes already sorted:
 * checked, not sorted again.
 */
export function byName<T extends SnapshotObject>(list: T[]): T[] {
  // Within one kind, kind/namespace/name order (snapshotObjectKey, made once per object) is namespace/name order.
  return sortOnce(list, (a, b) => {
    const [x, y] = [snapshotObjectKey(a), snapshotObjectKey(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

// A pod's addresses and named ports, read once per pod object: versions from changes share
// their unchanged pods with the version before (parsed objects are never mutated).
const factsOf = new WeakMap<Pod, { readonly ips: readonly IpAddr[]; readonly namedPorts: readonly NamedPort[] }>();
export function podFacts(p: Pod): { readonly ips: readonly IpAddr[]; readonly namedPorts: readonly NamedPort[] } {
  let f = factsOf.get(p);
  if (!f) factsOf.set(p, (f = { ips: podAddresses(p), namedPorts: namedPortsOf(p.spec) }));
  return f;
}

// A node's addresses, read once per node object (as pods' are).
const nodeIps = new WeakMap<Node, readonly IpAddr[]>();
function nodeAddresses(n: Node): readonly IpAddr[] {
  let ips = nodeIps.get(n);
  if (!ips) {
    ips = n.status.addresses
      .filter((a) => a.type === 'InternalIP' || a.type === 'ExternalIP')
      .map((a) => parseIp(a.address))
      .filter((ip): ip is IpAddr => ip !== null);
    nodeIps.set(n, ips);
  }
  return ips;
}

/** Succeeded and Failed pods are not endpoints: they neither send nor receive. */
export function isEndpoint(p: Pod): boolean {
  return p.status.phase !== 'Succeeded' && p.status.phase !== 'Failed';
}

function podAddresses(p: Pod): IpAddr[] {
  const texts = p.status.podIPs.length > 0 ? p.status.podIPs.map((x) => x.ip) : p.status.podIP ? [p.status.podIP] : [];
  const out: IpAddr[] = [];
  for (const t of texts) {
    const ip = parseIp(t);
    if (ip && !out.some((o) => o.family === ip.family && o.value === ip.value)) out.push(ip);
  }
  return out;
}

function namedPortsOf(spec: Pick<PodTemplate['spec'], 'containers' | 'initContainers'>): NamedPort[] {
  const out: NamedPort[] = [];
  for (const c of [...spec.containers, ...spec.initContainers]) {
    for (const port of c.ports) if (port.name) out.push({ name: port.name, port: port.containerPort, protocol: port.protocol });
  }
  return out;
}

export type EndpointFacts = Omit<PodInfo, 'idx' | 'nsIdx'>;

/**
 * An endpoint at its place in a cluster. Written out field by field, not spread: a spread copy
 * per pod was a tenth of building the cluster (10⁵ pods at L). Fields in the order a spread of
 * the facts wrote them.
 */
export function podInfo(f: EndpointFacts, idx: number, nsIdx: number): PodInfo {
  return { key: f.key, namespace: f.namespace, name: f.name, labels: f.labels, nodeName: f.nodeName, hostNetwork: f.hostNetwork, ips: f.ips, namedPorts: f.namedPorts, workload: f.workload, idx, nsIdx };
}

/** A pod's key in a cluster: "namespace/name". */
export const podKey = (p: Pod): string => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`;

/** A running pod as an endpoint, its workload read from `owners`. */
export function podEndpoint(p: Pod, owners: Owners): EndpointFacts {
  const namespace = p.metadata.namespace ?? 'default';
  const { ips, namedPorts } = podFacts(p);
  return { key: podKey(p), namespace, name: p.metadata.name, labels: p.metadata.labels, nodeName: p.spec.nodeName ?? null, hostNetwork: p.spec.hostNetwork, ips, namedPorts, workload: owners.ownerOfPod(p) ?? undefined };
}

/** Whether a pod on `nodeName` draws a warning: on a node the snapshot lacks (when it has nodes). */
export const onMissingNode = (c: Pick<ClusterObjects, 'nodes' | 'nodeByName'>, nodeName: string | null): boolean => !!nodeName && c.nodes.length > 0 && !c.nodeByName.has(nodeName);

/** Running pods, then every workload that has none of them, as one address-less endpoint. */
function endpointFacts(owners: Owners, podObjs: readonly Pod[]): EndpointFacts[] {
  const out: EndpointFacts[] = [];
  const represented = new Set<string>();
  for (const p of podObjs) {
    if (!isEndpoint(p)) continue;
    const f = podEndpoint(p, owners);
    if (f.workload) represented.add(`${f.namespace}/${f.workload}`);
    out.push(f);
  }
  for (const w of owners.endpointWorkloads()) if (!represented.has(workloadEndpointKey(w))) out.push(workloadEndpoint(w, owners));
  return sortOnce(out, (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** A workload's own endpoint's key, `namespace/kind/name` ("shop/deployment/web"), never a pod's (a pod's name has no slash). */
export const workloadEndpointKey = (w: Workload): string => `${w.metadata.namespace ?? 'default'}/${workloadName(w.kind, w.metadata.name)}`;

/** A workload of `owners.endpointWorkloads()` (its template known) as an endpoint of its own: no address, its template's labels and named ports. */
export function workloadEndpoint(w: Workload, owners: Owners): EndpointFacts {
  const namespace = w.metadata.namespace ?? 'default';
  const name = workloadName(w.kind, w.metadata.name);
  const template = owners.templateOf(w)!;
  return { key: `${namespace}/${name}`, namespace, name, labels: templateLabels(w, template), nodeName: null, hostNetwork: template.spec.hostNetwork, ips: [], namedPorts: namedPortsOf(template.spec), workload: name };
}

/** A Namespace object's facts, at index `idx` of the cluster's namespaces. */
export function namespaceInfo(idx: number, n: Namespace): NamespaceInfo {
  const name = n.metadata.name;
  // "The Kubernetes control plane sets an immutable label kubernetes.io/metadata.name on all namespaces."
  return { idx, name, labels: { ...n.metadata.labels, [NAMESPACE_NAME_LABEL]: name }, legacyIngressIsolation: legacyIngressIsolation(n.metadata.annotations), implicit: false };
}

/** `owners`: the workloads among `objects` (a caller may keep them for a version with only other pods). */
export function buildClusterObjects(objects: readonly SnapshotObject[], owners: Owners = new Owners(objects)): ClusterObjects {
  const warnings: ClusterWarning[] = [];
  // One pass over the objects (10⁵ of them at L), then each kind in name order.
  const [nsList, podList, nodeList, serviceList]: [Namespace[], Pod[], Node[], Service[]] = [[], [], [], []];
  for (const o of objects) {
    if (o.kind === 'Pod') podList.push(o);
    else if (o.kind === 'Namespace') nsList.push(o);
    else if (o.kind === 'Node') nodeList.push(o);
    else if (o.kind === 'Service') serviceList.push(o);
  }
  const [nsObjs, podObjs, nodeObjs, services] = [byName(nsList), byName(podList), byName(nodeList), byName(serviceList)];

  const namespaces: NamespaceInfo[] = [];
  const nsByName = new Map<string, NamespaceInfo>();
  const addNamespace = (info: NamespaceInfo) => {
    namespaces.push(info);
    nsByName.set(info.name, info);
  };
  for (const n of nsObjs) addNamespace(namespaceInfo(namespaces.length, n));

  const facts = endpointFacts(owners, podObjs);
  // A Rollout whose template is that of a Deployment, ReplicaSet or PodTemplate the input lacks, and without pods of its own in it: unknown.
  // (The workloads with pods are listed only when some Rollout is unresolved: rarely, and 10⁵ pods at L.)
  const unresolved = owners.unresolvedRollouts();
  const withPods = unresolved.length === 0 ? new Set<string>() : new Set(facts.flatMap((f) => (f.workload ? [`${f.namespace}/${f.workload}`] : [])));
  const unknownRollouts = unresolved.filter((r) => !withPods.has(`${r.namespace}/${workloadName('Rollout', r.name)}`));
  if (unknownRollouts.length > 0) {
    const list = unknownRollouts.map((r) => `${r.namespace}/${r.name} (workloadRef: ${r.ref})`).sort();
    const one = list.length === 1;
    warnings.push({ code: 'rollout-template-missing', message: `${list.length} Rollout${one ? ' takes its' : 's take their'} pod template from an object the input does not hold (a Deployment, ReplicaSet or PodTemplate of ${one ? 'its' : 'their'} namespace), so ${one ? 'its' : 'their'} pods are unknown and left out: ${sample(list)}` });
  }
  const implicitNs = new Set<string>();
  for (const f of facts) if (!nsByName.has(f.namespace)) implicitNs.add(f.namespace);
  for (const name of [...implicitNs].sort()) {
    addNamespace({ idx: namespaces.length, name, labels: { [NAMESPACE_NAME_LABEL]: name }, legacyIngressIsolation: false, implicit: true });
    warnings.push({ code: 'namespace-assumed', object: { kind: 'Namespace', name }, message: `namespace "${name}" has pods or workloads but no Namespace object in the snapshot; assumed with only the ${NAMESPACE_NAME_LABEL} label` });
  }

  const pods: PodInfo[] = [];
  const podByKey = new Map<string, PodInfo>();
  const podsByNamespace = new Map<string, PodInfo[]>();
  const podsByNode = new Map<string, PodInfo[]>();
  for (const f of facts) {
    const info = podInfo(f, pods.length, nsByName.get(f.namespace)!.idx);
    pods.push(info);
    podByKey.set(info.key, info);
    let list = podsByNamespace.get(f.namespace);
    if (!list) podsByNamespace.set(f.namespace, (list = []));
    list.push(info);
    if (info.nodeName === null) continue;
    const onNode = podsByNode.get(info.nodeName);
    if (onNode) onNode.push(info);
    else podsByNode.set(info.nodeName, [info]);
  }

  const { nodes, nodeByName } = nodeInfos(nodeObjs);
  const { ipOwners, sharedAddresses, warnings: shared } = addressOwners(nodes, pods);
  warnings.push(...shared);
  const finished = podObjs.filter((p) => !isEndpoint(p)).map((p) => `${p.metadata.namespace ?? 'default'}/${p.metadata.name}`);
  if (finished.length > 0) warnings.push({ code: 'finished-pods-left-out', message: `${finished.length} finished pod${finished.length === 1 ? '' : 's'} (Succeeded or Failed) left out, as they neither send nor receive: ${sample(finished)}` });
  const host = pods.filter((p) => p.hostNetwork).map((p) => p.key);
  // "host-networked pods are not included in subject selection": their traffic is their node's.
  if (host.length > 0) warnings.push({ code: 'host-network-pods', message: `${host.length} host-network pod${host.length === 1 ? '' : 's'} treated as ${host.length === 1 ? 'its node' : 'their nodes'} (no policy selects them; their address is the node's): ${sample(host)}` });
  warnings.push(...missingNodeWarnings({ nodes, nodeByName }, pods));

  return { namespaces, pods, nodes, services, nsByName, podByKey, nodeByName, podsByNamespace, podsByNode, ipOwners, sharedAddresses, warnings };
}

/** Node objects (in name order) as the cluster's nodes. */
export function nodeInfos(nodeObjs: readonly Node[]): Pick<ClusterObjects, 'nodes' | 'nodeByName'> {
  const nodes: NodeInfo[] = nodeObjs.map((n, idx) => ({ idx, name: n.metadata.name, labels: n.metadata.labels, ips: nodeAddresses(n) }));
  return { nodes, nodeByName: new Map(nodes.map((n) => [n.name, n])) };
}

/** Who owns each address: nodes first, then pods in order (the first wins); the addresses shared and a warning for each pod that lost one. */
export function addressOwners(nodes: readonly NodeInfo[], pods: readonly PodInfo[]): Pick<ClusterObjects, 'ipOwners' | 'sharedAddresses' | 'warnings'> {
  const warnings: ClusterWarning[] = [];
  const ipOwners = new Map<string, IpOwner>();
  const sharedAddresses = new Set<string>();
  for (const node of nodes) for (const ip of node.ips) ipOwners.set(ipKey(ip), { kind: 'node', node });
  for (const pod of pods) {
    if (pod.hostNetwork) continue; // its addresses are its node's
    for (const ip of pod.ips) {
      const k = ipKey(ip);
      const prev = ipOwners.get(k);
      if (prev) {
        sharedAddresses.add(k);
        warnings.push({ code: 'address-shared', object: podRef(pod), message: `address ${formatIp(ip.family, ip.value)} belongs to both ${prev.kind === 'pod' ? `pod ${prev.pod.key}` : `node ${prev.node.name}`} and pod ${pod.key}; the first one is used` });
        continue;
      }
      ipOwners.set(k, { kind: 'pod', pod });
    }
  }
  return { ipOwners, sharedAddresses, warnings };
}

/** A warning for each pod on a node the snapshot lacks (when it has nodes). */
export function missingNodeWarnings(c: Pick<ClusterObjects, 'nodes' | 'nodeByName'>, pods: readonly PodInfo[]): ClusterWarning[] {
  const out: ClusterWarning[] = [];
  for (const pod of pods) {
    if (onMissingNode(c, pod.nodeName)) out.push({ code: 'pod-on-missing-node', object: podRef(pod), path: 'spec.nodeName', message: `pod ${pod.key} runs on node "${pod.nodeName}", which is not in the snapshot` });
  }
  return out;
}

// Only pods are in these warnings, never workload endpoints: those have no address and no node.
const podRef = (pod: PodInfo): ObjectRef => ({ kind: 'Pod', namespace: pod.namespace, name: pod.name });

const sample = (keys: readonly string[]) => `${keys.slice(0, 5).join(', ')}${keys.length > 5 ? ` and ${keys.length - 5} more` : ''}`;

export function addressOf(ips: readonly IpAddr[], family: Family): IpAddr | null {
  return ips.find((ip) => ip.family === family) ?? null;
}
