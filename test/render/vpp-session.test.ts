// Regression cases for vpp-session found by the renderer property test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { LimitError } from '../../core/limits.js';
import { renderVppSession, VPP_SESSION_LIMITS, vppSession } from '../../core/render/vpp-session.js';
import { run } from '../support/cli.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

describe('vpp-session', () => {
  it('evaluates local tables on the common refinement of every consulted table\'s port segments', () => {
    // p0 may send TCP 81 only; local destinations deny all ingress. Segments of the two
    // tables used to be concatenated, not refined, and TCP 1000 to a node came out allowed.
    const parsed = parseSnapshot(JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'vpp-session-segments.json'), 'utf8')));
    if (!parsed.ok) throw new Error('fixture invalid');
    const sim = vppSession.simulator(vppSession.render(compile(buildCluster(parsed.snapshot)).ir));
    expect(sim.allowed({ src: '10.0.0.10', dst: '172.18.0.2', protocol: 'TCP', port: 1000 })).toBe(false);
    expect(sim.allowed({ src: '10.0.0.10', dst: '172.18.0.2', protocol: 'TCP', port: 81 })).toBe(true);
    expect(sim.allowed({ src: '10.0.0.10', dst: '10.0.0.50', protocol: 'TCP', port: 81 })).toBe(false);
  });
});

describe('vpp-session limits', () => {
  const parsed = parseSnapshot(JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'vpp-session-segments.json'), 'utf8')));
  if (!parsed.ok) throw new Error('fixture invalid');
  const ir = compile(buildCluster(parsed.snapshot)).ir;
  const rulesOn = (node: string) => vppSession.render(ir)[node]!.rules.length;

  it('renders a node with exactly its rule count as the limit, and refuses it one rule short, naming the node', () => {
    const node = Object.keys(ir.nodes).sort((a, b) => rulesOn(b) - rulesOn(a))[0]!;
    const n = rulesOn(node);
    const only = { nodes: { [node]: ir.nodes[node]! } };
    expect(renderVppSession(only, { ...VPP_SESSION_LIMITS, rules: n })[node]).toEqual(vppSession.render(only)[node]);
    expect(() => renderVppSession(only, { ...VPP_SESSION_LIMITS, rules: n - 1 })).toThrow(new LimitError(`node ${node}: vpp-session needs more than ${n - 1} session rules on this node (the limit): VPPTCP session rules take single ports, and port ranges expand to one rule per port`));
  });

  it('refuses a node whose tables would be read past the lookup limit', () => {
    expect(() => renderVppSession(ir, { ...VPP_SESSION_LIMITS, lookups: 10 })).toThrow(/^node \S+: vpp-session would read more than 10 table rules to build this node's session rules \(the limit\)/);
  });

  it('refuses, through the CLI, a small snapshot whose port ranges expand past the rule limit: a message and exit 2, no stack', () => {
    // One NetworkPolicy allowing ports 1000-30999 from a /24 to three pods: 30,000 session rules per pod.
    const items = [
      ...['a', 'b', 'c'].map((n, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n, namespace: 'x' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: `10.1.0.${i + 1}` } })),
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'wide', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 1000, endPort: 30999 }] }] } },
    ];
    const r = run(['compile', '--format', 'vpp-session', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`node n1: vpp-session needs more than ${VPP_SESSION_LIMITS.rules} session rules on this node (the limit)`);
    expect(r.err).not.toMatch(/^\s+at /m);
  });
});
