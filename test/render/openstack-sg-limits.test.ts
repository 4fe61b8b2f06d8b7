// openstack-sg writes a table with Deny or Pass that matter as the regions it leaves allowed, in
// CIDR rules; a small policy can need more than a group's limit, and is refused as it is written.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { LimitError } from '../../core/limits.js';
import { OPENSTACK_SG_MAX_RULES_PER_GROUP, openstackSg } from '../../core/render/openstack-sg.js';
import { compileSets } from '../../core/sets/compile.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

/** One pod; an AdminNetworkPolicy denying one address, allowing `allows` rules of 25 networks × 100 port ranges, then denying the rest. */
function snapshot(allows: number) {
  const egress: object[] = [{ name: 'deny', action: 'Deny', to: [{ networks: ['192.0.2.1/32'] }] }];
  for (let r = 0; r < allows; r++) {
    const networks = Array.from({ length: 25 }, (_, i) => `${11 + r}.${i * 2}.0.0/16`);
    const ports = Array.from({ length: 100 }, (_, i) => ({ portRange: { protocol: 'TCP', start: 1000 + i * 20 + r, end: 1005 + i * 20 + r } }));
    egress.push({ name: `allow${r}`, action: 'Allow', to: [{ networks }], ports });
  }
  egress.push({ name: 'rest', action: 'Deny', to: [{ networks: ['0.0.0.0/0'] }] });
  const items = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { 'kubernetes.io/metadata.name': 'x' } } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'x' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: '10.1.0.1' } },
    { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'wide' }, spec: { priority: 1, subject: { namespaces: {} }, egress } },
  ];
  const parsed = parseSnapshot({ apiVersion: 'v1', kind: 'List', items });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return compileSets(buildCluster(parsed.snapshot)).ir;
}

describe('openstack-sg rules per security group', () => {
  it('writes the regions one such rule leaves: a rule per allowed port range and network', () => {
    const groups = openstackSg.render(snapshot(1)).n1!.security_groups;
    const rules = groups.reduce((n, g) => n + g.security_group_rules.length, 0);
    // Egress, TCP: 100 allowed ranges × (25 networks + IPv6, which no rule denies) and the 101
    // ranges between them (IPv6 alone); UDP and SCTP: IPv6 on every port, a rule each. Ingress:
    // not isolated, so any address of each family.
    expect(rules).toBe(100 * 26 + 101 + 2 + 2);
  });

  it(`refuses a 50 kB snapshot whose regions need more than ${OPENSTACK_SG_MAX_RULES_PER_GROUP} rules in one group, naming the node, the table and the limit`, () => {
    const ir = snapshot(8);
    expect(() => openstackSg.render(ir)).toThrow(LimitError);
    expect(() => openstackSg.render(ir)).toThrow(new RegExp(`^node n1: openstack-sg needs more than ${OPENSTACK_SG_MAX_RULES_PER_GROUP} security group rules for table r[0-9a-f]{16} \\(the limit per group\\)`));
  });
});
