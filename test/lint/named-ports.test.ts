// named-port-unresolved: a named port that resolves on no destination pod.
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

const base = (): K8sObject[] => [
  namespace('x'),
  namespace('y'),
  node('n1', '172.18.0.2'),
  pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' }, ports: [{ name: 'web', containerPort: 8080 }] }),
  pod('x/b', { ip: '10.0.1.11', node: 'n1', labels: { app: 'b' }, ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }] }),
  pod('y/c', { ip: '10.0.2.12', node: 'n1', labels: { app: 'c' }, ports: [{ name: 'metrics', containerPort: 9090 }] }),
];
const fromNs = (name: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
const podsOf = (app: string) => ({ matchLabels: { app } });

const found = (...objects: K8sObject[]): Finding[] => lint(clusterOf([...base(), ...objects])).filter((f) => f.code === 'named-port-unresolved');

describe('named-port-unresolved', () => {
  it('ingress: fires when no pod the policy selects defines the name', () => {
    const f = found(networkPolicy('x/metrics', { podSelector: podsOf('a'), ingress: [{ from: [fromNs('y')], ports: [{ port: 80 }, { port: 'metrics' }] }] }));
    expect(f).toEqual([expect.objectContaining({ severity: 'warning', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'x', name: 'metrics' }, path: 'spec.ingress[0].ports[1]' })]);
    expect(f[0]!.message).toContain('(x/a) defines a TCP port named "metrics"');
  });

  it('ingress: the protocol counts (dns is UDP on x/b, the policy asks for TCP by default)', () => {
    expect(found(networkPolicy('x/dns', { podSelector: podsOf('b'), ingress: [{ ports: [{ port: 'dns' }] }] })).map((x) => x.path)).toEqual(['spec.ingress[0].ports[0]']);
    expect(found(networkPolicy('x/dns', { podSelector: podsOf('b'), ingress: [{ ports: [{ port: 'dns', protocol: 'UDP' }] }] }))).toEqual([]);
  });

  it('egress: fires when no pod in the snapshot defines the name', () => {
    const f = found(networkPolicy('x/grpc', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'grpc' }] }] }));
    expect(f.map((x) => [x.path, x.message.includes('no pod in the snapshot defines a TCP port named "grpc"')])).toEqual([['spec.egress[0].ports[0]', true]]);
  });

  it("egress: fires when pods define it but none of the rule's destination pods", () => {
    const f = found(networkPolicy('x/web', { podSelector: podsOf('b'), egress: [{ to: [fromNs('y')], ports: [{ port: 'web' }] }] }));
    expect(f.map((x) => x.path)).toEqual(['spec.egress[0].ports[0]']);
    expect(f[0]!.message).toContain("none of the rule's 1 destination pod (y/c) defines");
    expect(f[0]!.message).toContain('x/a does');
  });

  it('egress: does not fire when a destination pod defines it', () => {
    expect(found(networkPolicy('x/web', { podSelector: podsOf('b'), egress: [{ to: [{ podSelector: {} }], ports: [{ port: 'web' }] }] }))).toEqual([]);
  });

  it('ClusterNetworkPolicy destinationNamedPort is reported at protocols[k], any protocol accepted', () => {
    const cnp = (port: string): K8sObject => ({
      apiVersion: 'policy.networking.k8s.io/v1alpha2',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: `deny-${port}` },
      spec: { tier: 'Admin', priority: 1, subject: { namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'x' } } }, ingress: [{ action: 'Deny', from: [{ namespaces: {} }], protocols: [{ tcp: { destinationPort: { number: 22 } } }, { destinationNamedPort: port }] }] },
    });
    expect(found(cnp('metrics')).map((x) => [x.object.name, x.path])).toEqual([['deny-metrics', 'spec.ingress[0].protocols[1]']]);
    expect(found(cnp('dns'))).toEqual([]);
  });

  it('egress: a peer relative to the subject (sameLabels) is looked for from every subject namespace', () => {
    const objects = [
      node('n1', '172.18.0.2'),
      ...['a1', 'a2', 'b1', 'b2'].map((n) => namespace(n, { labels: { team: n[0]! } })),
      pod('a1/p', { ip: '10.0.3.1', node: 'n1' }),
      pod('b1/q', { ip: '10.0.3.2', node: 'n1' }),
      pod('a2/x', { ip: '10.0.3.3', node: 'n1' }),
      // Only team b's namespaces have a pod that names the port, seen from b1 alone.
      pod('b2/y', { ip: '10.0.3.4', node: 'n1', ports: [{ name: 'web', containerPort: 8080 }] }),
      adminNetworkPolicy('same-team', 5, { subject: { namespaces: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: ['a1', 'b1'] }] } }, egress: [{ action: 'Allow', to: [{ namespaces: { sameLabels: ['team'] } }], ports: [{ namedPort: 'web' }] }] }),
    ];
    expect(lint(clusterOf(objects)).filter((f) => f.code === 'named-port-unresolved')).toEqual([]);
  });
});
