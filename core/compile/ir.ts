// The compiled form: per node, per pod an ingress and an egress table of ordered 6-tuple
// rules (Contiv's configurator output), tables content-addressed and shared.
export type IrAction = 'PERMIT' | 'DENY';
export type IrProtocol = 'ANY' | 'TCP' | 'UDP' | 'SCTP';
export type PortRange = readonly [number, number];

export interface IrRule {
  readonly action: IrAction;
  readonly protocol: IrProtocol;
  /** CIDR, or "" for any. Ingress tables: the sender. */
  readonly srcNetwork: string;
  readonly srcPortRange: PortRange | null;
  /** CIDR, or "" for any. Egress tables: the receiver. */
  readonly dstNetwork: string;
  /** Inclusive; null for every port. */
  readonly dstPortRange: PortRange | null;
}

export interface IrPod {
  readonly ips: readonly string[];
  /** Traffic arriving at the pod. */
  readonly ingress: string;
  /** Traffic leaving the pod. */
  readonly egress: string;
}

export interface IrNode {
  readonly pods: Readonly<Record<string, IrPod>>;
  readonly tables: Readonly<Record<string, readonly IrRule[]>>;
  /** Contiv's node-global table (ingress rules of local pods, as a single-direction dataplane needs). */
  readonly global: string | null;
}

export interface Ir {
  readonly nodes: Readonly<Record<string, IrNode>>;
}

/**
 * A rule of a pod's table: the peer network is the sender for ingress tables and the
 * receiver for egress tables; the other side is the pod itself ("").
 */
export function peerRule(dir: 'ingress' | 'egress', action: IrAction, protocol: IrProtocol, peerNetwork: string, dstPortRange: PortRange | null): IrRule {
  return {
    action,
    protocol,
    srcNetwork: dir === 'ingress' ? peerNetwork : '',
    srcPortRange: null,
    dstNetwork: dir === 'egress' ? peerNetwork : '',
    dstPortRange,
  };
}
