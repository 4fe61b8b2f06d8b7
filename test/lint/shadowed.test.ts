// rule-shadowed (first-match ANP/BANP/CNP rules) and np-rule-redundant (NetworkPolicy union).
import { describe, expect, it } from 'vitest';
import { lint, type Finding } from '../../core/lint/index.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

const base = (): K8sObject[] => [
  namespace('x'),
  namespace('y', { labels: { env: 'prod' } }),
  node('n1', '172.18.0.2'),
  pod('x/a', { ip: '10.0.1.10', node: 'n1', labels: { app: 'a' } }),
  pod('x/b', { ip: '10.0.1.11', node: 'n1', labels: { app: 'b' } }),
  pod('y/c', { ip: '10.0.2.12', node: 'n1', labels: { app: 'c' } }),
];
const anp = (name: string, spec: Record<string, unknown>): K8sObject => adminNetworkPolicy(name, 1, spec);
const banp = (spec: Record<string, unknown>): K8sObject => ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec });
const ns = (name: string) => ({ namespaces: { matchLabels: { 'kubernetes.io/metadata.name': name } } });
const allNs = { namespaces: {} };
const fromNs = (name: string) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } } });

const found = (code: string, ...objects: K8sObject[]): Finding[] => lint(clusterOf([...base(), ...objects])).filter((f) => f.code === code);

describe('rule-shadowed', () => {
  it('fires when an earlier rule structurally covers a later one (true for any pods)', () => {
    const f = found('rule-shadowed', anp('guard', { subject: ns('x'), ingress: [{ name: 'deny-all', action: 'Deny', from: [allNs] }, { name: 'allow-y', action: 'Allow', from: [ns('y')] }] }));
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'warning', object: { kind: 'AdminNetworkPolicy', name: 'guard' }, path: 'spec.ingress[1]' });
    expect(f[0]!.message).toMatch(/^ingress rule 1 "allow-y" \(Allow\) never matches: .* rule 0 "deny-all" \(Deny\)$/);
  });

  it('fires "in this snapshot" when the cover depends on labels the snapshot has (namespace y carries env=prod)', () => {
    const f = found('rule-shadowed', anp('guard', { subject: ns('x'), ingress: [{ action: 'Deny', from: [{ namespaces: { matchLabels: { env: 'prod' } } }] }, { action: 'Allow', from: [ns('y')] }] }));
    expect(f.map((x) => x.path)).toEqual(['spec.ingress[1]']);
    expect(f[0]!.message).toContain('in this snapshot');
  });

  it('counts the union of earlier rules: two port ranges together cover the later rule', () => {
    const f = found(
      'rule-shadowed',
      anp('ports', {
        subject: ns('x'),
        egress: [
          { action: 'Deny', to: [ns('y')], ports: [{ portRange: { start: 1, end: 1000 } }] },
          { action: 'Pass', to: [ns('y')], ports: [{ portRange: { start: 1001, end: 65535 } }] },
          { action: 'Allow', to: [ns('y')], ports: [{ portNumber: { port: 8080 } }, { portNumber: { port: 80 } }] },
        ],
      }),
    );
    expect(f.map((x) => x.path)).toEqual(['spec.egress[2]']);
    expect(f[0]!.message).toContain('rules 0 (Deny), 1 (Pass)');
  });

  it('covers addresses exactly, in the BaselineAdminNetworkPolicy too', () => {
    const f = found('rule-shadowed', banp({ subject: allNs, egress: [{ action: 'Deny', to: [{ networks: ['10.0.0.0/8'] }] }, { action: 'Allow', to: [{ networks: ['10.1.0.0/16', '10.2.0.0/16'] }] }] }));
    expect(f.map((x) => [x.object.kind, x.path, x.message.includes('in this snapshot')])).toEqual([['BaselineAdminNetworkPolicy', 'spec.egress[1]', false]]);
  });

  it('covers addresses by the union of a rule\'s CIDR peers, true for any snapshot: two /25s cover a /24', () => {
    const halves = { action: 'Deny', to: [{ networks: ['10.9.0.0/25'] }, { networks: ['10.9.0.128/25'] }] };
    const f = found('rule-shadowed', banp({ subject: allNs, egress: [halves, { action: 'Allow', to: [{ networks: ['10.9.0.0/24'] }] }] }));
    expect(f.map((x) => [x.path, x.message.includes('in this snapshot'), x.message.includes('rule 0 (Deny)')])).toEqual([['spec.egress[1]', false, true]]);
    const halfOnly = { action: 'Deny', to: [{ networks: ['10.9.0.0/25'] }, { networks: ['10.9.0.128/26'] }] };
    expect(found('rule-shadowed', banp({ subject: allNs, egress: [halfOnly, { action: 'Allow', to: [{ networks: ['10.9.0.0/24'] }] }] }))).toEqual([]);
  });

  it('does not fire when the later rule still matches something the earlier ones do not', () => {
    expect(found('rule-shadowed', anp('guard', { subject: ns('x'), ingress: [{ action: 'Deny', from: [ns('y')], ports: [{ portNumber: { port: 80 } }] }, { action: 'Allow', from: [ns('y')] }] }))).toEqual([]);
    expect(found('rule-shadowed', banp({ subject: allNs, egress: [{ action: 'Deny', to: [{ networks: ['10.1.0.0/16'] }] }, { action: 'Allow', to: [{ networks: ['10.0.0.0/8'] }] }] }))).toEqual([]);
  });

  it('does not fire on a rule that matches nothing in the snapshot (nothing to shadow)', () => {
    expect(found('rule-shadowed', anp('guard', { subject: ns('x'), ingress: [{ action: 'Deny', from: [{ namespaces: { matchLabels: { env: 'prod' } } }] }, { action: 'Allow', from: [ns('nowhere')] }] }))).toEqual([]);
  });
});

