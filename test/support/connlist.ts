// netpol-analyzer's `connlist` lines ("ns/name[Kind] => ns/name[Kind] : TCP 80,UDP 53") read,
// and netpolc's answers written the same way, so the two can be compared pair by pair
// (test/peer/netpol-analyzer.test.ts).
import type { Cluster } from '../../core/cluster.js';
import { answer } from '../../core/ask/answer.js';
import type { EndpointSpec } from '../../core/evaluate/resolve.js';
import type { ParsedSnapshot } from '../../schemas/snapshot.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import type { PortRanges } from '../../core/ask/reach.js';

export interface ConnLine {
  readonly from: string;
  readonly to: string;
  readonly conn: string;
}

/** The `A => B : conn` lines of a connlist output (its other lines, headers of network sections, are not pairs). */
export function readConnlist(text: string): ConnLine[] {
  const out: ConnLine[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\S+) => (\S+) : (.*)$/.exec(line.trim());
    if (m) out.push({ from: m[1]!, to: m[2]!, conn: m[3]! });
  }
  return out;
}

const KINDS: Record<string, string> = { deployment: 'Deployment', statefulset: 'StatefulSet', daemonset: 'DaemonSet', replicaset: 'ReplicaSet', replicationcontroller: 'ReplicationController', job: 'Job', cronjob: 'CronJob', rollout: 'Rollout' };

/**
 * How netpol-analyzer names an endpoint: a pod by its controller as its ownerReference names it
 * (`ns/name[ReplicaSet]`), a pod without one (or a static pod, owned by its Node) by itself
 * (`ns/name[Pod]`), a workload without pods by itself (`ns/name[Deployment]`).
 */
export function analyzerNames(snapshot: ParsedSnapshot): { name: (pod: PodInfo) => string; finished: ReadonlySet<string> } {
  const owners = new Map<string, string>();
  // Pods that ran to completion: netpol-analyzer lists them, netpolc does not ("Succeeded and
  // Failed pods are not endpoints", docs/semantics.md).
  const finished = new Set<string>();
  for (const o of snapshot.objects) {
    if (o.kind !== 'Pod') continue;
    const refs = o.metadata.ownerReferences;
    const ref = refs.find((r) => r.controller) ?? refs[0];
    const name = ref && ref.kind !== 'Node' ? `${o.metadata.namespace}/${ref.name}[${ref.kind}]` : `${o.metadata.namespace}/${o.metadata.name}[Pod]`;
    owners.set(`${o.metadata.namespace}/${o.metadata.name}`, name);
    if (o.status.phase === 'Succeeded' || o.status.phase === 'Failed') finished.add(name);
  }
  return { finished, name: (pod) => {
    const owner = owners.get(pod.key);
    if (owner) return owner;
    if (!pod.workload) return `${pod.namespace}/${pod.name}[Pod]`;
    const [kind, name] = pod.workload.split('/');
    return `${pod.namespace}/${name}[${KINDS[kind!] ?? kind}]`;
  } };
}

/** Port ranges as connlist writes them: protocols in name order, `All Connections`, `No Connections`. */
export function connText(ranges: PortRanges): string {
  const protocols = ['SCTP', 'TCP', 'UDP'] as const;
  const every = (p: (typeof protocols)[number]) => ranges[p]?.length === 1 && ranges[p]![0]![0] === 1 && ranges[p]![0]![1] === 65535;
  if (protocols.every(every)) return 'All Connections';
  const parts = protocols.filter((p) => (ranges[p] ?? []).length > 0).map((p) => `${p} ${ranges[p]!.map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`)).join(',')}`);
  return parts.length === 0 ? 'No Connections' : parts.join(',');
}

/** What netpolc allows from one endpoint to another, on every port, in connlist's words. */
export function allowed(cluster: Cluster, from: EndpointSpec, to: EndpointSpec): string {
  const a = answer(cluster, { kind: 'can', from, to, port: null, protocol: null });
  if (a.kind !== 'can-ports') throw new Error(`${JSON.stringify(from)} → ${JSON.stringify(to)}: ${a.kind} ${'text' in a ? a.text : ''}`);
  return connText(a.ranges);
}
