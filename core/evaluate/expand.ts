// A flow between names (names.ts) as the flows between the endpoints it stands for: a selector
// or a workload is each of its pods, a Service is each backing pod on its targetPort (service.ts),
// a CIDR is each of its regions, answered by one address of each as that address is answered
// alone (cidr.ts). A flow between two single endpoints stays as it was asked (`grouped` false).
import type { Cluster } from '../cluster.js';
import type { Protocol } from '../policy/model.js';
import type { ClusterObjects, PodInfo } from '../snapshot/cluster.js';
import { regionsText, type AddressRegion } from './cidr.js';
import { named, type Named } from './names.js';
import { FlowError, NoVerdict, type EndpointSpec } from './resolve.js';
import { routes, selectedPods, selectorText, serviceName } from './service.js';

/** A flow to answer: `port` null is every port (of `protocol`, or of every protocol when null too). */
export interface MemberFlow {
  readonly from: EndpointSpec;
  readonly to: EndpointSpec;
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
  /** The regions of a CIDR the ends answer for. */
  readonly regions?: { readonly from?: AddressRegion; readonly to?: AddressRegion };
}

/** One endpoint a name stands for: the port it receives a flow on (a Service's targetPort) and the region of a CIDR it answers for. */
export interface End {
  readonly spec: EndpointSpec;
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
  readonly region?: AddressRegion;
  /** The Service port the end receives the flow for ("53/UDP"): one backing pod is an end per Service port. */
  readonly servicePort?: string;
}

/** What a name's members are: pods (of a selector, a workload, a Service), regions of a CIDR, or both (a CIDR holding a ClusterIP). */
export type Unit = 'pod' | 'region' | 'endpoint';

/** One side of a flow as its name stands for it. */
export interface Side {
  /** False: one endpoint, `ends` holds it. */
  readonly grouped: boolean;
  readonly ends: readonly End[];
  /** The name when it stands for several ("shop/svc/db"), else null. */
  readonly name: string | null;
  readonly unit: Unit | null;
  readonly resolved: readonly string[];
  readonly notes: readonly string[];
}

export interface Expanded {
  /** False: one endpoint on each side, `flows` is the flow asked. */
  readonly grouped: boolean;
  readonly flows: readonly MemberFlow[];
  /** Each side's name when it stands for several endpoints ("shop/svc/db"), else null. */
  readonly names: { readonly from: string | null; readonly to: string | null };
  readonly units: { readonly from: Unit | null; readonly to: Unit | null };
  /** How each such name was read: "shop/svc/db → 2 backing pods (selector app=db), port 5432 → targetPort 5432". */
  readonly resolved: readonly string[];
  /** Pods and regions left out and why (a missing named targetPort, no address), and what a NodePort may rewrite. */
  readonly notes: readonly string[];
}

/** Pod pairs one question may stand for; past it the asker narrows the names. */
export const MAX_MEMBER_FLOWS = 2000;

const pods = (n: number) => `${n} pod${n === 1 ? '' : 's'}`;
const keys = (ps: readonly PodInfo[]) => `${ps.slice(0, 5).map((p) => p.key).join(', ')}${ps.length > 5 ? ` and ${ps.length - 5} more` : ''}`;

/** How answers list one end (`key`: its pod key or address): by its region when it answers for one ("10.0.1.0/25"; a ClusterIP's region → its backing pod). */
export function endLabel(key: string, region?: AddressRegion): string {
  if (!region) return key;
  return region.via ? `${region.name} → ${key}` : region.name;
}

/** `spec` as the endpoints it stands for; `port`/`protocol`: of the flow, for a destination. */
export function expandName(cluster: Cluster, spec: EndpointSpec, field: 'from' | 'to', port: number | string | null, protocol: Protocol | null): Side {
  const n = named(cluster, spec, field, port, protocol);
  if (n.kind === 'one') return { grouped: false, ends: [{ spec: n.spec, port, protocol }], name: null, unit: null, resolved: [], notes: [] };
  const resolved: string[] = [];
  const notes: string[] = [];
  let ends: End[];
  let unit: Unit = 'pod';
  if (n.kind === 'pods') ends = podSide(n, resolved).map((p) => ({ spec: p, port, protocol }));
  // named() refuses a Service as a source.
  else if (n.kind === 'service') ends = serviceSide(cluster, n, { port, protocol }, resolved, notes);
  else {
    ends = regionSide(cluster, n, field, port, protocol, resolved, notes);
    unit = ends.every((e) => 'ip' in e.spec) ? 'region' : 'endpoint';
  }
  // Regions that lead to one Service (its NodePort on two node addresses) read it once.
  return { grouped: true, ends, name: n.name, unit, resolved: [...new Set(resolved)], notes: [...new Set(notes)] };
}

export function expandFlow(cluster: Cluster, spec: MemberFlow): Expanded {
  const from = expandName(cluster, spec.from, 'from', null, null);
  const to = expandName(cluster, spec.to, 'to', spec.port, spec.protocol);
  if (!from.grouped && !to.grouped) return { grouped: false, flows: [{ ...spec, from: from.ends[0]!.spec, to: to.ends[0]!.spec }], names: { from: null, to: null }, units: { from: null, to: null }, resolved: [], notes: [] };
  const [sources, targets] = [from.ends, to.ends];
  if (sources.length * targets.length > MAX_MEMBER_FLOWS) {
    throw new FlowError(sources.length > targets.length ? 'from' : 'to', `the names stand for ${sources.length} × ${targets.length} pairs of endpoints; at most ${MAX_MEMBER_FLOWS} are answered at once: narrow them (a label selector with more labels, one workload, a smaller CIDR)`);
  }
  const flows = sources.flatMap((f) =>
    targets.map((t): MemberFlow => {
      const regions = { ...(f.region ? { from: f.region } : {}), ...(t.region ? { to: t.region } : {}) };
      return { from: f.spec, to: t.spec, port: t.port, protocol: t.protocol, ...(f.region || t.region ? { regions } : {}) };
    }),
  );
  return {
    grouped: true,
    flows,
    names: { from: from.name, to: to.name },
    units: { from: from.unit, to: to.unit },
    resolved: [...from.resolved, ...to.resolved],
    notes: [...from.notes, ...to.notes],
  };
}

