// What a name in a flow stands for, as people write it: a pod (`shop/web`, `shop/pod/web`), a
// workload (`shop/deploy/web`: its pods), a Service (`shop/svc/db`: its backing pods, service.ts),
// a label selector (`shop/app=web,tier=front`: every pod it selects there), a bare `shop/db` that
// is exactly one of those, a name without a namespace (`web`, `deploy/web`, `svc/db`: in
// namespace default when it has it, else in the one namespace that has it), a namespace's pods
// (`ns/shop`, or a bare `shop` that names nothing else), a Service by its DNS name (`db.shop`),
// a node by its name, or an address (a pod's, a node's, a Service's ClusterIP or a node address
// on a NodePort, or one outside the cluster), a CIDR (its regions, cidr.ts), or the internet
// (one public address per family, core/ask/internet.ts). A name that could be several things,
// or none, is an error that says which forms would do.
import { labelValue } from '../../schemas/k8s/label-selector.js';
import type { Service } from '../../schemas/k8s/core.js';
import type { Cluster } from '../cluster.js';
import { isLabelValue, isQualifiedName } from '../../schemas/k8s/meta.js';
import { formatIp, parseIp } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import type { ClusterObjects, PodInfo } from '../snapshot/cluster.js';
import { workloadKindOf, workloadName } from '../snapshot/workload-names.js';
import { addressRegions, looksLikeCidr, parseCidrName, type AddressRegions } from './cidr.js';
import { FlowError, type EndpointSpec } from './resolve.js';
import { everywhere, INTERNET, internetRegions, namespaceMembers, namespaceNames, NAMESPACE_WORDS, namespacesHolding, POD_WORDS, portNamesOf, sameEndpoints, SERVICE_WORDS, servicePortAsked, workloadPods } from './name-search.js';
import { findService, selectorText, serviceAt, serviceName } from './service.js';

export { INTERNET, NAMESPACE_WORDS } from './name-search.js';

export type Named =
  /** One pod, node, address or workload standing for its pods: resolveFlow takes it as it is. */
  | { readonly kind: 'one'; readonly spec: EndpointSpec }
  /** `how`: "selector app=web", "Deployment web". */
  | { readonly kind: 'pods'; readonly name: string; readonly how: string; readonly pods: readonly PodInfo[] }
  | { readonly kind: 'service'; readonly name: string; readonly service: Service; readonly via: 'name' | 'clusterIP' | 'nodePort' }
  /** A CIDR of more than one address: its regions, each answered by one address of it. */
  | { readonly kind: 'addresses'; readonly name: string; readonly regions: AddressRegions };

type Field = 'from' | 'to';

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
  if ('ip' in spec && spec.ip === INTERNET) return { kind: 'addresses', name: 'the internet', regions: internetRegions(cluster) };
  if ('ip' in spec) {
    const ip = parseIp(spec.ip);
    // A source address keeps its owner: a ClusterIP is never a source, a NodePort is a destination's.
    const at = ip ? serviceAt(cluster, ip, field === 'to' ? port : null, protocol) : null;
    n = at ? { kind: 'service', name: `${spec.ip} (${at.via === 'clusterIP' ? 'the ClusterIP' : `a node address, NodePort ${port}`} of ${serviceName(at.service)})`, service: at.service, via: at.via } : { kind: 'one', spec };
  } else {
    n = byText(cluster, spec.pod, field, port, protocol);
  }
  if (field === 'to' && typeof port === 'string') portNameCheck(cluster, n, port, protocol);
  if (n.kind === 'service' && field === 'from') {
    const sel = selectorText(n.service);
    throw new FlowError('from', `${n.name} is a Service, and a Service sends nothing: its pods do${sel ? `; name them as ${n.service.metadata.namespace ?? 'default'}/${sel}` : ''}`);
  }
  return n;
}

type Port = number | string | null;

