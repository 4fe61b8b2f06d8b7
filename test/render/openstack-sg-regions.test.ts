// openstack-sg's regions (core/sets/regions.ts) class addresses by the sets a table names; a
// ports set's addresses are alike only when they carry the same ports. Here an egress named port
// resolves to a different number on each destination pod, under an Admin Deny (so the table is
// written as regions): each pod is open on its own port only, as the verdict engine says.
import { describe, expect, it } from 'vitest';
import { openstackSg } from '../../core/render/openstack-sg.js';
import { compileSets } from '../../core/sets/compile.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, verdict } from '../support/cluster-builders.js';

describe('openstack-sg regions over an egress named port', () => {
  const http = (port: number) => [{ name: 'http', containerPort: port, protocol: 'TCP' as const }];
  const cluster = clusterOf([
    node('n1', '172.18.0.2'),
    namespace('shop'),
    namespace('other'),
    pod('shop/web', { ip: '10.0.0.2', node: 'n1', labels: { app: 'web' } }),
    pod('shop/a', { ip: '10.0.0.3', node: 'n1', labels: { app: 'a' }, ports: http(8080) }),
    pod('shop/b', { ip: '10.0.0.4', node: 'n1', labels: { app: 'b' }, ports: http(9090) }),
    pod('shop/c', { ip: '10.0.0.5', node: 'n1', labels: { app: 'c' }, ports: http(8080) }),
    pod('other/x', { ip: '10.0.1.9', node: 'n1' }),
    adminNetworkPolicy('no-other', 10, { subject: { namespaces: {} }, egress: [{ name: 'deny-other', action: 'Deny', to: [{ namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } } }] }] }),
    networkPolicy('shop/web-http', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'http' }] }] }),
  ]);
  const { ir } = compileSets(cluster);
  const sim = openstackSg.simulator(openstackSg.render(ir));

  it('is written as regions (the Deny matters) and answers as the verdict engine does', () => {
    const web = ir.nodes['n1']!.pods['shop/web']!;
    expect(ir.tables.get(web.egress)!.admin.map((r) => r.action)).toEqual(['deny']);
    for (const [to, ip] of [['shop/a', '10.0.0.3'], ['shop/b', '10.0.0.4'], ['shop/c', '10.0.0.5'], ['other/x', '10.0.1.9']] as const) {
      for (const port of [8080, 9090]) {
        const expected = verdict(cluster, 'shop/web', to, port).allowed;
        expect(sim.allowed({ src: '10.0.0.2', dst: ip, protocol: 'TCP', port }), `${to} ${port}`).toBe(expected);
      }
    }
    expect(verdict(cluster, 'shop/web', 'shop/a', 8080).allowed).toBe(true);
    expect(verdict(cluster, 'shop/web', 'shop/a', 9090).allowed).toBe(false);
    expect(verdict(cluster, 'shop/web', 'shop/b', 9090).allowed).toBe(true);
    expect(verdict(cluster, 'shop/web', 'shop/b', 8080).allowed).toBe(false);
  });
});
