// The nftables and iptables renderers, read back by their own simulators (which parse the
// rendered text, never the IR), equal the verdict engine: on random snapshots and flows, on
// every upstream case, and on hand-written shapes (determinism, sets and maps, ipBlock excepts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import { evaluate, type Verdict } from '../../core/evaluate/engine.js';
import { resolveFlow } from '../../core/evaluate/resolve.js';
import { iptables, type IptablesArtifact } from '../../core/render/iptables.js';
import { iptablesSimulator } from '../../core/render/iptables-sim.js';
import { nftables } from '../../core/render/nftables.js';
import { nftablesSimulator } from '../../core/render/nftables-sim.js';
import type { FlowQuery } from '../../core/render/types.js';
import { clusterOf, namespace, networkPolicy, node, pod } from '../support/cluster-builders.js';
import { checkedFlows, flowArb, snapshotArb, generatedCluster } from '../support/random-snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(1000);

/** Both dataplanes of one cluster, rendered from the set form and read back. */
function dataplanes(cluster: Cluster) {
  const sets = compileSets(cluster).ir;
  const ir = sets;
  const nft = nftables.render(sets);
  const ipt = iptables.render(sets);
  return { ir, sets, nft, ipt, nftSim: nftablesSimulator(nft), iptSim: iptablesSimulator(ipt) };
}

/** The chains a trace went through, as rendered, so a failure shows the rules themselves. */
function nftChains(scripts: Record<string, string>, trace: readonly string[]): string {
  const names = new Set(trace.flatMap((t) => [/^(\S+)\[\d+\]/.exec(t)?.[1], /jump (\S+)/.exec(t)?.[1]].filter((n): n is string => !!n)));
  return Object.entries(scripts)
    .flatMap(([node, s]) => [...names].map((n) => new RegExp(`\\tchain ${n} \\{\\n[\\s\\S]*?\\n\\t\\}`).exec(s)?.[0]).filter(Boolean).map((c) => `[${node}]\n${c}`))
    .join('\n');
}

function iptChains(payloads: Record<string, IptablesArtifact>, family: 4 | 6, trace: readonly string[]): string {
  const names = new Set(trace.flatMap((t) => [/^-A (\S+)/.exec(t)?.[1], / -[jg] (NPC-\S+)/.exec(t)?.[1]].filter((n): n is string => !!n)));
  return Object.entries(payloads)
    .map(([node, p]) => `[${node}]\n${(family === 4 ? p.ipv4 : p.ipv6).split('\n').filter((l) => names.has(l.split(' ')[1] ?? '')).join('\n')}`)
    .join('\n');
}

const sideTrace = (side: Verdict['egress']) => side?.trace.map((t) => t.message).join(' → ') ?? '(no side)';

/** Compares both simulators with the verdict; returns a report of every disagreement. */
function compare(dp: ReturnType<typeof dataplanes>, flow: FlowQuery, verdict: Verdict): string[] {
  const failures: string[] = [];
  const head = `flow ${flow.src} → ${flow.dst} ${flow.port}/${flow.protocol}: verdict ${verdict.allowed ? 'allow' : 'deny'}${verdict.reason ? ` (${verdict.reason})` : ''}`;
  const why = [`egress trace: ${sideTrace(verdict.egress)}`, `ingress trace: ${sideTrace(verdict.ingress)}`];
  const nft = dp.nftSim.explain(flow);
  if (nft.allowed !== verdict.allowed) failures.push([`${head}, nftables ${nft.allowed ? 'allow' : 'deny'}`, ...why, 'nft trace:', ...nft.trace, 'rendered chains:', nftChains(dp.nft, nft.trace)].join('\n'));
  const ipt = dp.iptSim.explain(flow);
  if (ipt.allowed !== verdict.allowed) failures.push([`${head}, iptables ${ipt.allowed ? 'allow' : 'deny'}`, ...why, 'iptables trace:', ...ipt.trace, 'rendered chains:', iptChains(dp.ipt, flow.src.includes(':') ? 6 : 4, ipt.trace)].join('\n'));
  return failures;
}

describe('nftables and iptables simulators equal the verdict engine', () => {
  it(`on ${RUNS} random snapshots, 40 flows each`, () => {
    let flowsChecked = 0;
    assertProperty(
      fc.property(snapshotArb, fc.array(flowArb, { minLength: 40, maxLength: 40 }), (snapshot, flows) => {
        const cluster = generatedCluster(snapshot);
        const dp = dataplanes(cluster);
        for (const { verdict, ...flow } of checkedFlows(cluster, dp.ir, flows)) {
          flowsChecked++;
          const failures = compare(dp, flow, verdict);
          if (failures.length > 0) throw new Error(failures.join('\n\n'));
        }
      }),
      { file: import.meta.url, env: ['PROPERTY_RUNS', 'PROPERTY_DEPTH'], numRuns: RUNS },
    );
    console.info(`render property: ${RUNS} snapshots, ${flowsChecked} flows checked against both simulators`);
    expect(flowsChecked).toBeGreaterThan(RUNS);
  }, 300_000);
});

// Random set forms beyond what compileSets emits are in set-form-renderers.property.test.ts.

// A pod that admits TCP/80 from 10.0.0.0/16 except two /24s, on a two-node cluster.
const exceptCluster = () =>
  clusterOf([
    namespace('a'),
    node('n1', '172.18.0.2', 'fc00::2'),
    node('n2', '172.18.0.3', 'fc00::3'),
    pod('a/server', { ip: ['10.0.0.10', 'fd00::10'], node: 'n1', labels: { app: 'server' } }),
    pod('a/client', { ip: ['10.0.5.20', 'fd00::20'], node: 'n2', labels: { app: 'client' } }),
    pod('a/other', { ip: '10.0.1.30', node: 'n1', labels: { app: 'other' } }),
    networkPolicy('a/except', {
      podSelector: { matchLabels: { app: 'server' } },
      ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24', '10.0.2.0/24'] } }], ports: [{ port: 80 }] }],
    }),
  ]);

