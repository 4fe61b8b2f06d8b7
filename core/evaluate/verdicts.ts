// A flow's verdict as POST /v1/verdicts and `netpolc verdict` answer it: one verdict for a flow
// between two endpoints, or, for a name standing for several endpoints (a Service, a selector, a
// workload, a CIDR's regions: expand.ts), each member's verdict under one that is allowed only if
// all are.
import type { Cluster } from '../cluster.js';
import { formatIp } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import { describeEndpoint, type Endpoint, type Flow } from './endpoint.js';
import { evaluate, type Verdict } from './engine.js';
import { expandFlow, type MemberFlow } from './expand.js';
import { FlowError, resolveFlow, type FlowSpec } from './resolve.js';

export interface FlowVerdict extends Verdict {
  readonly flow: { readonly from: string; readonly to: string; readonly port: number; readonly protocol: Protocol; readonly ipFamily: 'IPv4' | 'IPv6' | null };
}

/** A member of a group: `regions` when an end answers for a region of a CIDR. */
export type MemberVerdict = FlowVerdict & { readonly regions?: MemberFlow['regions'] };

/** Several endpoints: `egress`/`ingress` are null (each member has its own), `allowed` only when every member is. */
export interface GroupVerdict {
  readonly allowed: boolean;
  readonly egress: null;
  readonly ingress: null;
  readonly flow: { readonly from: string; readonly to: string; readonly port: number | string; readonly protocol: Protocol; readonly ipFamily: null };
  /** "all 2 allowed", "none of 3 allowed", "1 of 2 allowed". */
  readonly summary: string;
  readonly resolved: readonly string[];
  readonly notes: readonly string[];
  readonly members: readonly MemberVerdict[];
}

function endpointName(e: Endpoint): string {
  if (e.kind === 'pod') return e.pod.key;
  if (e.kind === 'node' && e.hostPod) return e.hostPod.key;
  return e.ip ? formatIp(e.ip.family, e.ip.value) : describeEndpoint(e);
}

export function flowVerdict(cluster: Cluster, flow: Flow): FlowVerdict {
  return {
    ...evaluate(cluster, flow),
    flow: { from: endpointName(flow.from), to: endpointName(flow.to), port: flow.port, protocol: flow.protocol, ipFamily: flow.family === 4 ? 'IPv4' : flow.family === 6 ? 'IPv6' : null },
  };
}

/** Throws FlowError (NoVerdict included) for what the names or the snapshot cannot answer. */
export function verdictFor(cluster: Cluster, spec: FlowSpec): FlowVerdict | GroupVerdict {
  const x = expandFlow(cluster, { from: spec.from, to: spec.to, port: spec.port, protocol: spec.protocol });
  if (!x.grouped) return flowVerdict(cluster, resolveFlow(cluster, { ...spec, from: x.flows[0]!.from, to: x.flows[0]!.to }));
  const notes = [...x.notes];
  const members: MemberVerdict[] = [];
  let first: FlowError | null = null;
  for (const m of x.flows) {
    try {
      const v = flowVerdict(cluster, resolveFlow(cluster, { ...spec, from: m.from, to: m.to, port: m.port ?? spec.port, protocol: m.protocol ?? spec.protocol }));
      members.push(m.regions ? { ...v, regions: m.regions } : v);
    } catch (e) {
      // A member without the named port, or without the family asked: said, and left out.
      if (!(e instanceof FlowError)) throw e;
      first ??= e;
      notes.push(e.message);
    }
  }
  if (members.length === 0) throw first!;
  const allowed = members.filter((m) => m.allowed).length;
  const summary = allowed === members.length ? `all ${allowed} allowed` : allowed === 0 ? `none of ${members.length} allowed` : `${allowed} of ${members.length} allowed`;
  const asked = (s: FlowSpec['from']) => ('pod' in s ? s.pod : s.ip);
  return {
    allowed: allowed === members.length,
    egress: null,
    ingress: null,
    flow: { from: asked(spec.from), to: asked(spec.to), port: spec.port, protocol: spec.protocol, ipFamily: null },
    summary,
    resolved: x.resolved,
    notes,
    members,
  };
}
