// openstack-sg's regions (core/sets/regions.ts) class addresses by the sets a table names; a
// ports set's addresses are alike only when they carry the same ports. Here an egress named port
// resolves to a different number on each destination pod, under an Admin Deny (so the table is
// written as regions): each pod is open on its own port only, as the verdict engine says.
// The classes of the large sets tables share are made once per rendering (RegionClasses) and
// refined per table: the regions are those of every table's sets classed at once, on random set
// forms with any list counted large, and on 1,500 pods under one Admin Deny with the real bar.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openstackSg } from '../../core/render/openstack-sg.js';
import { compileSets } from '../../core/sets/compile.js';
import { permittedRegionsOfTable, RegionClasses, SHARED_RANGES } from '../../core/sets/regions.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import type { SetIr } from '../../core/sets/ir.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, verdict } from '../support/cluster-builders.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(300);

/** Every table's regions with the large lists' classes shared from `sharedRanges` ranges, in table order. */
function regionsWith(ir: SetIr, sharedRanges: number): string {
  const sim = new SetIrSimulator(ir);
  const classes = new RegionClasses(sharedRanges);
  return JSON.stringify([...ir.tables.entries()].map(([id, t]) => [id, permittedRegionsOfTable(ir, t, sim, classes)]), (_, v) => (typeof v === 'bigint' ? v.toString() : v));
}

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

describe('openstack-sg regions from shared classes', () => {
  it(`are those of each table's sets classed at once, with any list counted large or none, on ${RUNS} random snapshots`, () => {
    assertProperty(
      fc.property(snapshotArb, (snapshot) => {
        const { ir } = compileSets(generatedCluster(snapshot));
        // Nothing shared: each table's lists classed alone, as before the classes were shared.
        const alone = regionsWith(ir, Infinity);
        for (const bar of [0, 1, 2]) expect(regionsWith(ir, bar), `lists of ${bar} ranges or more shared`).toBe(alone);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`answer as the verdict engine does where one Admin Deny names ${SHARED_RANGES}+ pods that every table shares`, () => {
    // Pods two addresses apart, so the denied set keeps a range per pod; each web pod's own
    // NetworkPolicy names a small set of its own, refining the shared classes per table.
    const n = SHARED_RANGES + 476;
    const ip = (i: number) => `10.1.${(2 * i) >> 8}.${(2 * i) & 255}`;
    const objects = [node('n1', '172.18.0.2'), namespace('shop'), namespace('batch')];
    for (let i = 0; i < n; i++) objects.push(pod(`batch/job-${i}`, { ip: ip(i), node: 'n1', labels: { app: 'job' } }));
    for (let i = 0; i < 4; i++) {
      objects.push(pod(`shop/web-${i}`, { ip: `10.0.0.${10 + i}`, node: 'n1', labels: { app: `web-${i}` } }));
      objects.push(networkPolicy(`shop/web-${i}`, { podSelector: { matchLabels: { app: `web-${i}` } }, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: `10.1.0.0/${22 + i}` } }] }] }));
    }
    objects.push(adminNetworkPolicy('no-batch', 10, { subject: { namespaces: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } } }, egress: [{ name: 'deny-some-jobs', action: 'Deny', to: [{ pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'job' } } } }], ports: [{ portNumber: { protocol: 'TCP', port: 80 } }] }] }));
    const cluster = clusterOf(objects);
    const { ir } = compileSets(cluster);
    const egress = [0, 1, 2, 3].map((i) => ir.tables.get(ir.nodes['n1']!.pods[`shop/web-${i}`]!.egress)!);
    const denied = ir.sets.get(egress[0]!.admin[0]!.set!)!;
    expect(denied.kind === 'addresses' && denied.v4.length).toBeGreaterThanOrEqual(SHARED_RANGES);
    expect(new Set(egress.map((t) => t.networkPolicy.rules[0]!.set)).size).toBe(4);
    expect(regionsWith(ir, SHARED_RANGES)).toBe(regionsWith(ir, Infinity));
    const sim = openstackSg.simulator(openstackSg.render(ir));
    const seen = new Set<string>();
    for (let w = 0; w < 4; w++) {
      for (const j of [0, 1, 127, 128, 255, 256, 511, 512, 1023, n - 1]) {
        for (const port of [80, 443]) {
          const expected = verdict(cluster, `shop/web-${w}`, `batch/job-${j}`, port).allowed;
          seen.add(`${port} ${expected}`);
          expect(sim.allowed({ src: `10.0.0.${10 + w}`, dst: ip(j), protocol: 'TCP', port }), `web-${w} → job-${j}:${port}`).toBe(expected);
        }
      }
    }
    // Denied on 80 everywhere; on 443 allowed inside each web pod's own block only.
    expect([...seen].sort()).toEqual(['443 false', '443 true', '80 false']);
  });
});
