// A lint universe's peer pods: one per pod class and address class (core/lint/universe.ts over
// core/lint/pod-endpoints.ts), however many address classes one pod class shows.
import { describe, expect, it } from 'vitest';
import { buildUniverse, selectedPods } from '../../core/lint/cells.js';
import { clusterOf, namespace, networkPolicy, node, pod } from '../support/cluster-builders.js';

const PODS = 40;
const pods = Array.from({ length: PODS }, (_, i) => pod(`x/a-${i}`, { ip: `10.0.1.${i + 1}`, node: 'n1', labels: { app: 'a' } }));

function peerPods(blocks: (i: number) => string) {
  const rules = Array.from({ length: PODS }, (_, i) => ({ from: [{ ipBlock: { cidr: blocks(i) } }] }));
  const cluster = clusterOf([namespace('x'), node('n1', '172.18.0.2'), ...pods, networkPolicy('x/blocks', { podSelector: {}, ingress: rules })]);
  const policy = cluster.policies.all[0]!;
  const u = buildUniverse(cluster, selectedPods(cluster, policy), policy.ingress!);
  return u.peers.pods.map((i) => u.peers.all[i]!).map((e) => (e.kind === 'pod' ? e.pod.key : e.kind));
}

describe('lint universe peer pods', () => {
  it('lists every pod of one class when each address is a class of its own (past the short list)', () => {
    expect(peerPods((i) => `10.0.1.${i + 1}/32`).sort()).toEqual(pods.map((_, i) => `x/a-${i}`).sort());
  });

  it('lists one pod per address class, also once a class has shown many (pairs of addresses in /31s)', () => {
    // .1–.40 in /31 blocks: .1 alone in .0/31, then pairs (.2, .3) … (.38, .39), and .40: 21 classes.
    const listed = peerPods((i) => `10.0.1.${2 * (i % 21)}/31`);
    expect(listed).toHaveLength(21);
    const block = (key: string) => Math.floor((Number(key.slice('x/a-'.length)) + 1) / 2);
    expect(new Set(listed.map(block)).size).toBe(21);
  });

  it('lists one pod for a class whose addresses every rule holds alike', () => {
    expect(peerPods(() => '10.0.1.0/24')).toEqual(['x/a-0']);
  });

  it('splits a class where a rule holds some of its addresses', () => {
    // /27 holds .0–.31: pods a-0..a-30 (.1–.31) alike, a-31..a-39 (.32–.40) alike.
    expect(peerPods(() => '10.0.1.0/27')).toEqual(['x/a-0', 'x/a-31']);
  });
});
