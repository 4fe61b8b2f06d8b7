// Turns a flow as a client names it ("ns/pod", {ip}, named port) into endpoints the engine
// evaluates: "an IP that belongs to a pod or a node is that pod or node".
import type { Cluster } from '../cluster.js';
import { parseIp, type Family, type IpAddr } from '../net/ip.js';
import { addressOf, ipKey, type NodeInfo, type PodInfo } from '../snapshot/cluster.js';
import type { Protocol } from '../policy/model.js';
import type { Endpoint, Flow } from './endpoint.js';
import { workloadKey } from '../snapshot/workload-names.js';

/**
 * A pod (or workload, node) by name, or an address. `viaService`: the pod was reached as a
 * Service's backend, so a pod reaching itself this way is hairpinned through the service proxy
 * and is not loopback (engine.ts).
 */
export type EndpointSpec = { readonly pod: string; readonly viaService?: true } | { readonly ip: string };

export interface FlowSpec {
  readonly from: EndpointSpec;
  readonly to: EndpointSpec;
  readonly port: number | string;
  readonly protocol: Protocol;
  readonly ipFamily?: 'IPv4' | 'IPv6' | undefined;
}

export class FlowError extends Error {
  constructor(readonly field: 'from' | 'to' | 'port' | 'ipFamily', message: string) {
    super(message);
  }
}

/** A flow the snapshot cannot decide (a Service whose endpoints it does not hold): said, never guessed. */
export class NoVerdict extends FlowError {}

type Named = { kind: 'pod'; pod: PodInfo; viaService?: true } | { kind: 'node'; node: NodeInfo } | { kind: 'ip'; ip: IpAddr };

function lookup(cluster: Cluster, spec: EndpointSpec, field: 'from' | 'to'): Named {
  if ('pod' in spec) {
    const pod = findEndpoint(cluster, spec.pod);
    if (pod) return spec.viaService ? { kind: 'pod', pod, viaService: true } : { kind: 'pod', pod };
    const node = cluster.nodeByName.get(spec.pod);
    if (node) return { kind: 'node', node };
    throw new FlowError(field, `no pod "${spec.pod}" in the snapshot (Succeeded and Failed pods are not endpoints; a workload is named namespace/kind/name, and by its pods when they are in the snapshot)`);
  }
  const ip = parseIp(spec.ip);
  if (!ip) throw new FlowError(field, `"${spec.ip}" is not an IPv4 or IPv6 address`);
  return { kind: 'ip', ip };
}

/**
 * One endpoint by its text (names.ts reads every other form: Services, selectors, workloads
 * with pods): `ns/pod`, `pod` (namespace default), or a workload as kubectl names it: `ns/deploy/web`,
 * `ns/deployment/web`, `deployment/web` (namespace default). A pod of that key wins.
 */
export function findEndpoint(cluster: Cluster, text: string): PodInfo | undefined {
  const direct = cluster.podByKey.get(text.includes('/') ? text : `default/${text}`);
  if (direct) return direct;
  const key = workloadKey(text);
  return key === null ? undefined : cluster.podByKey.get(key);
}

const familiesOf = (n: Named): Family[] => (n.kind === 'ip' ? [n.ip.family] : (n.kind === 'pod' ? n.pod.ips : n.node.ips).map((i) => i.family));

/** Requested family; else the address given; else the destination's primary family the source also has. */
function chooseFamily(from: Named, to: Named, requested: FlowSpec['ipFamily']): Family | null {
  const f = familiesOf(from);
  const t = familiesOf(to);
  if (requested) {
    const fam: Family = requested === 'IPv4' ? 4 : 6;
    for (const [n, field] of [[from, 'from'], [to, 'to']] as const) {
      if (n.kind === 'ip' && n.ip.family !== fam) throw new FlowError(field, `address is not ${requested}`);
      if (n.kind === 'pod' && n.pod.ips.length > 0 && !n.pod.ips.some((i) => i.family === fam)) throw new FlowError(field, `pod ${n.pod.key} has no ${requested} address`);
      if (n.kind === 'node' && !n.node.ips.some((i) => i.family === fam)) throw new FlowError(field, `node ${n.node.name} has no ${requested} address`);
    }
    return fam;
  }
  if (t.length === 0) return f[0] ?? null;
  if (f.length === 0) return t[0]!;
  const common = t.find((fam) => f.includes(fam));
  if (common === undefined) throw new FlowError('to', 'source and destination share no IP family');
  return common;
}

function toEndpoint(cluster: Cluster, n: Named, family: Family | null): Endpoint {
  if (n.kind === 'pod') {
    const ip = family === null ? null : addressOf(n.pod.ips, family);
    if (n.pod.hostNetwork) return { kind: 'node', node: n.pod.nodeName ? cluster.nodeByName.get(n.pod.nodeName) ?? null : null, ip, hostPod: n.pod };
    return n.viaService ? { kind: 'pod', pod: n.pod, ip, viaService: true } : { kind: 'pod', pod: n.pod, ip };
  }
  // A node named by its name is the node at its address of the flow's family.
  if (n.kind === 'node') return { kind: 'node', node: n.node, ip: family === null ? null : addressOf(n.node.ips, family) };
  const owner = cluster.ipOwners.get(ipKey(n.ip));
  if (owner?.kind === 'pod') return { kind: 'pod', pod: owner.pod, ip: n.ip };
  if (owner?.kind === 'node') return { kind: 'node', node: owner.node, ip: n.ip };
  return { kind: 'external', ip: n.ip };
}

export function resolvePort(to: Endpoint, port: number | string, protocol: Protocol): number {
  if (typeof port === 'number') return port;
  const pod = to.kind === 'pod' ? to.pod : to.kind === 'node' ? to.hostPod : undefined;
  if (!pod) throw new FlowError('port', `named port "${port}" needs a destination pod`);
  const found = pod.namedPorts.find((p) => p.name === port && p.protocol === protocol);
  if (!found) {
    const names = pod.namedPorts.map((p) => `${p.name} (${p.port}/${p.protocol})`).join(', ');
    throw new FlowError('port', `pod ${pod.key} has no ${protocol} port named "${port}"${names ? `; it has ${names}` : ''}`);
  }
  return found.port;
}

export function resolveFlow(cluster: Cluster, spec: FlowSpec): Flow {
  const fromN = lookup(cluster, spec.from, 'from');
  const toN = lookup(cluster, spec.to, 'to');
  const family = chooseFamily(fromN, toN, spec.ipFamily);
  const from = toEndpoint(cluster, fromN, family);
  const to = toEndpoint(cluster, toN, family);
  return { from, to, port: resolvePort(to, spec.port, spec.protocol), protocol: spec.protocol, family };
}
