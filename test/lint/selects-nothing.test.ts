// selects-no-pods: a policy whose subject matches no pod in the snapshot.
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

const base = (): K8sObject[] => [
  namespace('x', { labels: { team: 'x' } }),
  namespace('empty'),
  node('n1', '172.18.0.2'),
  pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' } }),
  pod('x/host', { ip: '172.18.0.2', node: 'n1', labels: { app: 'agent' }, hostNetwork: true }),
];
const cnp = (name: string, subject: Record<string, unknown>): K8sObject => ({
  apiVersion: 'policy.networking.k8s.io/v1alpha2',
  kind: 'ClusterNetworkPolicy',
  metadata: { name },
  spec: { tier: 'Admin', priority: 1, subject, ingress: [{ action: 'Deny', from: [{ namespaces: {} }] }] },
});

const found = (...objects: K8sObject[]): Finding[] => lint(clusterOf([...base(), ...objects])).filter((f) => f.code === 'selects-no-pods');

describe('selects-no-pods', () => {
  it('fires on a NetworkPolicy whose podSelector matches no pod of its namespace', () => {
    const f = found(networkPolicy('x/typo', { podSelector: { matchLabels: { app: 'aa' } }, ingress: [] }));
    expect(f).toEqual([
      expect.objectContaining({ severity: 'warning', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'x', name: 'typo' }, path: 'spec.podSelector' }),
    ]);
    expect(f[0]!.message).toContain('no pod in namespace x matches spec.podSelector');
  });

  it('says so when the namespace has no pods at all', () => {
    expect(found(networkPolicy('empty/deny', { podSelector: {} }))[0]!.message).toContain('namespace empty has no pods');
  });

  it('fires on a policy that selects only host-network pods', () => {
    const f = found(networkPolicy('x/agent', { podSelector: { matchLabels: { app: 'agent' } } }));
    expect(f.map((x) => x.message)).toEqual(['the policy selects only host-network pods, which policies never apply to']);
  });

  it('fires on a cluster-scoped subject, at spec.subject', () => {
    const f = found(cnp('nobody', { namespaces: { matchLabels: { team: 'z' } } }));
    expect(f.map((x) => [x.object.kind, x.object.name, x.path, x.severity])).toEqual([['ClusterNetworkPolicy', 'nobody', 'spec.subject', 'warning']]);
    expect(f[0]!.message).toContain('no namespace in the snapshot matches the subject');
  });

  it('does not fire on policies that select a pod, namespace- or cluster-scoped', () => {
    expect(found(networkPolicy('x/all', { podSelector: {} }), networkPolicy('x/a', { podSelector: { matchLabels: { app: 'a' } } }), cnp('team-x', { namespaces: { matchLabels: { team: 'x' } } }))).toEqual([]);
  });
});
