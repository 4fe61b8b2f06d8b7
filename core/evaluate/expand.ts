// A flow between names (names.ts) as the flows between pods it stands for: a selector or a
// workload is each of its pods, a Service is each backing pod on its targetPort (service.ts).
// A flow between two single endpoints stays as it was asked (`grouped` false).
import type { Protocol } from '../policy/model.js';
import type { ClusterObjects, PodInfo } from '../snapshot/cluster.js';
import { named, type Named } from './names.js';
import { FlowError, NoVerdict, type EndpointSpec } from './resolve.js';
import { routes, selectedPods, selectorText, serviceName } from './service.js';

/** A flow to answer: `port` null is every port (of `protocol`, or of every protocol when null too). */
export interface MemberFlow {
  readonly from: EndpointSpec;
  readonly to: EndpointSpec;
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
}

export interface Expanded {
  /** False: one endpoint on each side, `flows` is the flow asked. */
  readonly grouped: boolean;
  readonly flows: readonly MemberFlow[];
  /** Each side's name when it stands for pods ("shop/svc/db"), else null. */
  readonly names: { readonly from: string | null; readonly to: string | null };
  /** How each such name was read: "shop/svc/db → 2 backing pods (selector app=db), port 5432 → targetPort 5432". */
  readonly resolved: readonly string[];
  /** Pods left out and why (a missing named targetPort, no address), and what a NodePort may rewrite. */
  readonly notes: readonly string[];
}

/** Pod pairs one question may stand for; past it the asker narrows the names. */
export const MAX_MEMBER_FLOWS = 2000;

const pods = (n: number) => `${n} pod${n === 1 ? '' : 's'}`;
const keys = (ps: readonly PodInfo[]) => `${ps.slice(0, 5).map((p) => p.key).join(', ')}${ps.length > 5 ? ` and ${ps.length - 5} more` : ''}`;

export function expandFlow(cluster: ClusterObjects, spec: MemberFlow): Expanded {
  const from = named(cluster, spec.from, 'from');
  const to = named(cluster, spec.to, 'to', spec.port, spec.protocol);
  if (from.kind === 'one' && to.kind === 'one') return { grouped: false, flows: [{ ...spec, from: from.spec, to: to.spec }], names: { from: null, to: null }, resolved: [], notes: [] };
  const resolved: string[] = [];
  const notes: string[] = [];
  // named() refuses a Service as a source.
  const sources = from.kind === 'one' ? [from.spec] : from.kind === 'pods' ? podSide(from, resolved) : [];
  let targets: { to: EndpointSpec; port: number | string | null; protocol: Protocol | null }[];
  if (to.kind === 'one') targets = [{ to: to.spec, port: spec.port, protocol: spec.protocol }];
  else if (to.kind === 'pods') targets = podSide(to, resolved).map((t) => ({ to: t, port: spec.port, protocol: spec.protocol }));
  else targets = serviceSide(cluster, to, spec, resolved, notes);
  if (sources.length * targets.length > MAX_MEMBER_FLOWS) {
    throw new FlowError(sources.length > targets.length ? 'from' : 'to', `the names stand for ${sources.length} × ${targets.length} pod pairs; at most ${MAX_MEMBER_FLOWS} are answered at once: narrow them (a label selector with more labels, one workload)`);
  }
  const flows = sources.flatMap((f) => targets.map((t): MemberFlow => ({ from: f, to: t.to, port: t.port, protocol: t.protocol })));
  const nameOf = (n: Named) => (n.kind === 'one' ? null : n.name);
  return { grouped: true, flows, names: { from: nameOf(from), to: nameOf(to) }, resolved, notes };
}

function podSide(n: Extract<Named, { kind: 'pods' }>, resolved: string[]): EndpointSpec[] {
  resolved.push(`${n.name} → ${pods(n.pods.length)} (${n.how})`);
  return n.pods.map((p) => ({ pod: p.key }));
}

function serviceSide(cluster: ClusterObjects, to: Extract<Named, { kind: 'service' }>, spec: MemberFlow, resolved: string[], notes: string[]) {
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
  const targets = rs.flatMap((r) => r.backends.map((b) => ({ to: { pod: b.pod.key } as EndpointSpec, port: b.port, protocol: r.protocol as Protocol | null })));
  if (targets.length === 0) throw new NoVerdict('port', `no backing pod of ${name} has the named targetPort: the Service has no endpoints for that port; no verdict`);
  resolved.push(`${name} → ${ready.length} backing pod${ready.length === 1 ? '' : 's'} (selector ${sel}), ${rs.map((r) => r.text).join('; ')}`);
  // "Cluster ingress and egress mechanisms often require rewriting the source or destination IP of packets" (NetworkPolicy docs).
  if (to.via === 'nodePort') notes.push(`through a NodePort the source may be rewritten to a node address (externalTrafficPolicy: Cluster); answered for the source as given`);
  return targets;
}
