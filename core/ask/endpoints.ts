// The endpoints of a question as people name them, read into the names core/evaluate/names.ts
// resolves: `ns/pod`, `ns/kind/name`, `ns/key=value`, a node, an address or a CIDR as before;
// and now names without a namespace (`frontend`, `deploy/frontend`, `svc/backend`) with the
// namespace given apart (`-n prod`, `--namespace prod`, `in prod`, `in namespace prod`), DNS
// names (`backend.prod.svc.cluster.local` a Service, `db-0.postgres.prod.svc` a StatefulSet's
// pod, `10-244-1-10.prod.pod` a pod address), a port attached (`backend:8080`, `[fd00::1]:53`),
// a namespace's pods (`pods in staging`, `namespace staging`, `ns/staging`) and the internet.
import { looksLikeCidr } from '../evaluate/cidr.js';
import { INTERNET, NAMESPACE_WORDS } from '../evaluate/names.js';
import type { EndpointSpec } from '../evaluate/resolve.js';
import { familyOfText } from '../net/ip.js';
import { workloadKindOf } from '../snapshot/workload-names.js';
import { quote, Unreadable, type Tokens } from './tokens.js';
import { GRAMMAR_WORDS } from './words.js';

// Kubernetes name rules: namespaces are DNS-1123 labels, pod names DNS-1123 subdomains.
export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SELECTOR = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?==?[A-Za-z0-9_.-]*$/;
// Kinds a name may carry (core/evaluate/names.ts reads them): kubectl's, for pods and Services too.
const NAME_KINDS = new Set(['pod', 'pods', 'po', 'svc', 'service', 'services']);

/** An endpoint read, with the port written onto it (`backend:8080/tcp`), if any. */
export interface Read {
  readonly spec: EndpointSpec;
  readonly port: string | null;
  /** Named as "dns", "the cluster DNS": the question means DNS traffic (forms.ts). */
  readonly dns?: true;
}

/** The namespaces a question gives apart from its names: `-n prod`, `in prod`. */
export interface Scope {
  readonly namespaces: Set<string>;
}

/** "the internet", "the outside world", "anywhere outside (the cluster)", "the public internet". */
function internet(t: Tokens): boolean {
  if (!(t.acceptAny([['public', 'internet'], ['internet'], ['outside', 'world'], ['anywhere', 'outside'], ['anything', 'outside'], ['something', 'outside'], ['outside']]))) return false;
  t.accept(['of', 'cluster']) || t.accept(['cluster']);
  return true;
}

/**
 * The cluster's DNS: the Service kube-system/kube-dns, the name kubeadm, kind, k3s, GKE, EKS and
 * AKS give it (CoreDNS included, for compatibility); a cluster naming it otherwise is asked about
 * by that name.
 */
export const CLUSTER_DNS = 'kube-system/svc/kube-dns';

/** "dns", "the cluster dns", "the dns server": the cluster's DNS Service. */
function clusterDns(t: Tokens): boolean {
  return t.acceptAny([['cluster', 'dns'], ['dns', 'servers'], ['dns', 'server'], ['dns', 'service'], ['dns']]);
}

const SOME = [['anything'], ['everything'], ['something'], ['all'], ['any'], ['every']];

/** A namespace's pods: "pods in staging", "anything in staging", "namespace staging", "the staging namespace". */
function namespacePods(t: Tokens): string | null {
  const label = (k: number) => (DNS_LABEL.test(t.peek(k) ?? '') ? t.peek(k)! : null);
  if (SOME.some((s) => t.sees([...s, 'in'])) || t.peek() === 'in') {
    if (t.peek() !== 'in') t.next();
    t.next();
    return namespaceAfterIn(t);
  }
  if (NAMESPACE_WORDS.has(t.peek() ?? '') && label(1)) {
    t.next();
    return t.next()!;
  }
  if (label(0) && NAMESPACE_WORDS.has(t.peek(1) ?? '') && !GRAMMAR_WORDS.has(t.peek()!)) {
    const ns = t.next()!;
    t.next();
    return ns;
  }
  return null;
}

/**
 * The namespace after "in": `prod`, `namespace prod`, `ns prod`, or `prod namespace` ("in the
 * prod namespace": "the" is a filler, tokens.ts).
 */
