// How answers name things: endpoints ("10.0.0.7 (pod shop/web)"), ports on a destination, and
// pod sets by namespace and workload label (the deciding rule: evaluate/explain.ts).
import type { Cluster } from '../cluster.js';
import { INTERNET, named } from '../evaluate/names.js';
import { selectedPods } from '../evaluate/service.js';
import { FlowError, findEndpoint, type EndpointSpec } from '../evaluate/resolve.js';
import { parseIp } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import { ipKey, type IpOwner, type NodeInfo, type PodInfo } from '../snapshot/cluster.js';
import { NOT_WORKLOAD, WORKLOAD_KEYS } from '../snapshot/workload.js';

/** Items per port set and port sets per sentence; JSON member lists are capped at MAX_MEMBERS. */
export const MAX_ITEMS_IN_TEXT = 5;
export const MAX_GROUPS_IN_TEXT = 4;
export const MAX_MEMBERS = 100;
/** Lines a sentence carries in parentheses (how names were read, what was left out); the JSON has them all. */
export const MAX_NOTES_IN_TEXT = 4;

/** " (a; b; c; d; and 3 more)", or "" for no lines. */
export function parenthesized(lines: readonly string[]): string {
  if (lines.length === 0) return '';
  const more = lines.length - MAX_NOTES_IN_TEXT;
  return ` (${lines.slice(0, MAX_NOTES_IN_TEXT).join('; ')}${more > 0 ? `; and ${more} more` : ''})`;
}

const ownerOf = (cluster: Cluster, spec: EndpointSpec): IpOwner | undefined => {
  if ('pod' in spec) {
    const pod = findEndpoint(cluster, spec.pod);
    if (pod) return { kind: 'pod', pod };
    const node = cluster.nodeByName.get(spec.pod);
    return node ? { kind: 'node', node } : undefined;
  }
  const ip = parseIp(spec.ip);
  return ip ? cluster.ipOwners.get(ipKey(ip)) : undefined;
};
export function podOf(cluster: Cluster, spec: EndpointSpec): PodInfo | null {
  const o = ownerOf(cluster, spec);
  return o?.kind === 'pod' ? o.pod : null;
}
/** The node a flow end is: a node's address, or a host-network pod ("its address is its node's", resolve.ts). */
export function nodeOf(cluster: Cluster, spec: EndpointSpec): NodeInfo | null {
  const o = ownerOf(cluster, spec);
  if (o?.kind === 'node') return o.node;
  return o?.pod.hostNetwork && o.pod.nodeName ? cluster.nodeByName.get(o.pod.nodeName) ?? null : null;
}
/** A name that stands for no pods (a node, an address outside the cluster) where pods are asked about. */
export class NotPods extends FlowError {}

/**
 * The pods `spec` names: a pod, a workload's pods, a Service's ready backends, a selector's or a
 * namespace's pods. `what` words the error for a name that is no pod ("what changed" takes …).
 */
export function podsNamed(cluster: Cluster, spec: EndpointSpec, what: string): PodInfo[] {
  const n = named(cluster, spec, 'to');
  if (n.kind === 'pods') return [...n.pods];
  if (n.kind === 'service') return selectedPods(cluster, n.service).ready;
  const pod = n.kind === 'one' ? podOf(cluster, n.spec) : null;
  if (!pod) throw new NotPods('from', `${what} takes a pod, a workload or a Service, and ${'pod' in spec ? spec.pod : spec.ip === INTERNET ? 'the internet' : spec.ip} is not one`);
  return [pod];
}

/** An address says whose it is: "10.0.0.7 (pod shop/web)". */
export function nameOf(cluster: Cluster, spec: EndpointSpec): string {
  const o = ownerOf(cluster, spec);
  if ('pod' in spec) return o?.kind === 'node' ? `node ${o.node.name}` : spec.pod;
  return o ? `${spec.ip} (${o.kind === 'pod' ? `pod ${o.pod.key}` : `node ${o.node.name}`})` : spec.ip;
}