describe('np-rule-redundant', () => {
  it('fires on a rule another policy selecting a superset of pods already allows', () => {
    const f = found(
      'np-rule-redundant',
      networkPolicy('x/wide', { podSelector: {}, ingress: [{ from: [fromNs('y')] }] }),
      networkPolicy('x/narrow', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ ...fromNs('y'), podSelector: { matchLabels: { app: 'c' } } }], ports: [{ port: 80 }] }] }),
    );
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ severity: 'info', object: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', namespace: 'x', name: 'narrow' }, path: 'spec.ingress[0]' });
    expect(f[0]!.message).toContain('NetworkPolicy wide ingress rule 0');
    expect(f[0]!.message).not.toContain('in this snapshot');
  });

  it('reports only the later of two identical rules, so deleting every reported rule is safe', () => {
    const rule = { to: [{ ipBlock: { cidr: '10.0.2.0/24' } }], ports: [{ port: 443 }] };
    const f = found('np-rule-redundant', networkPolicy('x/p', { podSelector: {}, egress: [rule, { ports: [{ port: 53, protocol: 'UDP' }] }, rule] }));
    expect(f.map((x) => [x.object.name, x.path])).toEqual([['p', 'spec.egress[2]']]);
    expect(f[0]!.message).toContain('rule 0 of the same policy');
  });

  it('does not fire when the covering rule belongs to a policy that selects other pods', () => {
    expect(
      found(
        'np-rule-redundant',
        networkPolicy('x/wide', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [fromNs('y')] }] }),
        networkPolicy('x/narrow', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [fromNs('y')], ports: [{ port: 80 }] }] }),
      ),
    ).toEqual([]);
  });

  it('does not fire when the rules only partly overlap', () => {
    expect(
      found(
        'np-rule-redundant',
        networkPolicy('x/p', { podSelector: {}, ingress: [{ from: [fromNs('y')], ports: [{ port: 80 }, { port: 81 }] }] }),
        networkPolicy('x/q', { podSelector: {}, ingress: [{ from: [fromNs('y'), fromNs('x')], ports: [{ port: 81 }] }] }),
      ),
    ).toEqual([]);
  });
});