export function namespaceAfterIn(t: Tokens): string {
  const named = t.accept(['namespace']) || t.accept(['ns']);
  const ns = t.next();
  if (ns === undefined || !DNS_LABEL.test(ns)) throw new Unreadable(`expected a namespace after "in", got ${quote(ns)}`);
  if (!named) t.accept(['namespace']) || t.accept(['ns']);
  return ns;
}

// Kinds people say around a name ("service db", "the db service", "the web deployment"),
// written as kubectl's `svc/db`, `deployment/web`. Pod words are fillers (tokens.ts).
const SERVICE_KINDS = new Set(['svc', 'service', 'services']);
const kindAround = (w: string | undefined): string | null => (w === undefined ? null : SERVICE_KINDS.has(w) ? 'svc' : workloadKindOf(w) ? w : null);
const isPlainName = (w: string | undefined): w is string => w !== undefined && DNS_SUBDOMAIN.test(w) && !GRAMMAR_WORDS.has(w) && kindAround(w) === null;

/** `[fd00::1]:53`, `8.8.8.8:53/udp`, `prod/deploy/backend:8080`: the name and the port on it. */
function withPort(tok: string): [string, string | null] {
  const bracketed = /^\[([0-9a-f:.]+)\](?::(.+))?$/.exec(tok);
  if (bracketed) return [bracketed[1]!, bracketed[2] ?? null];
  // An IPv6 address keeps its colons (with a port, it is bracketed).
  if (familyOfText(tok) !== null) return [tok, null];
  const colon = tok.indexOf(':');
  if (colon > 0 && /^[a-z0-9-]+(\/[a-z]+)?$/.test(tok.slice(colon + 1))) return [tok.slice(0, colon), tok.slice(colon + 1)];
  return [tok, null];
}

// Kubernetes DNS (DNS for Services and Pods): `<service>.<ns>.svc.<zone>`, a StatefulSet pod
// `<hostname>.<subdomain>.<ns>.svc.<zone>`, a pod address `<a-b-c-d>.<ns>.pod.<zone>`.
function dnsName(text: string): EndpointSpec | null {
  const labels = text.split('.');
  const svc = labels.indexOf('svc');
  if (svc === 2 && labels.slice(0, 2).every((l) => DNS_LABEL.test(l))) return { pod: `${labels[1]}/svc/${labels[0]}` };
  if (svc === 3 && labels.slice(0, 3).every((l) => DNS_LABEL.test(l))) return { pod: `${labels[2]}/${labels[0]}` };
  if (labels[2] === 'pod' && /^\d+-\d+-\d+-\d+$/.test(labels[0]!) && DNS_LABEL.test(labels[1]!)) {
    const ip = labels[0]!.replaceAll('-', '.');
    if (familyOfText(ip) !== null) return { ip };
  }
  return null;
}

/** A name with no namespace of its own, which `-n`/`in` gives one: `frontend`, `deploy/frontend`, `svc/db`, `app=web`. */
export function isBare(spec: EndpointSpec): boolean {
  if (!('pod' in spec)) return false;
  const parts = spec.pod.split('/');
  if (parts.length === 1) return !parts[0]!.includes('.') || parts[0]!.includes('=');
  return parts.length === 2 && !parts[1]!.includes('=') && (workloadKindOf(parts[0]!) !== null || NAME_KINDS.has(parts[0]!));
}

export function qualify(spec: EndpointSpec, ns: string): EndpointSpec {
  return isBare(spec) ? { pod: `${ns}/${(spec as { pod: string }).pod}` } : spec;
}