function podSide(n: Extract<Named, { kind: 'pods' }>, resolved: string[]): EndpointSpec[] {
  resolved.push(`${n.name} → ${pods(n.pods.length)} (${n.how})`);
  return n.pods.map((p) => ({ pod: p.key }));
}

/**
 * Each region by its address, read as that address alone is (names.ts): a pod, a node, an
 * address outside the cluster, or a ClusterIP (or a node address on a NodePort) as its
 * Service's backing pods. A region that address cannot answer for (a ClusterIP as a source, a
 * Service without endpoints) is said and left out.
 */
function regionSide(cluster: Cluster, n: Extract<Named, { kind: 'addresses' }>, field: 'from' | 'to', port: number | string | null, protocol: Protocol | null, resolved: string[], notes: string[]): End[] {
  resolved.push(regionsText(n.name, n.regions));
  const ends: End[] = [];
  let first: FlowError | null = null;
  // "a Service sends nothing" (names.ts): its ClusterIPs as sources are said once, not each.
  const clusterIps = field === 'from' ? n.regions.regions.filter((r) => r.heldBy === 'clusterIP') : [];
  if (clusterIps.length > 0) {
    const listed = clusterIps.slice(0, 3).map((r) => r.name).join(', ');
    notes.push(`${clusterIps.length} ClusterIP${clusterIps.length === 1 ? '' : 's'} in ${n.name} left out (${listed}${clusterIps.length > 3 ? ', …' : ''}): a Service sends nothing, its pods do`);
  }
  for (const region of n.regions.regions) {
    if (field === 'from' && region.heldBy === 'clusterIP') continue;
    try {
      const at = named(cluster, { ip: region.address }, field, port, protocol);
      if (at.kind === 'one') ends.push({ spec: at.spec, port, protocol, region });
      else if (at.kind === 'service') {
        const via = { ...region, via: serviceName(at.service) };
        ends.push(...serviceSide(cluster, at, { port, protocol }, resolved, notes).map((t) => ({ ...t, region: via })));
      }
    } catch (e) {
      if (!(e instanceof FlowError)) throw e;
      first ??= e;
      notes.push(e.message);
    }
  }
  if (ends.length === 0) throw first ?? new FlowError(field, `${n.name} holds only ClusterIPs, and a Service sends nothing: its pods do; name them (namespace/label=value)`);
  return ends;
}

function serviceSide(cluster: ClusterObjects, to: Extract<Named, { kind: 'service' }>, spec: { readonly port: number | string | null; readonly protocol: Protocol | null }, resolved: string[], notes: string[]): End[] {
  const s = to.service;
  const rs = routes(cluster, s, spec.port, spec.protocol, to.via);
  const { ready, notReady } = selectedPods(cluster, s);
  const sel = selectorText(s);
  const name = serviceName(s);
  if (notReady.length > 0) notes.push(`${pods(notReady.length)} selected by ${name} ${notReady.length === 1 ? 'has' : 'have'} no address (not ready) and ${notReady.length === 1 ? 'is not an endpoint' : 'are not endpoints'}: ${keys(notReady)}`);
  // kube-proxy's rule for a Service without endpoints, `/* ns/svc:port has no endpoints */ -j REJECT`:
  // the connection is refused before any pod, so no policy decides it.
  if (ready.length === 0) throw new NoVerdict('to', `${name} has no ready backend pods (selector ${sel} ${notReady.length > 0 ? `picks only pods without an address` : `matches no pod in namespace ${s.metadata.namespace ?? 'default'}`}): kube-proxy refuses connections to it before any pod; no verdict`);
  for (const r of rs) {
    if (r.lacking.length === 0) continue;
    const tp = r.servicePort?.targetPort;
    notes.push(`${keys(r.lacking)} ${r.lacking.length === 1 ? 'has' : 'have'} no ${r.protocol} port named ${tp}, so ${r.lacking.length === 1 ? 'it is not a backend' : 'they are not backends'} for port ${r.servicePort?.port}`);
  }
  const targets = rs.flatMap((r) => r.backends.map((b): End => ({ spec: { pod: b.pod.key, viaService: true }, port: b.port, protocol: r.protocol, ...(r.servicePort ? { servicePort: `${r.servicePort.port}/${r.protocol}` } : {}) })));
  if (targets.length === 0) throw new NoVerdict('port', `no backing pod of ${name} has the named targetPort: the Service has no endpoints for that port; no verdict`);
  resolved.push(`${name} → ${ready.length} backing pod${ready.length === 1 ? '' : 's'} (selector ${sel}), ${rs.map((r) => r.text).join('; ')}`);
  // "Cluster ingress and egress mechanisms often require rewriting the source or destination IP of packets" (NetworkPolicy docs).
  if (to.via === 'nodePort') notes.push(`through a NodePort the source may be rewritten to a node address (externalTrafficPolicy: Cluster); answered for the source as given`);
  return targets;
}
