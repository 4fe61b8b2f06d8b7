// A Baseline rule denying one port for TCP, UDP and SCTP is combined into one flat rule of any
// protocol with that port; a VPP ACL rule of protocol 0 has no port match, so it must be written
// per protocol, or it denies every port (found by the renderer property, seed 253549147).
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { compileSets } from '../../core/sets/compile.js';
import { DATAPLANES, renderFormat } from '../../core/render/index.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

const pod = (name: string, namespace: string, ip: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: {} }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } });
const snapshot = {
  items: [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'c' } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } },
    pod('p0', 'a', '10.0.0.10'),
    pod('p1', 'c', '10.0.0.50'),
    {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'BaselineAdminNetworkPolicy',
      metadata: { name: 'default' },
      spec: {
        subject: { namespaces: {} },
        ingress: [
          { action: 'Deny', from: [{ namespaces: {} }], ports: [{ portNumber: { protocol: 'UDP', port: 5432 } }, { portNumber: { protocol: 'SCTP', port: 5432 } }] },
          { action: 'Deny', from: [{ namespaces: {} }], ports: [{ portNumber: { protocol: 'TCP', port: 5432 } }] },
        ],
      },
    },
  ],
};

describe('vpp-acl', () => {
  it('writes a rule of any protocol with a port as one rule per protocol, with the port', () => {
    const parsed = parseSnapshot(snapshot);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const cluster = buildCluster(parsed.snapshot);
    const flat = compile(cluster).ir;
    // The premise: the flat table holds the combined rule.
    expect(Object.values(flat.nodes.n1!.tables).some((t) => t.some((r) => r.protocol === 'ANY' && r.dstPortRange?.[0] === 5432))).toBe(true);
    const dp = DATAPLANES['vpp-acl']!;
    const out = renderFormat(dp, () => compileSets(cluster).ir, () => flat);
    const sim = dp.simulator(out);
    const from = { src: '10.0.0.10', dst: '10.0.0.50' };
    expect(sim.allowed({ ...from, protocol: 'TCP', port: 1 })).toBe(true);
    expect(sim.allowed({ ...from, protocol: 'UDP', port: 1 })).toBe(true);
    expect(sim.allowed({ ...from, protocol: 'TCP', port: 5432 })).toBe(false);
    expect(sim.allowed({ ...from, protocol: 'UDP', port: 5432 })).toBe(false);
    expect(JSON.stringify(out)).toContain('SCTP port ranges cannot be expressed');
  });
});