/** One endpoint (`role` and `after` word the message when there is none). */
export function endpoint(t: Tokens, role: 'source' | 'destination' | 'pod', after: string, scope: Scope): Read {
  if (internet(t)) return { spec: { ip: INTERNET }, port: null };
  if (clusterDns(t)) return { spec: { pod: CLUSTER_DNS }, port: null, dns: true };
  const ns = namespacePods(t);
  if (ns !== null) return { spec: { pod: `ns/${ns}` }, port: null };
  let raw = t.next();
  const expected = `expected the ${role} (namespace/pod, namespace/kind/name, a name with -n namespace, namespace/label=value, a node name, an IP address or a CIDR) after "${after}", got ${quote(raw)}`;
  if (raw === undefined) throw new Unreadable(expected);
  // "service db", "deployment web": the kind first.
  const kindBefore = kindAround(raw);
  if (kindBefore !== null && isPlainName(withPort(t.peek() ?? '')[0])) raw = `${kindBefore}/${t.next()!}`;
  const [tok, port] = withPort(raw);
  let spec = name(tok);
  if (spec === null) throw new Unreadable(expected);
  // "the db service", "the web deployment": the kind after the name.
  const kindAfter = kindAround(t.peek());
  if (kindAfter !== null && kindBefore === null && isPlainName(tok)) {
    t.next();
    spec = name(`${kindAfter}/${tok}`)!;
  }
  // "frontend in staging": the name's own namespace.
  if (t.peek() === 'in' && DNS_LABEL.test(t.peek(1) === 'namespace' || t.peek(1) === 'ns' ? t.peek(2) ?? '' : t.peek(1) ?? '') && !SOME.some((s) => s[0] === t.peek(1))) {
    t.next();
    const own = namespaceAfterIn(t);
    scope.namespaces.add(own);
    spec = qualify(spec, own);
  }
  return { spec, port };
}

function name(tok: string): EndpointSpec | null {
  // A CIDR, well written or not: names.ts answers it region by region, or says what is wrong with it.
  if (familyOfText(tok) !== null || looksLikeCidr(tok)) return { ip: tok };
  const dns = dnsName(tok);
  if (dns) return dns;
  const parts = tok.split('/');
  const ns = parts[0]!;
  const rest = parts.slice(1).join('/');
  const selector = (s: string) => s.includes('=') && s.split(',').every((r) => SELECTOR.test(r));
  // `shop/app=web,tier=front`: every pod the selector picks in namespace shop; `app=web -n shop`.
  if (parts.length > 1 && DNS_LABEL.test(ns) && selector(rest)) return { pod: tok };
  if (parts.length === 1 && selector(tok) && !tok.includes('/')) return { pod: tok };
  if (parts.length === 2 && DNS_LABEL.test(ns) && DNS_SUBDOMAIN.test(parts[1]!)) return { pod: tok };
  // A workload as kubectl names it (`shop/deploy/web`), a Service (`shop/svc/db`), a pod (`shop/pod/web`).
  if (parts.length === 3 && DNS_LABEL.test(ns) && (workloadKindOf(parts[1]!) || NAME_KINDS.has(parts[1]!)) && DNS_SUBDOMAIN.test(parts[2]!)) return { pod: tok };
  // A name without a namespace: a node, or what names.ts finds by that name (never one that reads as a mistyped address).
  if (parts.length === 1 && DNS_SUBDOMAIN.test(tok) && !/^[\d.]+$/.test(tok) && !GRAMMAR_WORDS.has(tok)) return { pod: tok };
  return null;
}

/** kubectl's namespace flags, wherever they are: `-n prod`, `--namespace prod`, `--namespace=prod`; `-A` says nothing more. */
export function namespaceFlags(words: readonly string[], scope: Scope): string[] {
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    // A word with "=" keeps its case (tokens.ts: label values); a namespace is lower case.
    const eq = /^--namespace=(.+)$/i.exec(w);
    if (eq || w === '-n' || w === '--namespace') {
      const ns = eq ? eq[1]!.toLowerCase() : words[++i];
      if (ns === undefined || !DNS_LABEL.test(ns)) throw new Unreadable(`expected a namespace after ${quote(w)}, got ${quote(ns)}`);
      scope.namespaces.add(ns);
    } else if (w !== '-a' && w !== '--all-namespaces') {
      out.push(w);
    }
  }
  return out;
}

/**
 * After the destination: the port words, with "in prod" taken as the names' namespace (or as
 * `inNamespace` reads it); `from` reads "… from X" (passive forms).
 */
export function tail(t: Tokens, scope: Scope, from?: (t: Tokens) => void, inNamespace: (ns: string) => void = (ns) => scope.namespaces.add(ns)): string[] {
  const words: string[] = [];
  while (t.peek() !== undefined) {
    if (t.peek() === 'in') {
      t.next();
      inNamespace(namespaceAfterIn(t));
    } else if (t.peek() === 'from') {
      t.next();
      if (!from) throw new Unreadable(`"from" after the destination, but the source came first; ask "can X reach Y" or "is Y reachable from X"`);
      from(t);
    } else {
      words.push(t.next()!);
    }
  }
  return words;
}
