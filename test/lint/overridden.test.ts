// np-rule-overridden: KEP-2091 "Risks and Mitigation" — alert if a NetworkPolicy would be
// overridden by any of the ANPs.
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { adminNetworkPolicy, clusterOf, networkPolicy, smallCluster, type K8sObject } from '../support/cluster-builders.js';

const base = smallCluster;
const anp = (name: string, spec: Record<string, unknown>, priority = 10): K8sObject => adminNetworkPolicy(name, priority, spec);
const ns = (name: string) => ({ namespaces: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
const fromY = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'y' } } };
const allowFromY = (selector: Record<string, unknown> = {}) => networkPolicy('x/allow-y', { podSelector: selector, ingress: [{ from: [fromY] }] });

const found = (...objects: K8sObject[]): Finding[] => lint(clusterOf([...base(), ...objects])).filter((f) => f.code === 'np-rule-overridden');

describe('np-rule-overridden', () => {
  it('fires (warning) when an Admin Deny decides every connection the rule allows, for every selected pod', () => {
    const f = found(anp('deny-y', { subject: ns('x'), ingress: [{ name: 'no-y', action: 'Deny', from: [ns('y')] }] }), allowFromY());
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'warning', object: { kind: 'NetworkPolicy', namespace: 'x', name: 'allow-y' }, path: 'spec.ingress[0]' });
    expect(f[0]!.message).toContain('AdminNetworkPolicy deny-y ingress rule 0 "no-y" (denies)');
  });

  it('is info when the Admin tier only allows that traffic', () => {
    const f = found(anp('allow-y', { subject: ns('x'), ingress: [{ action: 'Allow', from: [ns('y')] }] }), allowFromY());
    expect(f.map((x) => [x.severity, x.path])).toEqual([['info', 'spec.ingress[0]']]);
  });

  it('works for egress, and names every deciding admin rule', () => {
    const f = found(
      anp('deny-80', { subject: ns('x'), egress: [{ action: 'Deny', to: [ns('y')], ports: [{ portNumber: { port: 80 } }] }] }),
      anp('allow-rest', { subject: ns('x'), egress: [{ action: 'Allow', to: [ns('y')] }] }, 20),
      networkPolicy('x/egress', { podSelector: { matchLabels: { app: 'a' } }, egress: [{ to: [fromY] }] }),
    );
    expect(f.map((x) => [x.severity, x.path])).toEqual([['warning', 'spec.egress[0]']]);
    expect(f[0]!.message).toContain('deny-80 egress rule 0 (denies)');
    expect(f[0]!.message).toContain('allow-rest egress rule 0 (allows)');
  });

  it('does not fire when the Admin rule passes the traffic down to NetworkPolicies', () => {
    expect(found(anp('pass-y', { subject: ns('x'), ingress: [{ action: 'Pass', from: [ns('y')] }] }), allowFromY())).toEqual([]);
  });

  it('does not fire when the Admin rule covers only some ports of the rule', () => {
    expect(found(anp('deny-y-80', { subject: ns('x'), ingress: [{ action: 'Deny', from: [ns('y')], ports: [{ portNumber: { port: 80 } }] }] }), allowFromY())).toEqual([]);
  });

  it('does not fire when the Admin rule applies to only some of the pods the policy selects', () => {
    const onlyA = { pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'a' } } } };
    expect(found(anp('deny-y', { subject: onlyA, ingress: [{ action: 'Deny', from: [ns('y')] }] }), allowFromY())).toEqual([]);
    // …but it does once the policy selects only those pods.
    expect(found(anp('deny-y', { subject: onlyA, ingress: [{ action: 'Deny', from: [ns('y')] }] }), allowFromY({ matchLabels: { app: 'a' } }))).toHaveLength(1);
  });
});
