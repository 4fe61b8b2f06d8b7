// Inputs small on the wire that cost much to answer in some forms: the shapes the bounded-work
// tests and bench/bounded-work.ts send. 2,000 pods and one AdminNetworkPolicy of 10 rules × 10
// peers is a 0.5 MB body whose flat tables (every peer expanded into every pod's table) run to
// millions of rules; the set form of the same snapshot is small.
import { adminNetworkPolicy, namespace, networkPolicy, node, pod, type K8sObject } from './cluster-builders.js';

export function wideAdminPolicy(pods = 2000, rules = 10, peersPerRule = 10): K8sObject[] {
  const namespaces = 20;
  const objects: K8sObject[] = [node('node-1', '172.18.0.2'), node('node-2', '172.18.0.3')];
  for (let n = 0; n < namespaces; n++) objects.push(namespace(`ns${n}`, { labels: { team: `t${n % 5}` } }));
  for (let i = 0; i < pods; i++) {
    objects.push(pod(`ns${i % namespaces}/p${i}`, { ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, node: `node-${(i % 2) + 1}`, labels: { app: `a${i % 50}`, tier: `t${i % 7}` } }));
  }
  const peer = (r: number, p: number) => ({ pods: { namespaceSelector: { matchLabels: { team: `t${(r + p) % 5}` } }, podSelector: { matchLabels: { tier: `t${(r * peersPerRule + p) % 7}` } } } });
  const ingress = Array.from({ length: rules }, (_, r) => ({
    name: `r${r}`,
    action: r % 3 === 0 ? 'Deny' : r % 3 === 1 ? 'Allow' : 'Pass',
    from: Array.from({ length: peersPerRule }, (_, p) => peer(r, p)),
    ports: [{ portNumber: { protocol: 'TCP', port: 1000 + r } }],
  }));
  objects.push(adminNetworkPolicy('wide', 10, { subject: { namespaces: {} }, ingress }));
  return objects;
}

/**
 * One node with every pod, and a NetworkPolicy per group of pods (ingress from the next group and
 * a /24, named and ranged ports; egress to another group): the node's tables are large in every
 * form. At 20,000 pods and 2,000 policies its iptables artifact is 27 MB and its openstack-sg
 * 29 MB, each taking a thread for about a second to render.
 */
export function crowdedNode(pods = 20000, groups = 2000): K8sObject[] {
  const objects: K8sObject[] = [namespace('ns'), node('n1', '172.18.0.2')];
  for (let i = 0; i < pods; i++) {
    const ports = [{ name: 'http', containerPort: 8080 + (i % 7), protocol: 'TCP' as const }];
    objects.push(pod(`ns/p${i}`, { ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, node: 'n1', labels: { app: `a${i % groups}` }, containers: [{ name: 'c', ports }] }));
  }
  for (let g = 0; g < groups; g++) {
    const app = (k: number) => ({ podSelector: { matchLabels: { app: `a${(g + k) % groups}` } } });
    const ingress = [{ from: [app(1), { ipBlock: { cidr: `192.${g >> 8}.${g & 255}.0/24` } }], ports: [{ port: 'http' }, { port: 1000 + g, endPort: 2000 + g }] }];
    objects.push(networkPolicy(`ns/np${g}`, { podSelector: { matchLabels: { app: `a${g}` } }, policyTypes: ['Ingress', 'Egress'], ingress, egress: [{ to: [app(7)], ports: [{ port: 'http' }] }] }));
  }
  return objects;
}

/**
 * Three pods and one NetworkPolicy of a few kilobytes: ingress from a /16 less `excepted` /32s on
 * `ports` single ports. The /16 less the /32s is ~2,000 CIDRs for 400 of them, once per port run in a
 * flat table: 1,000 ports make two million flat rules, over every flat limit, while the set form
 * is one set and one rule.
 */
export function exceptedPorts(excepted = 400, ports = 1000): K8sObject[] {
  const except = Array.from({ length: excepted }, (_, e) => `192.168.${e & 255}.${1 + 2 * (e >> 8)}/32`);
  const objects: K8sObject[] = [node('n1', '172.18.0.2')];
  for (let i = 0; i < 3; i++) objects.push(pod(`x/p${i}`, { ip: `10.1.0.${i + 1}`, node: 'n1' }));
  const from = [{ ipBlock: { cidr: '192.168.0.0/16', except } }];
  objects.push(networkPolicy('x/np', { podSelector: {}, ingress: [{ from, ports: Array.from({ length: ports }, (_, k) => ({ port: 1000 + 2 * k, protocol: 'TCP' })) }] }));
  return objects;
}

/** The C library's LCG, seeded: the same snapshots on every run. */
export function lcg(seed: number): () => number {
  let r = seed;
  return () => (r = (r * 1103515245 + 12345) % 2147483648);
}

