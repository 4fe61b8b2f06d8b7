// A rule's ipBlock peers compile to one address set and one set rule (policy/rule-addresses.ts
// ruleSetPeers), holding exactly what one of the peers matches: an except of one ipBlock that
// another ipBlock of the rule covers stays in the set.
import { describe, expect, it } from 'vitest';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import { clusterOf, namespace, networkPolicy, node, pod, verdict } from '../support/cluster-builders.js';

const objects = (egress: unknown[]) => [
  node('n1', '172.18.0.2'),
  namespace('shop'),
  pod('shop/web', { ip: ['10.0.0.2', 'fd00::2'], node: 'n1', labels: { app: 'web' }, ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }),
  pod('shop/db', { ip: '10.0.1.7', node: 'n1', labels: { app: 'db' }, ports: [{ name: 'http', containerPort: 8081, protocol: 'TCP' }] }),
  networkPolicy('shop/web-out', { podSelector: { matchLabels: { app: 'web' } }, policyTypes: ['Egress'], egress }),
];

const egressTable = (cluster: ReturnType<typeof clusterOf>) => {
  const { ir } = compileSets(cluster);
  const web = ir.nodes['n1']!.pods['shop/web']!;
  return { ir, table: ir.tables.get(web.egress)! };
};

describe("a rule's ipBlock peers are one set", () => {
  const to = [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }, { ipBlock: { cidr: '10.0.1.0/28' } }, { ipBlock: { cidr: '192.168.0.0/16', except: ['192.168.7.0/24'] } }, { ipBlock: { cidr: 'fd00::/64' } }];

  it('one rule over one set, members the union of each block less its own excepts', () => {
    const cluster = clusterOf(objects([{ to, ports: [{ port: 5432 }] }]));
    const { ir, table } = egressTable(cluster);
    expect(table.networkPolicy.rules).toHaveLength(1);
    const set = ir.sets.get(table.networkPolicy.rules[0]!.set!)!;
    expect(set.kind).toBe('addresses');
    if (set.kind !== 'addresses') return;
    // 10.0.1.0/28 is excepted from the /16 but matched by the second block.
    expect(set.v4).toEqual(['10.0.0.0/24', '10.0.1.0/28', '10.0.2.0/23', '10.0.4.0/22', '10.0.8.0/21', '10.0.16.0/20', '10.0.32.0/19', '10.0.64.0/18', '10.0.128.0/17', '192.168.0.0/22', '192.168.4.0/23', '192.168.6.0/24', '192.168.8.0/21', '192.168.16.0/20', '192.168.32.0/19', '192.168.64.0/18', '192.168.128.0/17']);
    expect(set.v6).toEqual(['fd00::/64']);
    expect(set.definition).toEqual({ type: 'cidrs', cidrs: ['10.0.0.0/16', '192.168.0.0/16', 'fd00::/64'], except: ['10.0.1.16/28', '10.0.1.32/27', '10.0.1.64/26', '10.0.1.128/25', '192.168.7.0/24'] });
  });

  it('the set form answers as the verdict engine does, in and out of the excepts', () => {
    const cluster = clusterOf(objects([{ to, ports: [{ port: 5432 }] }]));
    const { ir } = egressTable(cluster);
    const sim = new SetIrSimulator(ir);
    for (const dst of ['10.0.1.7', '10.0.1.20', '10.0.2.9', '192.168.7.1', '192.168.8.1', 'fd00::9', 'fd01::1']) {
      const v = verdict(cluster, 'shop/web', dst, 5432);
      expect(sim.simulate(dst.includes(':') ? 'fd00::2' : '10.0.0.2', dst, 'TCP', 5432).allowed, dst).toBe(v.allowed);
    }
    // In the /16's except and in the /28 (db's address too); in the except only.
    expect(verdict(cluster, 'shop/web', '10.0.1.7', 5432).allowed).toBe(true);
    expect(verdict(cluster, 'shop/web', '10.0.1.20', 5432).allowed).toBe(false);
    expect(verdict(cluster, 'shop/web', 'fd01::1', 5432).allowed).toBe(false);
  });

  it('an egress named port over the blocks is one ports set of the pods they match', () => {
    const cluster = clusterOf(objects([{ to: [{ ipBlock: { cidr: '10.0.0.0/24' } }, { ipBlock: { cidr: '10.0.1.0/24', except: ['10.0.1.0/29'] } }], ports: [{ port: 'http' }] }]));
    const { ir, table } = egressTable(cluster);
    expect(table.networkPolicy.rules).toHaveLength(1);
    const set = ir.sets.get(table.networkPolicy.rules[0]!.set!)!;
    expect(set.kind).toBe('ports');
    // web's own port is in (10.0.0.0/24); db's 10.0.1.7 is excepted (10.0.1.0/29).
    if (set.kind === 'ports') expect(set.elements).toEqual([['10.0.0.2', 'TCP', 8080]]);
  });

  it('other peers keep their own sets, in order', () => {
    const cluster = clusterOf(objects([{ to: [{ ipBlock: { cidr: '10.0.0.0/24' } }, { podSelector: { matchLabels: { app: 'db' } } }, { ipBlock: { cidr: '10.9.0.0/24' } }] }]));
    const { ir, table } = egressTable(cluster);
    expect(table.networkPolicy.rules.map((r) => (ir.sets.get(r.set!)!.definition as { type: string }).type)).toEqual(['cidrs', 'pods']);
  });
});
