// CombineRules (core/compile/combine.ts) reads each table once per class of addresses its rules'
// networks hold alike. Here one node's pods each decide differently per peer address (ingress
// from one pod only, egress to one pod only, both ways), so a combined table that read one
// address's decisions for another would admit or drop the wrong local pairs: every local pair,
// on the allowed port and another, answers as the verdict engine does.
import { describe, expect, it } from 'vitest';
import { compile } from '../../core/compile/compile.js';
import { vppAcl } from '../../core/render/vpp-acl.js';
import { clusterOf, namespace, networkPolicy, node, pod, verdict } from '../support/cluster-builders.js';

describe('vpp-acl CombineRules over address-dependent tables', () => {
  const names = ['a', 'b', 'c', 'd'];
  const ip = (n: string) => `10.0.0.${names.indexOf(n) + 2}`;
  const cluster = clusterOf([
    node('n1', '172.18.0.2'),
    namespace('shop'),
    ...names.map((n) => pod(`shop/${n}`, { ip: ip(n), node: 'n1', labels: { app: n } })),
    // c admits b only; d sends to a only; b admits d only, on 80.
    networkPolicy('shop/c-from-b', { podSelector: { matchLabels: { app: 'c' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }], ports: [{ port: 80 }] }] }),
    networkPolicy('shop/d-to-a', { podSelector: { matchLabels: { app: 'd' } }, policyTypes: ['Egress'], egress: [{ to: [{ podSelector: { matchLabels: { app: 'a' } } }], ports: [{ port: 80 }] }] }),
    networkPolicy('shop/b-from-d', { podSelector: { matchLabels: { app: 'b' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'd' } } }], ports: [{ port: 80 }] }] }),
  ]);
  const sim = vppAcl.simulator(vppAcl.render(compile(cluster).ir));

  it('every local pair on 80 and 81 as the verdict engine answers', () => {
    let allowed = 0;
    for (const from of names)
      for (const to of names) {
        if (from === to) continue;
        for (const port of [80, 81]) {
          const expected = verdict(cluster, `shop/${from}`, `shop/${to}`, port).allowed;
          expect(sim.allowed({ src: ip(from), dst: ip(to), protocol: 'TCP', port }), `${from} → ${to} ${port}`).toBe(expected);
          if (expected) allowed++;
        }
      }
    // Neither all open nor all closed: b → c and d → a on 80, a and c to each other, …
    expect(allowed).toBeGreaterThan(2);
    expect(allowed).toBeLessThan(24);
    expect(verdict(cluster, 'shop/b', 'shop/c', 80).allowed).toBe(true);
    expect(verdict(cluster, 'shop/a', 'shop/c', 80).allowed).toBe(false);
    expect(verdict(cluster, 'shop/d', 'shop/b', 80).allowed).toBe(false);
  });
});