/** 300 dual-stack pods on 5 nodes; `anps` AdminNetworkPolicies of 40 ingress and 40 egress rules (Allow/Deny/Pass, port ranges, named ports, /16 and /48 networks). */
export function adminRules(anps: number): object[] {
  const rnd = lcg(7);
  const items: object[] = [];
  for (let n = 0; n < 5; n++) items.push({ apiVersion: 'v1', kind: 'Node', metadata: { name: `n${n}` }, spec: { podCIDR: `10.${n}.0.0/24` }, status: { addresses: [{ type: 'InternalIP', address: `172.16.0.${n + 1}` }] } });
  for (let ns = 0; ns < 10; ns++) items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `ns${ns}`, labels: { 'kubernetes.io/metadata.name': `ns${ns}`, team: `t${ns % 3}` } } });
  for (let i = 0; i < 300; i++) {
    const [v4, v6] = [`10.${i % 5}.0.${Math.floor(i / 5) + 2}`, `fd00:${i % 5}::${(Math.floor(i / 5) + 2).toString(16)}`];
    items.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: `ns${i % 10}`, labels: { app: `a${i % 20}`, tier: `t${i % 4}` } }, spec: { nodeName: `n${i % 5}`, containers: [{ name: 'c', ports: [{ name: 'web', containerPort: 8000 + (i % 13) }] }] }, status: { phase: 'Running', podIP: v4, podIPs: [{ ip: v4 }, { ip: v6 }] } });
  }
  for (let a = 0; a < anps; a++) {
    const [ingress, egress] = [[] as object[], [] as object[]];
    for (let k = 0; k < 40; k++) {
      const lo = 1 + (rnd() % 60000);
      const action = ['Allow', 'Deny', 'Pass'][rnd() % 3];
      ingress.push({ name: `i${k}`, action, from: [{ namespaces: { matchLabels: { team: `t${rnd() % 3}` } } }, { pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: `a${rnd() % 20}` } } } }], ports: [{ portRange: { protocol: 'TCP', start: lo, end: Math.min(65535, lo + 1 + (rnd() % 3000)) } }, { namedPort: 'web' }] });
      egress.push({ name: `e${k}`, action, to: [{ networks: [`${rnd() % 224}.${rnd() % 256}.0.0/16`, `2001:db8:${(rnd() % 65536).toString(16)}::/48`] }, { pods: { namespaceSelector: { matchLabels: { team: `t${rnd() % 3}` } }, podSelector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: [`t${rnd() % 4}`] }] } } }], ports: [{ portRange: { protocol: ['TCP', 'UDP', 'SCTP'][rnd() % 3], start: lo, end: Math.min(65535, lo + 1 + (rnd() % 5000)) } }] });
    }
    items.push({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: `anp${a}` }, spec: { priority: a, subject: { namespaces: { matchLabels: { team: `t${a % 3}` } } }, ingress, egress } });
  }
  return items;
}

/**
 * `pods` pods of distinct labels in one namespace and two NetworkPolicies allowing ingress from
 * every pod of it (260 kB at 1,500): each rule's lint question is 1,500 subjects × 1,500 peer
 * pods, past the per-question pair limit (2,000,000). The second rule is the first one again,
 * which the structural check answers without cells. (Address peers no longer make such a
 * question: a rule's CIDR peers are one set, and a /8 less 10,000 /32s is two address classes.)
 */
export function crowdedNamespace(pods = 1500): K8sObject[] {
  const objects: K8sObject[] = [namespace('a'), node('n1', '172.18.0.2')];
  for (let i = 0; i < pods; i++) objects.push(pod(`a/p${i}`, { ip: `10.0.${i >> 8}.${i & 255}`, node: 'n1', labels: { i: String(i) } }));
  for (const name of ['first', 'second']) objects.push(networkPolicy(`a/${name}`, { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] }));
  return objects;
}

/**
 * 100 pods and two NetworkPolicies allowing ingress from 192.0.0.0/8 less `excepted` /32s
 * (0.8 MB at 20,000): 40,000 elementary intervals, but two classes of IPv4 addresses (in the
 * /8 less its excepts, or not: excepted and outside are alike to every rule) and one of IPv6.
 * Previews and lints compare one address per class; with one per interval, this preview took
 * 9 s, and its lint questions went past the pair limit.
 */
export function exceptedAddresses(excepted = 20_000): K8sObject[] {
  const objects: K8sObject[] = [namespace('a'), node('n1', '172.18.0.2')];
  for (let i = 0; i < 100; i++) objects.push(pod(`a/p${i}`, { ip: `10.0.0.${i + 1}`, node: 'n1', labels: { i: String(i) } }));
  const except = Array.from({ length: excepted }, (_, k) => `192.${168 + (k >> 14)}.${(k >> 6) & 255}.${(k & 63) * 4}/32`);
  for (const name of ['first', 'second']) objects.push(networkPolicy(`a/${name}`, { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.0.0.0/8', except } }] }] }));
  return objects;
}