function byText(cluster: ClusterObjects, text: string, field: Field, port: Port = null, protocol: Protocol | null = null): Named {
  const parts = text.split('/');
  if (parts.length === 1) return bare(cluster, text, field, port, protocol);
  const ns = parts[0]!;
  const rest = parts.slice(1).join('/');
  if (!namespaceKnown(cluster, ns)) {
    // `ns/shop`: every pod of namespace shop.
    if (parts.length === 2 && NAMESPACE_WORDS.has(ns)) return namespacePods(cluster, rest, field);
    // `deploy/web`, `svc/db`, `pod/web`: as kubectl reads them without -n (namespace default), else in the one namespace that has it.
    if (parts.length === 2 && (workloadKindOf(ns) || SERVICE_WORDS.has(ns) || POD_WORDS.has(ns))) return across(cluster, text, field, port, protocol) ?? byText(cluster, `default/${text}`, field, port, protocol);
    throw new FlowError(field, `no pod "${text}" in the snapshot: there is no namespace "${ns}"${suggest(cluster, ns, [...namespaceNames(cluster)].map((n) => [n, `${n}/${rest}`]))}`);
  }
  // Label keys may carry a prefix with a slash: `shop/app.kubernetes.io/name=web`.
  if (rest.includes('=')) return selector(cluster, ns, rest, field);
  if (parts.length === 2) return oneOf(cluster, ns, rest, field, text, port, protocol);
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
  const pods = workloadPods(cluster, ns, wname);
  if (pods.length === 0) return null;
  if (pods.length === 1 && pods[0]!.name === wname) return { kind: 'one', spec: { pod: pods[0]!.key } };
  const kind = workloadKindOf(wname.slice(0, wname.indexOf('/')))!;
  return { kind: 'pods', name: `${ns}/${wname}`, how: `${kind} ${wname.slice(wname.indexOf('/') + 1)}`, pods };
}

const list = (xs: readonly string[]) => (xs.length === 1 ? xs[0]! : `${xs.slice(0, -1).join(', ')} or ${xs[xs.length - 1]}`);

/**
 * `shop/db`: the pod of that name; else the workload or Service of that name, when exactly one
 * has it. A workload and a Service of the name that pick the same pods are one set of endpoints,
 * read as the Service when the question is about one of its ports (kube-proxy sends it on to the
 * targetPort), else as the workload (its pods, on the port asked).
 */
function oneOf(cluster: ClusterObjects, ns: string, name: string, field: Field, text: string, port: Port, protocol: Protocol | null): Named {
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
  if (service && found.length === 1 && sameEndpoints(cluster, workloadPods(cluster, ns, [...wnames][0]!), service)) {
    return field === 'to' && servicePortAsked(service, port, protocol) ? { kind: 'service', name: serviceName(service), service, via: 'name' } : found[0]!.named;
  }
  if (service) found.push({ form: serviceName(service), what: `the Service ${name}`, named: { kind: 'service', name: serviceName(service), service, via: 'name' } });
  if (found.length === 1) return found[0]!.named;
  if (found.length === 0) throw notFound(cluster, field, ns, name, text, 'any');
  throw new FlowError(field, `"${text}" is ambiguous: it could be ${list(found.map((f) => f.what))}; name one as ${list(found.map((f) => f.form))}`);
}

/**
 * A name without a namespace in the one namespace that holds it (namespace default first, as
 * kubectl reads a name without -n); null when none does. Several: the names to write, each one
 * that resolves.
 */
function across(cluster: ClusterObjects, text: string, field: Field, port: Port, protocol: Protocol | null): Named | null {
  const hits = namespacesHolding(cluster, text);
  if (hits.length === 1) return byText(cluster, `${hits[0]}/${text}`, field, port, protocol);
  if (hits.length === 0) return null;
  const forms = hits.flatMap((ns) => resolving(cluster, `${ns}/${text}`, field, port, protocol));
  throw new FlowError(field, `"${text}" is in ${hits.length} namespaces (${hits.join(', ')}): name one as ${list(forms)} (or add -n namespace)`);
}

