// Tables share a tier's set rules where that tier's rules say the same thing for their subjects
// (core/sets/tables.ts RuleTables, keyed by compile/group.ts Group.tiers). What a tier's rules
// read of the subject — its namespace for the KEP-2091 draft's relative peers, its ports for
// ingress named ports — keeps tiers apart; random snapshots rarely put two subjects where only
// that tells them apart, so these cases do, and hold every flow to the verdict engine.
import { describe, expect, it } from 'vitest';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import type { SetIr } from '../../core/sets/ir.js';
import { adminNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, verdict } from '../support/cluster-builders.js';

const everyNamespace = { namespaces: {} };

/** Every pair of pods on these ports: the set form's answer is the verdict engine's. */
function expectEngine(objects: readonly unknown[], pods: readonly [string, string][], ports: readonly number[]): SetIr {
  const cluster = clusterOf(objects);
  const { ir } = compileSets(cluster);
  const sim = new SetIrSimulator(ir);
  for (const [from, fromIp] of pods)
    for (const [to, toIp] of pods)
      for (const port of ports) {
        if (from === to) continue;
        const expected = verdict(cluster, from, to, port).allowed;
        expect(sim.simulate(fromIp, toIp, 'TCP', port).allowed, `${from} → ${to}:${port}`).toBe(expected);
      }
  return ir;
}

const tableOf = (ir: SetIr, pod: string, dir: 'ingress' | 'egress') => {
  for (const n of Object.values(ir.nodes)) if (n.pods[pod]) return ir.tables.get(n.pods[pod][dir])!;
  throw new Error(`no pod ${pod}`);
};

describe('tables sharing tiers', () => {
  const pods: [string, string][] = [
    ['a/web', '10.0.0.1'],
    ['a/db', '10.0.0.2'],
    ['b/web', '10.0.1.1'],
    ['b/db', '10.0.1.2'],
  ];
  const base = [node('n1', '172.18.0.2'), namespace('a', { labels: { team: 'x' } }), namespace('b', { labels: { team: 'y' } }), ...pods.map(([key, ip]) => pod(key, { ip, node: 'n1', labels: { app: key.split('/')[1]! } }))];

  it.each([
    ['related: Self', { related: 'Self' }],
    ['related: NotSelf', { related: 'NotSelf' }],
    ['sameLabels', { sameLabels: ['team'] }],
    ['notSameLabels', { notSameLabels: ['team'] }],
  ])('an Admin tier over %s peers is its own per subject namespace', (_, namespaces) => {
    // One AdminNetworkPolicy for every pod: allow from the relative namespaces, deny the rest.
    const anp = adminNetworkPolicy('relative', 1, {
      subject: everyNamespace,
      ingress: [
        { action: 'Allow', from: [{ namespaces }] },
        { action: 'Deny', from: [everyNamespace] },
      ],
    });
    // A NetworkPolicy in a only, so a's and b's groups differ in more than the Admin tier.
    const np = networkPolicy('a/web-80', { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ ports: [{ port: 80 }] }] });
    const ir = expectEngine([...base, anp, np], pods, [80]);
    expect(tableOf(ir, 'a/db', 'ingress').admin).not.toEqual(tableOf(ir, 'b/db', 'ingress').admin);
    // The same namespace, other NetworkPolicies: one Admin tier, the same rules object.
    expect(tableOf(ir, 'a/web', 'ingress')).not.toBe(tableOf(ir, 'a/db', 'ingress'));
    expect(tableOf(ir, 'a/web', 'ingress').admin).toBe(tableOf(ir, 'a/db', 'ingress').admin);
  });

  it('an ingress tier over a named port is its own per subject port', () => {
    const ports = (web: number) => [{ name: 'web', containerPort: web, protocol: 'TCP' as const }];
    const objects = [
      node('n1', '172.18.0.2'),
      namespace('a'),
      pod('a/one', { ip: '10.0.0.1', node: 'n1', labels: { app: 'x' }, ports: ports(80) }),
      pod('a/two', { ip: '10.0.0.2', node: 'n1', labels: { app: 'y' }, ports: ports(8080) }),
      pod('a/client', { ip: '10.0.0.3', node: 'n1', labels: { app: 'client' } }),
      adminNetworkPolicy('named', 1, {
        subject: everyNamespace,
        ingress: [
          { action: 'Allow', from: [everyNamespace], ports: [{ namedPort: 'web' }] },
          { action: 'Deny', from: [everyNamespace] },
        ],
      }),
    ];
    const ir = expectEngine(
      objects,
      [
        ['a/one', '10.0.0.1'],
        ['a/two', '10.0.0.2'],
        ['a/client', '10.0.0.3'],
      ],
      [80, 8080],
    );
    expect(tableOf(ir, 'a/one', 'ingress').admin).not.toEqual(tableOf(ir, 'a/two', 'ingress').admin);
  });
});
