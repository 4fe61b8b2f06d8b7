// The contract every dataplane renderer meets: render the IR per node, and a simulator that
// reads only the rendered output (never the IR) and answers what that dataplane would do with
// a flow. The property tests hold every simulator equal to the verdict engine.
import type { Ir, IrNode } from '../compile/ir.js';
import type { SetIr, SetNode } from '../sets/ir.js';

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

export interface FlowQuery {
  /** Canonical address text (formatIp). */
  readonly src: string;
  readonly dst: string;
  readonly protocol: Protocol;
  readonly port: number;
}

export interface DataplaneSimulator {
  /** Would a new connection src → dst:port/protocol be let through, end to end across nodes? */
  allowed(flow: FlowQuery): boolean;
}

/** One artifact per node, in node-name order (so output is deterministic byte for byte). */
export function renderEachNode<T>(ir: Ir, render: (name: string, node: IrNode) => T): Record<string, T> {
  return Object.fromEntries(Object.keys(ir.nodes).sort().map((n) => [n, render(n, ir.nodes[n]!)]));
}

export interface Dataplane<Rendered> {
  readonly format: string;
  readonly contentType: string;
  /** One artifact per node, keyed by node name, deterministic byte for byte. */
  render(ir: Ir): Record<string, Rendered>;
  /** A simulator built from the rendered artifacts alone. */
  simulator(rendered: Record<string, Rendered>): DataplaneSimulator;
}

/**
 * A dataplane with named sets of its own (nftables sets, ipset, Neutron address groups): it
 * renders the set form (core/sets/ir.ts) directly, each node's artifact holding only the sets
 * and tables that node's pods need.
 */
export interface SetDataplane<Rendered> {
  readonly format: string;
  readonly contentType: string;
  readonly input: 'sets';
  /** One artifact per node, keyed by node name, deterministic byte for byte. */
  render(ir: SetIr): Record<string, Rendered>;
  /** A simulator built from the rendered artifacts alone. */
  simulator(rendered: Record<string, Rendered>): DataplaneSimulator;
}

/** One artifact per node of the set form, in node-name order. */
export function renderEachSetNode<T>(ir: SetIr, render: (name: string, node: SetNode) => T): Record<string, T> {
  return Object.fromEntries(Object.keys(ir.nodes).sort().map((n) => [n, render(n, ir.nodes[n]!)]));
}
