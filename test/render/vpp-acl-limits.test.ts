// vpp-acl's per-node limits (core/render/vpp-acl.ts): ACL rules, exactly at the boundary, and
// table rules read combining pod pairs.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { LimitError } from '../../core/limits.js';
import { renderVppAcl, VPP_ACL_LIMITS, vppAcl } from '../../core/render/vpp-acl.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { exceptedPorts, wideAdminPolicy } from '../support/hostile.js';

const irOf = (items: unknown[]) => {
  const parsed = parseSnapshot({ apiVersion: 'v1', kind: 'List', items });
  if (!parsed.ok) throw new Error('snapshot invalid');
  return compile(buildCluster(parsed.snapshot)).ir;
};

describe('vpp-acl limits', () => {
  const ir = irOf(exceptedPorts(40, 20));
  const rendered = vppAcl.render(ir)['n1']!;
  const aclRules = rendered.acls.reduce((n, a) => n + a.rules.length, 0);

  it('renders a node with exactly its ACL rule count as the limit, and refuses it one rule short, naming the node', () => {
    expect(aclRules).toBeGreaterThan(1000);
    expect(renderVppAcl(ir, { ...VPP_ACL_LIMITS, rules: aclRules })['n1']).toEqual(rendered);
    expect(() => renderVppAcl(ir, { ...VPP_ACL_LIMITS, rules: aclRules - 1 })).toThrow(
      new LimitError(`node n1: vpp-acl needs more than ${aclRules - 1} ACL rules on this node (the limit): CombineRules folds the other pods' rules into a copy of each pod's table; nftables and iptables keep one table per policy group over shared sets`),
    );
  });

  it('refuses a node whose pod pairs would read its tables past the lookup limit', () => {
    // 200 pods on two nodes under one wide AdminNetworkPolicy: every pod pair is combined.
    const wide = irOf(wideAdminPolicy(200, 4, 4));
    expect(Object.keys(vppAcl.render(wide))).toEqual(['node-1', 'node-2']);
    expect(() => renderVppAcl(wide, { ...VPP_ACL_LIMITS, lookups: 10_000 })).toThrow(/^node node-1: vpp-acl would read more than 10000 table rules combining this node's tables \(the limit\)/);
  });
});
