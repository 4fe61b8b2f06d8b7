// openstack-sg writes a table with Deny or Pass that matter as the regions it leaves allowed: a
// region's addresses once, as an address group, and a rule per port range naming it. A small
// policy can still need more than a group's limit, and is refused as it is written.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { LimitError } from '../../core/limits.js';
import { OPENSTACK_SG_MAX_RULES_PER_GROUP, openstackSg } from '../../core/render/openstack-sg.js';
import { compileSets } from '../../core/sets/compile.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

/** One pod on node n1 and one AdminNetworkPolicy with these egress rules. */
function snapshot(egress: object[]) {
  const items = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'x' } } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'x' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: '10.1.0.1' } },
    { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'wide' }, spec: { priority: 1, subject: { namespaces: {} }, egress } },
  ];
  const parsed = parseSnapshot({ apiVersion: 'v1', kind: 'List', items });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return compileSets(buildCluster(parsed.snapshot)).ir;
}

/** Deny one address, allow `allows` rules of 25 networks × 100 port ranges, then deny the rest. */
function portRanges(allows: number) {
  const egress: object[] = [{ name: 'deny', action: 'Deny', to: [{ networks: ['192.0.2.1/32'] }] }];
  for (let r = 0; r < allows; r++) {
    const networks = Array.from({ length: 25 }, (_, i) => `${11 + r}.${i * 2}.0.0/16`);
    const ports = Array.from({ length: 100 }, (_, i) => ({ portRange: { protocol: 'TCP', start: 1000 + i * 20 + r, end: 1005 + i * 20 + r } }));
    egress.push({ name: `allow${r}`, action: 'Allow', to: [{ networks }], ports });
  }
  egress.push({ name: 'rest', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] });
  return snapshot(egress);
}

/** Deny `holes` scattered addresses, then allow every IPv4 address: one region of many CIDRs. */
function holes(n: number) {
  const networks = Array.from({ length: n }, (_, i) => `${11 + (i % 200)}.${(i * 7) % 256}.${(i * 13) % 256}.${1 + 2 * (i % 100)}/32`);
  // The API's own limits: 25 networks per peer, 100 peers per rule.
  const peers = Array.from({ length: Math.ceil(n / 25) }, (_, p) => ({ networks: networks.slice(p * 25, p * 25 + 25) }));
  const deny = Array.from({ length: Math.ceil(peers.length / 100) }, (_, r) => ({ name: `holes${r}`, action: 'Deny', to: peers.slice(r * 100, r * 100 + 100) }));
  return snapshot([...deny, { name: 'rest', action: 'Allow', to: [{ networks: ['0.0.0.0/0'] }] }]);
}

describe('openstack-sg regions', () => {
  it('writes a region\'s addresses once, as an address group, and a rule per port range naming it', () => {
    const node = openstackSg.render(portRanges(1)).n1!;
    const rules = node.security_groups.flatMap((g) => g.security_group_rules);
    // Egress, TCP: 100 allowed ranges × (the 25 networks' group + IPv6, which no rule denies) and
    // the 101 ranges between them (IPv6 alone); UDP and SCTP: IPv6 on every port, a rule each.
    // Ingress: not isolated, so any address of each family.
    expect(rules.length).toBe(100 * 2 + 101 + 2 + 2);
    const regional = node.address_groups.filter((g) => g.name.startsWith('netpolc-region-'));
    expect(regional.map((g) => g.addresses.length)).toEqual([25]);
    expect(rules.filter((r) => r.remote_address_group_id === regional[0]!.name)).toHaveLength(100);
  });

  it('names a region group by its addresses: the same addresses on two nodes, one name', () => {
    const a = openstackSg.render(holes(10)).n1!.address_groups.filter((g) => g.name.startsWith('netpolc-region-'));
    const b = openstackSg.render(holes(10)).n1!.address_groups.filter((g) => g.name.startsWith('netpolc-region-'));
    expect(a).toHaveLength(1);
    expect(a).toEqual(b);
    expect(openstackSg.render(holes(11)).n1!.address_groups.find((g) => g.name.startsWith('netpolc-region-'))!.name).not.toBe(a[0]!.name);
  });

  it(`refuses a small snapshot whose region needs more than ${OPENSTACK_SG_MAX_RULES_PER_GROUP} rules and addresses in one group, naming the node, the table and the limit`, () => {
    const ir = holes(4000);
    expect(() => openstackSg.render(ir)).toThrow(LimitError);
    expect(() => openstackSg.render(ir)).toThrow(new RegExp(`^node n1: openstack-sg needs more than ${OPENSTACK_SG_MAX_RULES_PER_GROUP} security group rules and region addresses for table r[0-9a-f]{16} \\(the limit per group\\)`));
    // A quarter of the holes fits.
    expect(() => openstackSg.render(holes(1000))).not.toThrow();
  });
});
