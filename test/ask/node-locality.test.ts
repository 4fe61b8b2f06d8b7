// "what can a/p0 reach?" once answered "all 5 other pods" while "can a/p0 reach c/p3 on 1?"
// answered No: a/p0 is host-network, so its traffic is its node's, and "traffic to and from
// the node where a Pod is running is always allowed" — two pods alike in every rule but on
// different nodes had fallen into one class. The snapshot below is that case, reduced: a
// default-deny namespace with pods on both nodes, host-network pods on both nodes, a pod
// without an address.
import { describe, expect, it } from 'vitest';
import { answer, reach, type SetAnswer } from '../../core/ask/answer.js';
import { clusterOf, namespace, networkPolicy, node, pod } from '../support/cluster-builders.js';
import { canReach, matrixMismatches, reachMismatches } from '../support/reach-consistency.js';

const pending = (key: string, nodeName: string) => {
  const [ns, name] = key.split('/');
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { nodeName, containers: [{ name: 'main' }] }, status: { phase: 'Pending' } };
};

const cluster = clusterOf([
  namespace('a'),
  namespace('c'),
  node('n1', '172.18.0.2'),
  node('n2', '172.18.0.3'),
  pod('a/p0', { ip: '172.18.0.2', node: 'n1', hostNetwork: true }),
  pod('a/p1', { ip: '10.0.0.50', node: 'n1' }),
  pod('a/h2', { ip: '172.18.0.3', node: 'n2', hostNetwork: true }),
  pod('c/p3', { ip: '10.0.0.130', node: 'n2' }),
  pod('c/p4', { ip: '10.0.0.170', node: 'n1' }),
  pending('c/p5', 'n1'),
  // Isolates every pod of c for ingress with no rule: only node-local traffic gets in.
  networkPolicy('c/deny-ingress', { podSelector: {}, policyTypes: ['Ingress'] }),
]);

const reachable = (q: Parameters<typeof reach>[1]) =>
  reach(cluster, q).flatMap((c) => (c.ports !== '' ? c.members.map((m) => m.key) : [])).sort();

describe('a host-network source reaches the pods of its own node only, where policies deny the rest', () => {
  it('"can" answers: node-local yes, the other node no', () => {
    expect(canReach(cluster, { pod: 'a/p0' }, { pod: 'c/p3' }, 1, 'TCP')).toBe(false);
    expect(canReach(cluster, { pod: 'a/p0' }, { pod: 'c/p4' }, 1, 'TCP')).toBe(true);
    expect(canReach(cluster, { pod: 'a/p0' }, { pod: 'c/p5' }, 1, 'TCP')).toBe(true);
    expect(canReach(cluster, { pod: 'a/h2' }, { pod: 'c/p3' }, 1, 'TCP')).toBe(true);
  });

  it('"what can a/p0 reach" lists the same pods, with or without a port', () => {
    expect(reachable({ kind: 'what', from: { pod: 'a/p0' }, port: 1, protocol: 'TCP' })).toEqual(['a/h2', 'a/p1', 'c/p4', 'c/p5']);
    expect(reachable({ kind: 'what', from: { pod: 'a/p0' }, port: null, protocol: null })).toEqual(['a/h2', 'a/p1', 'c/p4', 'c/p5']);
    const a = answer(cluster, { kind: 'what', from: { pod: 'a/p0' }, port: null, protocol: null }) as SetAnswer;
    expect(a.text).toMatch(/^a\/p0 can reach 4 of 5 other pods/);
  });

  it('the node address asks the same as the host-network pod on it', () => {
    expect(reachable({ kind: 'what', from: { ip: '172.18.0.2' }, port: 1, protocol: 'TCP' })).toEqual(['a/h2', 'a/p0', 'a/p1', 'c/p4', 'c/p5']);
    expect(reachable({ kind: 'what', from: { ip: '172.18.0.3' }, port: 1, protocol: 'TCP' })).toEqual(['a/h2', 'a/p0', 'a/p1', 'c/p3']);
  });

  it('"who can reach c/p3": the host-network pod of its node, not the one on the other node', () => {
    expect(reachable({ kind: 'who', to: { pod: 'c/p3' }, port: 1, protocol: 'TCP' })).toEqual(['a/h2']);
  });

  it('every set answer and matrix cell agrees with the single-flow answers', () => {
    const fixed = [...cluster.pods.map((p) => ({ pod: p.key })), { ip: '172.18.0.2' }, { ip: '172.18.0.3' }, { ip: '192.0.2.9' }];
    for (const f of fixed) expect(reachMismatches(cluster, f, 1, 'TCP')).toEqual([]);
    expect(matrixMismatches(cluster, 1, 'TCP')).toEqual([]);
  });
});