describe('rendered shape', () => {
  it('renders the same bytes twice', () => {
    const [a, b] = [compileSets(exceptCluster()).ir, compileSets(exceptCluster()).ir];
    expect(nftables.render(b)).toStrictEqual(nftables.render(a));
    expect(iptables.render(b)).toStrictEqual(iptables.render(a));
  });

  it('writes one table per node script: the replace preamble, sets, verdict maps, hooked base chains', () => {
    const { nft, sets: ir } = dataplanes(exceptCluster());
    expect(Object.keys(nft)).toEqual(['n1', 'n2']);
    const script = nft.n1!;
    expect(script.match(/^table inet netpolc \{$/gm)).toHaveLength(1);
    expect(script).toMatch(/^table inet netpolc \{\}\ndelete table inet netpolc\ntable inet netpolc \{$/m);
    expect(script).not.toMatch(/^table (?!inet netpolc)/m);
    for (const map of ['pod_egress_v4', 'pod_egress_v6', 'pod_ingress_v4', 'pod_ingress_v6']) expect(script).toContain(`\tmap ${map} {`);
    expect(script).toContain(`10.0.0.10 : jump ${ir.nodes.n1!.pods['a/server']!.ingress}, # a/server`);
    expect(script).toContain('type filter hook forward priority filter; policy accept;');
    expect(script).toContain('type filter hook input priority filter; policy accept;');
    expect(script.indexOf('ct state established,related accept')).toBeLessThan(script.indexOf('ip saddr vmap @pod_egress_v4'));
    // One chain per shared table (and one per later tier): every pod's chains are defined once.
    const used = new Set(Object.values(ir.nodes.n1!.pods).flatMap((p) => [p.ingress, p.egress]));
    expect(used.size).toBeLessThan(2 * Object.keys(ir.nodes.n1!.pods).length);
    for (const id of used) for (const chain of [id, `${id}_np`, `${id}_baseline`]) expect(script.match(new RegExp(`\\tchain ${chain} \\{`, 'g'))).toHaveLength(1);
    // Every set the node needs, once per family, named by the set's id.
    for (const id of ir.nodes.n1!.sets) for (const f of [4, 6]) expect(script.match(new RegExp(`\\tset ${id}_v${f} \\{`, 'g'))).toHaveLength(1);
    expect(script).not.toContain('hook output');
  });

  it('an ipBlock with several excepts becomes a named interval set, and both dataplanes honour the holes', () => {
    const cluster = exceptCluster();
    const dp = dataplanes(cluster);
    const [id, set] = [...dp.sets.sets.entries()].find(([, s]) => s.definition.type === 'cidrs')!;
    expect(set.definition).toEqual({ type: 'cidrs', cidrs: ['10.0.0.0/16'], except: ['10.0.1.0/24', '10.0.2.0/24'] });
    const block = new RegExp(`\\tset ${id}_v4 \\{\\n\\t\\ttype ipv4_addr\\n\\t\\tflags interval\\n\\t\\telements = \\{ ([^}]*) \\}`).exec(dp.nft.n1!);
    expect(block, dp.nft.n1).not.toBeNull();
    const permitted = block![1]!.split(', ');
    expect(permitted).toEqual(expect.arrayContaining(['10.0.0.0/24', '10.0.3.0/24', '10.0.128.0/17']));
    expect(permitted).not.toContain('10.0.1.0/24');
    expect(permitted).not.toContain('10.0.2.0/24');
    expect(dp.nft.n1).toContain(`ip saddr @${id}_v4 meta l4proto tcp th dport 80 return`);
    const server = '10.0.0.10';
    const cases: [string, number, boolean][] = [
      ['10.0.5.20', 80, true], // client pod, inside the cidr
      ['10.0.3.1', 80, true],
      ['10.0.1.30', 80, false], // a pod in the first except
      ['10.0.1.77', 80, false],
      ['10.0.2.9', 80, false],
      ['10.0.5.20', 81, false],
      ['192.0.2.9', 80, false],
      ['172.18.0.2', 81, true], // the pod's own node
    ];
    for (const [src, port, allowed] of cases) {
      const flow: FlowQuery = { src, dst: server, port, protocol: 'TCP' };
      const verdict = evaluate(cluster, resolveFlow(cluster, { from: { ip: src }, to: { ip: server }, port, protocol: 'TCP' }));
      expect(verdict.allowed, `${src}:${port}`).toBe(allowed);
      expect(compare(dp, flow, verdict)).toEqual([]);
    }
    expect(dp.ipt.n1!.ipv4).toContain(`-m set --match-set npc-${id}-4 src -p tcp -m tcp --dport 80 -j RETURN`);
    expect(dp.ipt.n1!.ipset).toContain(`add npt-${id}-4 10.0.3.0/24`);
    expect(dp.ipt.n1!.ipv4).toMatch(/^\*filter$[\s\S]*^COMMIT$/m);
    // Only netpolc's own chains are declared (restored with --noflush): never a built-in one.
    expect(dp.ipt.n1!.ipv4).not.toMatch(/^:(INPUT|FORWARD|OUTPUT) /m);
    expect(dp.ipt.n1!.hooks).toEqual(['-I FORWARD 1 -j NETPOLC-FORWARD', '-I INPUT 1 -j NETPOLC-INPUT']);
  });
});
