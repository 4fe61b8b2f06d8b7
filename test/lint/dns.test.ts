// egress-blocks-dns: egress isolation that also stops pods reaching kube-dns on 53.
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { clusterOf, namespace, networkPolicy, pod, smallCluster, type K8sObject } from '../support/cluster-builders.js';

const dnsPod = pod('kube-system/coredns-1', {
  ip: '10.0.9.10',
  node: 'n1',
  labels: { 'k8s-app': 'kube-dns' },
  ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' }],
});
const base = (withDns = true): K8sObject[] => [...smallCluster(), namespace('kube-system'), ...(withDns ? [dnsPod] : [])];
const toDns = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } };
const toY = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } };

const found = (objects: K8sObject[]): Finding[] => lint(clusterOf(objects)).filter((f) => f.code === 'egress-blocks-dns');

describe('egress-blocks-dns', () => {
  it('fires on a default-deny egress policy, at spec.policyTypes', () => {
    const f = found([...base(), networkPolicy('x/default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] })]);
    expect(f).toEqual([expect.objectContaining({ severity: 'warning', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'x', name: 'default-deny' }, path: 'spec.policyTypes' })]);
    expect(f[0]!.message).toContain('on UDP 53 and TCP 53 is denied for 2 pods (x/a, x/b)');
  });

  it('fires at spec.egress when the egress rules allow other things but not DNS', () => {
    const f = found([...base(), networkPolicy('x/to-y', { podSelector: { matchLabels: { app: 'a' } }, egress: [{ to: [toY] }] })]);
    expect(f.map((x) => [x.severity, x.path, x.message.includes('(x/a)')])).toEqual([['warning', 'spec.egress', true]]);
  });

  it('is info when only TCP 53 is blocked', () => {
    const f = found([...base(), networkPolicy('x/udp-dns', { podSelector: {}, egress: [{ to: [toDns], ports: [{ port: 53, protocol: 'UDP' }] }] })]);
    expect(f.map((x) => [x.severity, x.message.includes('on TCP 53 is denied')])).toEqual([['info', true]]);
  });

  it('blames an Admin-tier Deny on the rule that denies', () => {
    const anp: K8sObject = {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'AdminNetworkPolicy',
      metadata: { name: 'lockdown' },
      spec: { priority: 1, subject: { namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } }, egress: [{ action: 'Allow', to: [{ networks: ['192.0.2.0/24'] }] }, { name: 'deny-rest', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] }] },
    };
    const f = found([...base(), anp]);
    expect(f.map((x) => [x.object.kind, x.object.name, x.path, x.severity])).toEqual([['AdminNetworkPolicy', 'lockdown', 'spec.egress[1]', 'warning']]);
    expect(f[0]!.message).toContain('denied by AdminNetworkPolicy lockdown egress rule 1 "deny-rest"');
  });

  it('does not fire when the egress policy allows DNS on UDP and TCP 53', () => {
    const allowDns = { to: [toDns], ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }] };
    expect(found([...base(), networkPolicy('x/default-deny', { podSelector: {}, egress: [allowDns, { to: [toY] }] })])).toEqual([]);
  });

  it('does not fire without kube-dns pods in the snapshot (nothing to evaluate against)', () => {
    expect(found([...base(false), networkPolicy('x/default-deny', { podSelector: {}, policyTypes: ['Egress'] })])).toEqual([]);
  });
});
