// What a name in a flow stands for, as people write it: a pod (`shop/web`, `shop/pod/web`), a
// workload (`shop/deploy/web`: its pods), a Service (`shop/svc/db`: its backing pods, service.ts),
// a label selector (`shop/app=web,tier=front`: every pod it selects there), a bare `shop/db` that
// is exactly one of those, a node by its name, or an address (a pod's, a node's, a Service's
// ClusterIP or a node address on a NodePort, or one outside the cluster), or a CIDR (its
// regions, cidr.ts). A name that could be several things, or none, is an error that says which
// forms would do.
import type { Service } from '../../schemas/k8s/core.js';
import type { Cluster } from '../cluster.js';
import { isLabelValue, isQualifiedName } from '../../schemas/k8s/meta.js';
import { formatIp, parseIp } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import type { ClusterObjects, PodInfo } from '../snapshot/cluster.js';
import { workloadKindOf, workloadName } from '../snapshot/workload-names.js';
import { addressRegions, looksLikeCidr, parseCidrName, type AddressRegions } from './cidr.js';
import { FlowError, type EndpointSpec } from './resolve.js';
import { findService, selectorText, serviceAt, serviceName } from './service.js';

export type Named =
  /** One pod, node, address or workload standing for its pods: resolveFlow takes it as it is. */
  | { readonly kind: 'one'; readonly spec: EndpointSpec }
  /** `how`: "selector app=web", "Deployment web". */
  | { readonly kind: 'pods'; readonly name: string; readonly how: string; readonly pods: readonly PodInfo[] }
  | { readonly kind: 'service'; readonly name: string; readonly service: Service; readonly via: 'name' | 'clusterIP' | 'nodePort' }
  /** A CIDR of more than one address: its regions, each answered by one address of it. */
  | { readonly kind: 'addresses'; readonly name: string; readonly regions: AddressRegions };

type Field = 'from' | 'to';

const SERVICE_WORDS = new Set(['svc', 'service', 'services']);
// kubectl's names for pods: `kubectl get po/web`.
const POD_WORDS = new Set(['pod', 'pods', 'po']);

/** What `spec` names. `port`/`protocol`: of the flow, for a node address on a NodePort. */
export function named(cluster: Cluster, spec: EndpointSpec, field: Field, port: number | string | null = null, protocol: Protocol | null = null): Named {
  let n: Named;
  const text = 'ip' in spec ? spec.ip : spec.pod;
  if (looksLikeCidr(text)) {
    const range = parseCidrName(text, field);
    // A /32 (or /128) is its one address, answered as that address is.
    if (range.lo === range.hi) return named(cluster, { ip: formatIp(range.family, range.lo) }, field, port, protocol);
    const name = `${formatIp(range.family, range.lo)}/${text.slice(text.indexOf('/') + 1)}`;
    return { kind: 'addresses', name, regions: addressRegions(cluster, range, name, field) };
  }
  if ('ip' in spec) {
    const ip = parseIp(spec.ip);
    // A source address keeps its owner: a ClusterIP is never a source, a NodePort is a destination's.
    const at = ip ? serviceAt(cluster, ip, field === 'to' ? port : null, protocol) : null;
    n = at ? { kind: 'service', name: `${spec.ip} (${at.via === 'clusterIP' ? 'the ClusterIP' : `a node address, NodePort ${port}`} of ${serviceName(at.service)})`, service: at.service, via: at.via } : { kind: 'one', spec };
  } else {
    n = byText(cluster, spec.pod, field);
  }
  if (n.kind === 'service' && field === 'from') {
    const sel = selectorText(n.service);
    throw new FlowError('from', `${n.name} is a Service, and a Service sends nothing: its pods do${sel ? `; name them as ${n.service.metadata.namespace ?? 'default'}/${sel}` : ''}`);
  }
  return n;
}

