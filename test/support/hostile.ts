// Inputs small on the wire that cost much to answer in some forms: the shapes the bounded-work
// tests and bench/bounded-work.ts send. 2,000 pods and one AdminNetworkPolicy of 10 rules × 10
// peers is a 0.5 MB body whose flat tables (every peer expanded into every pod's table) run to
// millions of rules; the set form of the same snapshot is small.
import { adminNetworkPolicy, namespace, node, pod, type K8sObject } from './cluster-builders.js';

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
