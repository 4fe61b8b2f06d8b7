// A pod reaching itself: by its own address it is loopback and always allowed; through a Service
// that load-balances back to it, the packet leaves the pod and policy applies as to any flow:
// "A Pod connecting to its own Pod IP is not subject to CNP. A Pod connecting to a Service IP
// that the service proxy load-balances back to the same Pod is subject to ClusterNetworkPolicy"
// (network-policy-api, site-src/api-overview.md).
import { describe, expect, it } from 'vitest';
import { ask } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import { verdictFor, type FlowVerdict, type GroupVerdict } from '../../core/evaluate/verdicts.js';
import { clusterNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';

const api = { app: 'api' };
const base: K8sObject[] = [
  namespace('shop', { labels: { team: 'x' } }),
  node('n1', '172.18.0.2'),
  pod('shop/api-1', { ip: '10.0.1.1', node: 'n1', labels: api, ports: [{ name: 'http', containerPort: 8080 }] }),
  pod('shop/client', { ip: '10.0.1.9', node: 'n1', labels: { app: 'client' } }),
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api', namespace: 'shop' }, spec: { selector: api, clusterIP: '10.96.0.10', ports: [{ port: 80, targetPort: 'http' }] } },
];
// Only clients may reach the api pods.
const isolating = networkPolicy('shop/api', { podSelector: { matchLabels: api }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }] });
// The upstream example: an Admin-tier Deny from the namespace to itself.
const adminDeny = clusterNetworkPolicy('deny-team-x', 'Admin', 5, { subject: { namespaces: { matchLabels: { team: 'x' } } }, ingress: [{ name: 'deny-from-x', action: 'Deny', from: [{ namespaces: { matchLabels: { team: 'x' } } }] }] });

const spec = (to: { pod: string } | { ip: string }, port: number | string) => ({ from: { pod: 'shop/api-1' }, to, port, protocol: 'TCP' as const });
const member = (v: FlowVerdict | GroupVerdict): FlowVerdict => {
  expect('members' in v, 'a Service answers for its backing pods').toBe(true);
  const [m] = (v as GroupVerdict).members;
  expect(m!.flow.from).toBe('shop/api-1');
  expect(m!.flow.to).toBe('shop/api-1');
  return m!;
};

describe('a pod reaching itself', () => {
  for (const [title, policy] of [['a NetworkPolicy that isolates it', isolating], ['an Admin-tier ClusterNetworkPolicy Deny', adminDeny]] as const) {
    describe(`under ${title}`, () => {
      const cluster = clusterOf([...base, policy]);
      it('by its own address or name: loopback, allowed', () => {
        for (const to of [{ pod: 'shop/api-1' }, { ip: '10.0.1.1' }]) {
          const v = verdictFor(cluster, spec(to, 8080)) as FlowVerdict;
          expect(v.allowed).toBe(true);
          expect(v.reason).toBe('loopback');
        }
      });
      it('through its Service, by name or ClusterIP: evaluated as a flow, and denied at ingress', () => {
        for (const to of [{ pod: 'shop/svc/api' }, { ip: '10.96.0.10' }]) {
          const m = member(verdictFor(cluster, spec(to, 80)));
          expect(m.reason).toBeUndefined();
          expect(m.allowed).toBe(false);
          expect(m.ingress?.allowed).toBe(false);
          expect(m.ingress?.tier).toBe(policy === adminDeny ? 'admin' : 'networkpolicy');
        }
      });
      it('the same through the words of a question', () => {
        const a = ask(cluster, 'can shop/api-1 reach shop/svc/api on 80?');
        if (isParseFailure(a)) throw new Error(a.error);
        expect(a.text).toMatch(/^No\b/);
      });
    });
  }
  it('through its Service with nothing that denies it: allowed by the default, not as loopback', () => {
    const m = member(verdictFor(clusterOf(base), spec({ pod: 'shop/svc/api' }, 80)));
    expect(m.allowed).toBe(true);
    expect(m.reason).toBeUndefined();
    expect(m.ingress?.tier).toBe('default');
  });
});
