// same-priority-overlap: KEP-2091 "Conflict resolution" / network-policy-api#222.
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { adminNetworkPolicy, clusterNetworkPolicy, clusterOf, smallCluster, type K8sObject } from '../support/cluster-builders.js';

const base = smallCluster;
const anp = adminNetworkPolicy;
const cnp = clusterNetworkPolicy;
const ns = (name: string) => ({ namespaces: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
const allNs = { namespaces: {} };
const podsA = { pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'a' } } } };

const overlaps = (...objects: K8sObject[]): Finding[] => lint(clusterOf([...base(), ...objects])).filter((f) => f.code === 'same-priority-overlap');

describe('same-priority-overlap', () => {
  it('fires as an error when same-priority policies match a common connection with different actions', () => {
    const found = overlaps(
      anp('alpha', 5, { subject: ns('x'), ingress: [{ name: 'allow-y', action: 'Allow', from: [ns('y')] }] }),
      anp('beta', 5, { subject: podsA, ingress: [{ name: 'deny-all', action: 'Deny', from: [allNs] }] }),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      severity: 'error',
      object: { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', name: 'beta' },
      path: 'spec.priority',
    });
    expect(found[0]!.object.namespace).toBeUndefined();
    expect(found[0]!.message).toContain('y/c → x/a');
    expect(found[0]!.message).toContain('"allow-y" (Allow) of alpha');
  });

  it('is a warning when the overlapping rules agree on the action', () => {
    const found = overlaps(
      anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Deny', from: [ns('y')] }] }),
      anp('beta', 5, { subject: podsA, ingress: [{ action: 'Deny', from: [allNs] }] }),
    );
    expect(found.map((f) => [f.severity, f.object.name])).toEqual([['warning', 'beta']]);
  });

  it('checks Baseline-tier ClusterNetworkPolicies and egress too', () => {
    const found = overlaps(
      cnp('one', 'Baseline', 3, { subject: allNs, egress: [{ action: 'Accept', to: [{ networks: ['10.0.0.0/8'] }] }] }),
      cnp('two', 'Baseline', 3, { subject: ns('x'), egress: [{ action: 'Deny', to: [{ networks: ['10.0.2.0/24'] }] }] }),
    );
    expect(found.map((f) => [f.severity, f.object.kind, f.object.name, f.path])).toEqual([['error', 'ClusterNetworkPolicy', 'two', 'spec.priority']]);
  });

  it('does not fire when subjects overlap but the peers do not', () => {
    expect(
      overlaps(
        anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [ns('y')] }] }),
        anp('beta', 5, { subject: podsA, ingress: [{ action: 'Deny', from: [ns('x')] }] }),
      ),
    ).toEqual([]);
  });

  it('does not fire when peers overlap but the ports do not', () => {
    expect(
      overlaps(
        anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [allNs], ports: [{ portNumber: { port: 80 } }] }] }),
        anp('beta', 5, { subject: ns('x'), ingress: [{ action: 'Deny', from: [allNs], ports: [{ portNumber: { port: 80, protocol: 'UDP' } }, { portRange: { start: 81, end: 443 } }] }] }),
      ),
    ).toEqual([]);
  });

  it('does not fire when the subjects are disjoint, or the priorities differ', () => {
    expect(overlaps(anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [allNs] }] }), anp('beta', 5, { subject: ns('y'), ingress: [{ action: 'Deny', from: [allNs] }] }))).toEqual([]);
    expect(overlaps(anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [allNs] }] }), anp('beta', 6, { subject: ns('x'), ingress: [{ action: 'Deny', from: [allNs] }] }))).toEqual([]);
  });

  it("does not count a rule its own policy shadows: only each policy's first matching rule meets the other", () => {
    // alpha's Deny from y never decides (its Allow-all comes first), so alpha and beta agree: warning, not error.
    const found = overlaps(
      anp('alpha', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [allNs] }, { action: 'Deny', from: [ns('y')] }] }),
      anp('beta', 5, { subject: ns('x'), ingress: [{ action: 'Allow', from: [ns('y')] }] }),
    );
    expect(found.map((f) => f.severity)).toEqual(['warning']);
  });
});