/** A named port of the destination: of the asked protocol, or else the one it declares (TCP first). */
export function namedPort(pod: PodInfo | null, name: string, protocol: Protocol | null): { port: number; protocol: Protocol } | null {
  const found = (pod?.namedPorts ?? []).filter((np) => np.name === name && (protocol === null || np.protocol === protocol));
  return found.sort((a, b) => PROTOCOLS.indexOf(a.protocol) - PROTOCOLS.indexOf(b.protocol))[0] ?? null;
}
/**
 * The protocol a question means: a port number without one is TCP, as everywhere in the
 * Kubernetes API ("If not specified, this field defaults to TCP": NetworkPolicyPort.protocol,
 * ServicePort.protocol, ContainerPort.protocol) and in /v1/verdicts; a Service port of that
 * number on another protocol is another port, asked as "on 53/udp". A named port keeps null:
 * the name says its protocol (namedPort).
 */
export const protocolAsked = (port: number | string | null, protocol: Protocol | null): Protocol | null => protocol ?? (typeof port === 'number' ? 'TCP' : null);

/**
 * " (no protocol asked, so TCP; kube-system/svc/kube-dns also has UDP 53: ask "on 53/udp")", or
 * "" — when a port number was asked without a protocol and the destination has that number on
 * another protocol too: a Service's ports, or the container ports its pods name.
 */
export function otherProtocolsNote(cluster: Cluster, to: EndpointSpec, port: number | string | null, protocol: Protocol | null): string {
  if (typeof port !== 'number' || protocol !== null) return '';
  let n: ReturnType<typeof named>;
  try {
    n = named(cluster, to, 'to', port, 'TCP');
  } catch (e) {
    if (e instanceof FlowError) return '';
    throw e;
  }
  const pods = n.kind === 'pods' ? n.pods : n.kind === 'one' ? [podOf(cluster, n.spec)].filter((p): p is PodInfo => p !== null) : [];
  const found = n.kind === 'service'
    ? n.service.spec.ports.filter((sp) => (n.via === 'nodePort' ? sp.nodePort : sp.port) === port).map((sp) => sp.protocol)
    : pods.flatMap((p) => p.namedPorts.filter((np) => np.port === port).map((np) => np.protocol));
  const others = PROTOCOLS.filter((p) => p !== 'TCP' && found.includes(p));
  if (others.length === 0) return '';
  const what = n.kind === 'service' || n.kind === 'pods' ? n.name : nameOf(cluster, to);
  return `no protocol asked, so TCP; ${what} also has ${others.map((p) => `${p} ${port}`).join(' and ')}: ask "on ${port}/${others[0]!.toLowerCase()}"`;
}

/** "TCP 5432", or "TCP 5432 (postgres)" for a named port. */
export const portText = (port: number, protocol: Protocol, name?: string): string => `${protocol} ${port}${name ? ` (${name})` : ''}`;

/**
 * How a sentence says the port asked: " on TCP 53", " on TCP 5432 (postgres)" (a named port by
 * what it resolved to on the destinations, `resolved`; " on postgres (TCP 5432 or TCP 5433)"
 * when they differ), " on UDP" (every UDP port), or "" (every port).
 */
export function portPhrase(port: number | string | null, protocol: Protocol | null, resolved: readonly { readonly port: number; readonly protocol: Protocol }[] = []): string {
  if (port === null) return protocol ? ` on ${protocol}` : '';
  if (typeof port === 'number') return ` on ${portText(port, protocolAsked(port, protocol)!)}`;
  const distinct = [...new Set(resolved.map((r) => portText(r.port, r.protocol)))];
  if (distinct.length === 0) return ` on ${port}`;
  if (distinct.length === 1) return ` on ${distinct[0]} (${port})`;
  const shown = distinct.slice(0, MAX_ITEMS_IN_TEXT);
  return ` on ${port} (${shown.join(' or ')}${distinct.length > shown.length ? ` or ${distinct.length - shown.length} more` : ''})`;
}

export function portOn(cluster: Cluster, to: EndpointSpec, port: number | string, protocol: Protocol | null): { port: number; protocol: Protocol; text: string } {
  if (typeof port === 'number') return { port, protocol: protocolAsked(port, protocol)!, text: portText(port, protocolAsked(port, protocol)!) };
  const np = namedPort(podOf(cluster, to), port, protocol);
  if (!np) throw new FlowError('port', `${nameOf(cluster, to)} has no ${protocol ? `${protocol} ` : ''}port named "${port}"`);
  return { ...np, text: portText(np.port, np.protocol, port) };
}


