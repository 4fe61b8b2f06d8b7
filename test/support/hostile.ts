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
