// What a flow's source or destination is: a pod, a node (also a host-network pod, whose
// address is its node's) or an address outside the cluster.
import type { Family, IpAddr } from '../net/ip.js';
import type { NodeInfo, PodInfo } from '../snapshot/cluster.js';

export type Endpoint =
  /** `viaService`: reached as a Service's backend (a destination), through the service proxy. */
  | { readonly kind: 'pod'; readonly pod: PodInfo; readonly ip: IpAddr | null; readonly viaService?: true }
  /** A node address; `hostPod` is set when the flow named a host-network pod. */
  | { readonly kind: 'node'; readonly node: NodeInfo | null; readonly ip: IpAddr | null; readonly hostPod?: PodInfo }
  | { readonly kind: 'external'; readonly ip: IpAddr };

export interface Flow {
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly family: Family | null;
}

/** "host-network pods are never subjects nor pod/namespace peers": only real pod endpoints are. */
export function subjectPod(e: Endpoint): PodInfo | null {
  return e.kind === 'pod' && !e.pod.hostNetwork ? e.pod : null;
}

export function describeEndpoint(e: Endpoint): string {
  if (e.kind === 'pod') return `pod ${e.pod.key}`;
  if (e.kind === 'node') return e.hostPod ? `host-network pod ${e.hostPod.key} (node ${e.node?.name ?? '?'})` : `node ${e.node?.name ?? '?'}`;
  return 'external address';
}