function byText(cluster: ClusterObjects, text: string, field: Field): Named {
  const parts = text.split('/');
  if (parts.length === 1) return bare(cluster, text, field);
  const ns = parts[0]!;
  const rest = parts.slice(1).join('/');
  // Label keys may carry a prefix with a slash: `shop/app.kubernetes.io/name=web`.
  if (rest.includes('=')) return selector(cluster, ns, rest, field);
  if (!namespaceKnown(cluster, ns)) {
    // `deploy/web`: a workload of namespace default, as kubectl reads it without -n.
    if (parts.length === 2 && workloadKindOf(ns)) return byText(cluster, `default/${text}`, field);
    throw new FlowError(field, `no pod "${text}" in the snapshot: there is no namespace "${ns}"${didYouMean(ns, [...namespaceNames(cluster)].map((n) => [n, `${n}/${rest}`]))}`);
  }
  if (parts.length === 2) return oneOf(cluster, ns, rest, field, text);
  const [, kindWord, name] = parts as [string, string, string];
  if (parts.length === 3 && POD_WORDS.has(kindWord)) {
    if (cluster.podByKey.get(`${ns}/${name}`)) return { kind: 'one', spec: { pod: `${ns}/${name}` } };
    throw notFound(cluster, field, ns, name, text, 'pod');
  }
  if (parts.length === 3 && SERVICE_WORDS.has(kindWord)) {
    const service = findService(cluster, ns, name);
    if (service) return { kind: 'service', name: serviceName(service), service, via: 'name' };
    throw notFound(cluster, field, ns, name, text, 'service');
  }
  const kind = parts.length === 3 ? workloadKindOf(kindWord) : null;
  if (!kind) throw new FlowError(field, `"${text}" is not a name: write namespace/pod, namespace/kind/name (pod, svc, deployment, statefulset, daemonset, job, …), namespace/label=value, a node name or an address`);
  const workload = workloadOf(cluster, ns, workloadName(kind, name));
  if (!workload) throw notFound(cluster, field, ns, name, text, 'workload');
  return workload;
}

/** A workload's pods; one without pods in the input is its own endpoint (snapshot/cluster.ts). */
function workloadOf(cluster: ClusterObjects, ns: string, wname: string): Named | null {
  const pods = (cluster.podsByNamespace.get(ns) ?? []).filter((p) => p.workload === wname);
  if (pods.length === 0) return null;
  if (pods.length === 1 && pods[0]!.name === wname) return { kind: 'one', spec: { pod: pods[0]!.key } };
  const kind = workloadKindOf(wname.slice(0, wname.indexOf('/')))!;
  return { kind: 'pods', name: `${ns}/${wname}`, how: `${kind} ${wname.slice(wname.indexOf('/') + 1)}`, pods };
}

/** `shop/db`: the pod of that name; else the workload or Service of that name, when exactly one has it. */
function oneOf(cluster: ClusterObjects, ns: string, name: string, field: Field, text: string): Named {
  const found: { form: string; what: string; named: Named }[] = [];
  // namespace/name has always named a pod: a pod of exactly that name keeps it (flows written
  // for pods keep their answers when a Service or workload of the same name is added);
  // `ns/svc/name` and `ns/deployment/name` name the others.
  const pod = cluster.podByKey.get(`${ns}/${name}`);
  if (pod) return { kind: 'one', spec: { pod: pod.key } };
  const wnames = new Set((cluster.podsByNamespace.get(ns) ?? []).flatMap((p) => (p.workload && p.workload.slice(p.workload.indexOf('/') + 1) === name ? [p.workload] : [])));
  for (const w of [...wnames].sort()) {
    const kind = workloadKindOf(w.slice(0, w.indexOf('/')))!;
    found.push({ form: `${ns}/${w}`, what: `the ${kind} ${name}`, named: workloadOf(cluster, ns, w)! });
  }
  const service = findService(cluster, ns, name);
  if (service) found.push({ form: serviceName(service), what: `the Service ${name}`, named: { kind: 'service', name: serviceName(service), service, via: 'name' } });
  if (found.length === 1) return found[0]!.named;
  if (found.length === 0) throw notFound(cluster, field, ns, name, text, 'any');
  const list = (xs: string[]) => `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`;
  throw new FlowError(field, `"${text}" is ambiguous: it could be ${list(found.map((f) => f.what))}; name one as ${list(found.map((f) => f.form))}`);
}

/** A name without a slash: a node, or a pod of namespace default. */
function bare(cluster: ClusterObjects, text: string, field: Field): Named {
  const node = cluster.nodeByName.get(text);
  const pod = cluster.podByKey.get(`default/${text}`);
  if (node && pod) throw new FlowError(field, `"${text}" is ambiguous: it could be the node ${text} or the pod default/${text}; name the pod as default/${text}, the node by its address`);
  if (node || pod) return { kind: 'one', spec: { pod: text } };
  const candidates: [string, string][] = [...cluster.nodeByName.keys()].map((n) => [n, n]);
  for (const p of cluster.podsByNamespace.get('default') ?? []) candidates.push([p.name, p.key]);
  throw new FlowError(field, `no pod or node "${text}" in the snapshot (a pod is named namespace/name)${didYouMean(text, candidates)}`);
}