/** `form` when it resolves; else, when it is ambiguous, the forms its error offers. */
function resolving(cluster: ClusterObjects, form: string, field: Field, port: Port, protocol: Protocol | null): string[] {
  try {
    byText(cluster, form, field, port, protocol);
    return [form];
  } catch (e) {
    const offered = e instanceof FlowError ? /; name one as (.*)$/.exec(e.message)?.[1] : undefined;
    return offered ? offered.split(/, | or /) : [];
  }
}

/** A name without a slash: a node, a pod of namespace default, a Service by its DNS name, the one namespace that holds it, or a namespace's pods. */
function bare(cluster: ClusterObjects, text: string, field: Field, port: Port, protocol: Protocol | null): Named {
  const node = cluster.nodeByName.get(text);
  const pod = cluster.podByKey.get(`default/${text}`);
  if (node && pod) throw new FlowError(field, `"${text}" is ambiguous: it could be the node ${text} or the pod default/${text}; name the pod as default/${text}, the node by its address`);
  if (node || pod) return { kind: 'one', spec: { pod: text } };
  // `app=web`: the selector in every namespace.
  if (text.includes('=')) return selector(cluster, null, text, field);
  // `db.shop`: the Service db of namespace shop (its DNS name, `db.shop.svc.cluster.local`, short).
  const [svc, ns, ...more] = text.split('.');
  if (ns !== undefined && more.length === 0 && findService(cluster, ns, svc!)) return byText(cluster, `${ns}/svc/${svc}`, field, port, protocol);
  const found = across(cluster, text, field, port, protocol);
  if (found) return found;
  if (cluster.nsByName.has(text)) return namespacePods(cluster, text, field);
  const near = suggest(cluster, text, everywhere(cluster), field);
  // `api.example.com`: a name outside the cluster (its second label no namespace, so no Service's
  // short DNS name). Policies match its address, never its name: "ipBlock describes a particular
  // CIDR", and a domainNames peer matches no flow here (a snapshot holds no DNS answers).
  if (near === '' && ns !== undefined && !cluster.nsByName.has(ns) && /[a-z]/.test(text.slice(text.lastIndexOf('.') + 1))) {
    throw new FlowError(field, `"${text}" is not in the snapshot; as a DNS name outside the cluster it cannot be answered by name: policies match the address it resolves to (ipBlock, networks), and a snapshot holds no DNS answers, so ask about that address (an IP or a CIDR)`);
  }
  throw new FlowError(field, `no pod or node "${text}" in the snapshot (nor a workload, Service or namespace of that name)${near}`);
}

/** `ns/shop`: every pod of the namespace (host-network pods are their node's, not the namespace's). */
function namespacePods(cluster: ClusterObjects, ns: string, field: Field): Named {
  if (!namespaceKnown(cluster, ns)) throw new FlowError(field, `no namespace "${ns}" in the snapshot${suggest(cluster, ns, [...namespaceNames(cluster)].map((n) => [n, `ns/${n}`]))}`);
  const pods = namespaceMembers(cluster, ns);
  if (pods.length === 0) throw new FlowError(field, `namespace ${ns} has no pods in the snapshot (host-network pods are their node's)`);
  return { kind: 'pods', name: `ns/${ns}`, how: `every pod of namespace ${ns}`, pods };
}

/** A named port that no pod of the destination has, close to one they have: the question's typo. */
function portNameCheck(cluster: Cluster, n: Named, port: string, protocol: Protocol | null): void {
  const pods = n.kind === 'pods' ? n.pods : n.kind === 'one' && 'pod' in n.spec ? [cluster.podByKey.get(n.spec.pod.includes('/') ? n.spec.pod : `default/${n.spec.pod}`)].filter((p) => p !== undefined) : [];
  const names = n.kind === 'service' ? n.service.spec.ports.flatMap((p) => (p.name ? [p.name] : [])) : portNamesOf(pods, protocol);
  if (names.length === 0 || names.includes(port)) return;
  const hint = didYouMean(port, names.map((x) => [x, x]));
  if (hint !== '') throw new FlowError('port', `${n.kind === 'one' ? ('pod' in n.spec ? n.spec.pod : n.spec.ip) : n.name} has no ${protocol ? `${protocol} ` : ''}port named "${port}"${hint}`);
}