/**
 * Whole namespaces ("all 12 pods of namespace shop"), else labels that pick out exactly some
 * of these pods of a namespace ("pods app=web in shop (3)"; one pass, biggest first, never
 * overlapping), else pod keys. `exclude` (the pod asked about) counts as no namespace member.
 */
export function describePods(cluster: Cluster, pods: readonly PodInfo[], exclude: PodInfo | null): string[] {
  const other = exclude ? 'other ' : '';
  if (pods.length > 1 && pods.length === cluster.pods.length - (exclude ? 1 : 0)) return [`all ${pods.length} ${other}pods in the cluster`];
  const byNs = new Map<string, Set<PodInfo>>();
  for (const p of pods) (byNs.get(p.namespace) ?? byNs.set(p.namespace, new Set()).get(p.namespace)!).add(p);
  const out: string[] = [];
  for (const [ns, chosen] of [...byNs].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const all = (cluster.podsByNamespace.get(ns) ?? []).filter((p) => p !== exclude);
    if (chosen.size === all.length && all.length > 1) {
      out.push(`all ${all.length} ${exclude?.namespace === ns ? other : ''}pods of namespace ${ns}`);
      continue;
    }
    const total = new Map<string, number>();
    const picked = new Map<string, PodInfo[]>();
    for (const p of all) {
      for (const [k, v] of Object.entries(p.labels)) {
        if (NOT_WORKLOAD.has(k)) continue;
        const kv = `${k}=${v}`;
        total.set(kv, (total.get(kv) ?? 0) + 1);
        if (chosen.has(p)) (picked.get(kv) ?? picked.set(kv, []).get(kv)!).push(p);
      }
    }
    const rank = (kv: string) => {
      const i = WORKLOAD_KEYS.indexOf(kv.slice(0, kv.indexOf('=')));
      return i < 0 ? WORKLOAD_KEYS.length : i;
    };
    // A label names a group only if every pod of the namespace carrying it is in the set.
    const labels = [...picked].filter(([kv, ps]) => ps.length >= 2 && ps.length === total.get(kv)).sort((a, b) => b[1].length - a[1].length || rank(a[0]) - rank(b[0]) || (a[0] < b[0] ? -1 : 1));
    const covered = new Set<PodInfo>();
    for (const [kv, ps] of labels) {
      if (ps.some((p) => covered.has(p))) continue;
      out.push(`pods ${kv} in ${ns} (${ps.length})`);
      for (const p of ps) covered.add(p);
    }
    for (const p of chosen) if (!covered.has(p)) out.push(p.key);
  }
  return out;
}

/** `ports` e.g. "TCP 5432", "all ports"; `members` aggregated: "all 12 pods of namespace shop", "pods app=web in shop (3)", "shop/db". */
export interface ReachGroup {
  readonly ports: string;
  readonly pods: number;
  readonly members: readonly string[];
  readonly moreMembers: number;
}

/** Pods by the ports they reach on (or are reached on), the biggest set first, each described. `exclude`: the pod asked about. */
export function reachGroups(cluster: Cluster, reached: Iterable<readonly [PodInfo, string]>, exclude: PodInfo | null): ReachGroup[] {
  const byPorts = new Map<string, PodInfo[]>();
  for (const [pod, ports] of reached) (byPorts.get(ports) ?? byPorts.set(ports, []).get(ports)!).push(pod);
  return [...byPorts].sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1)).map(([ports, pods]): ReachGroup => {
    const members = describePods(cluster, pods, exclude);
    return { ports, pods: pods.length, members: members.slice(0, MAX_MEMBERS), moreMembers: Math.max(0, members.length - MAX_MEMBERS) };
  });
}

/** A group's members as a sentence lists them: "shop/a, shop/b and 3 more". */
export function groupItems(g: ReachGroup): string {
  const more = g.members.length + g.moreMembers - MAX_ITEMS_IN_TEXT;
  return `${g.members.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}