/** `app=web,tier=front` (or `==`): "equality-based requirements", all of them, in the namespace. */
function selector(cluster: ClusterObjects, ns: string, text: string, field: Field): Named {
  const pairs = text.split(',').map((r) => r.split(/==?/));
  if (!pairs.every((p) => p.length === 2 && isQualifiedName(p[0]!) && isLabelValue(p[1]!))) {
    throw new FlowError(field, `"${ns}/${text}" is not a label selector: write namespace/key=value[,key=value]`);
  }
  const all = cluster.podsByNamespace.get(ns) ?? [];
  const pods = all.filter((p) => pairs.every(([k, v]) => p.labels[k!] === v));
  const sel = pairs.map(([k, v]) => `${k}=${v}`).join(',');
  if (pods.length === 0) {
    const seen = new Set<string>();
    for (const p of all) for (const [k] of pairs) if (p.labels[k!] !== undefined) seen.add(`${k}=${p.labels[k!]}`);
    const one = pairs.length === 1 ? [...seen].map((kv): [string, string] => [kv, `${ns}/${kv}`]) : [];
    throw new FlowError(field, `no pod in namespace ${ns} has ${sel}${namespaceKnown(cluster, ns) ? '' : ` (no namespace "${ns}" in the snapshot)`}${didYouMean(sel, one)}`);
  }
  return { kind: 'pods', name: `${ns}/${sel}`, how: `selector ${sel}`, pods };
}

const namespaceNames = (cluster: ClusterObjects) => new Set([...cluster.nsByName.keys(), ...cluster.services.map((s) => s.metadata.namespace ?? 'default')]);
const namespaceKnown = (cluster: ClusterObjects, ns: string) => namespaceNames(cluster).has(ns);

function notFound(cluster: ClusterObjects, field: Field, ns: string, name: string, text: string, kind: 'pod' | 'service' | 'workload' | 'any'): FlowError {
  const candidates: [string, string][] = [];
  const pods = cluster.podsByNamespace.get(ns) ?? [];
  if (kind === 'pod' || kind === 'any') for (const p of pods) if (p.workload !== p.name) candidates.push([p.name, p.key]);
  if (kind === 'workload' || kind === 'any') {
    for (const w of new Set(pods.flatMap((p) => (p.workload ? [p.workload] : [])))) candidates.push([w.slice(w.indexOf('/') + 1), `${ns}/${w}`]);
  }
  if (kind === 'service' || kind === 'any') for (const s of cluster.services) if ((s.metadata.namespace ?? 'default') === ns) candidates.push([s.metadata.name, serviceName(s)]);
  const what = kind === 'service' ? `no Service "${ns}/${name}"` : kind === 'workload' ? `no workload "${text}"` : `no pod "${text}"`;
  const also = kind === 'any' ? ' (nor a workload or Service of that name; Succeeded and Failed pods are not endpoints)' : '';
  return new FlowError(field, `${what} in the snapshot${also}${didYouMean(name, candidates)}`);
}

/** "; did you mean shop/db or shop/svc/db?" for candidates within two edits of `typed` (name, form). */
export function didYouMean(typed: string, candidates: readonly (readonly [string, string])[]): string {
  const close = candidates
    .map(([name, form]) => ({ form, d: editDistance(typed, name) }))
    .filter((c) => c.d <= 2 && c.d > 0)
    .sort((a, b) => a.d - b.d || (a.form < b.form ? -1 : 1));
  const forms = [...new Set(close.map((c) => c.form))].slice(0, 3);
  return forms.length === 0 ? '' : `; did you mean ${forms.length === 1 ? forms[0] : `${forms.slice(0, -1).join(', ')} or ${forms[forms.length - 1]}`}?`;
}

/** Levenshtein distance, stopping early past 2 (only close misses are offered). */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    if (Math.min(...cur) > 2) return 3;
    prev = cur;
  }
  return prev[b.length]!;
}