/** `app=web,tier=front` (or `==`): "equality-based requirements", all of them, in the namespace. */
function selector(cluster: ClusterObjects, ns: string | null, text: string, field: Field): Named {
  const pairs = text.split(',').map((r) => r.split(/==?/));
  if (!pairs.every((p) => p.length === 2 && isQualifiedName(p[0]!) && isLabelValue(p[1]!))) {
    throw new FlowError(field, `"${ns === null ? '' : `${ns}/`}${text}" is not a label selector: write namespace/key=value[,key=value]`);
  }
  const all = ns === null ? cluster.pods : cluster.podsByNamespace.get(ns) ?? [];
  const where = ns === null ? 'in any namespace' : `in namespace ${ns}`;
  const prefix = ns === null ? '' : `${ns}/`;
  const pods = all.filter((p) => pairs.every(([k, v]) => labelValue(p.labels, k!) === v));
  const sel = pairs.map(([k, v]) => `${k}=${v}`).join(',');
  if (pods.length === 0) {
    const seen = new Set<string>();
    for (const p of all) for (const [k] of pairs) if (labelValue(p.labels, k!) !== undefined) seen.add(`${k}=${p.labels[k!]}`);
    const one = pairs.length === 1 ? [...seen].map((kv): [string, string] => [kv, `${prefix}${kv}`]) : [];
    throw new FlowError(field, `no pod ${where} has ${sel}${ns === null || namespaceKnown(cluster, ns) ? '' : ` (no namespace "${ns}" in the snapshot)`}${didYouMean(sel, one)}`);
  }
  return { kind: 'pods', name: `${prefix}${sel}`, how: `selector ${sel}${ns === null ? ' in every namespace' : ''}`, pods };
}

const namespaceKnown = (cluster: ClusterObjects, ns: string) => namespaceNames(cluster).has(ns);

function notFound(cluster: ClusterObjects, field: Field, ns: string, name: string, text: string, kind: 'pod' | 'service' | 'workload' | 'any'): FlowError {
  const candidates: [string, string][] = [];
  // Of the kind asked, close misses; of another kind, the very name (`shop/deploy/db` for the StatefulSet db).
  const of = (k: 'pod' | 'service' | 'workload', name_: string, form: string) => {
    if (kind === 'any' || kind === k || name_ === name) candidates.push([name_, form]);
  };
  const pods = cluster.podsByNamespace.get(ns) ?? [];
  for (const p of pods) if (p.workload !== p.name) of('pod', p.name, p.key);
  for (const w of new Set(pods.flatMap((p) => (p.workload ? [p.workload] : [])))) of('workload', w.slice(w.indexOf('/') + 1), `${ns}/${w}`);
  for (const s of cluster.services) if ((s.metadata.namespace ?? 'default') === ns) of('service', s.metadata.name, serviceName(s));
  const what = kind === 'service' ? `no Service "${ns}/${name}"` : kind === 'workload' ? `no workload "${text}"` : `no pod "${text}"`;
  const also = kind === 'any' ? ' (nor a workload or Service of that name; Succeeded and Failed pods are not endpoints)' : '';
  return new FlowError(field, `${what} in the snapshot${also}${suggest(cluster, name, candidates, field)}`);
}

/** didYouMean over forms that name one thing: an ambiguous candidate is offered as the forms its own error names. */
function suggest(cluster: ClusterObjects, typed: string, candidates: readonly (readonly [string, string])[], field: Field = 'to'): string {
  const close = candidates.filter(([name]) => editDistance(typed, name) <= 2);
  return didYouMean(typed, close.flatMap(([name, form]) => resolving(cluster, form, field, null, null).map((f): [string, string] => [name, f])));
}

/** "; did you mean shop/db or shop/svc/db?" for candidates within two edits of `typed` (name, form); the same name of another kind first. */
export function didYouMean(typed: string, candidates: readonly (readonly [string, string])[]): string {
  const close = candidates
    .map(([name, form]) => ({ form, d: editDistance(typed, name) }))
    .filter((c) => c.d <= 2)
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
