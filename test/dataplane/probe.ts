// What the real-kernel tests share: every pod and node pair probed over real sockets, each answer
// held equal to the verdict engine (the dataplane's simulator explains a disagreement), and
// another writer's iptables chains (kube-proxy's) that netpolc must leave alone.
import type { Cluster } from '../../core/cluster.js';
import type { Ir } from '../../core/compile/ir.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { iptables } from '../../core/render/iptables.js';
import { iptablesSimulator } from '../../core/render/iptables-sim.js';
import { nftables } from '../../core/render/nftables.js';
import { nftablesSimulator } from '../../core/render/nftables-sim.js';
import type { SetIr } from '../../core/sets/ir.js';
import { probedPods, type Family } from '../support/upstream.js';
import { run, type Agent, type ProbeRequest, type ProbeResult, type Topology } from './netns.js';

const PROBE_TIMEOUT_MS = 1000;

export type DataplaneName = 'nftables' | 'iptables';
export type Endpoint = { kind: 'pod'; key: string } | { kind: 'node'; name: string };

export interface PairProbe extends ProbeRequest {
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly src: string;
}

export const totals = { probes: 0, open: 0, closed: 0, sctpSkipped: 0, startedAt: Date.now() };

/** Another writer's chains, as kube-proxy keeps them: netpolc's iptables artifact must leave them alone. */
export const KUBE_PROXY = { chain: 'KUBE-SERVICES', rule: { 4: '-d 10.96.0.10/32 -p udp -m udp --dport 53 -j RETURN', 6: '-d fd00:96::a/128 -p udp -m udp --dport 53 -j RETURN' } } as const;

export function installOthers(topo: Topology, ipv6: boolean): void {
  for (const node of topo.nodes.values()) {
    for (const [bin, family] of [['iptables', 4], ['ip6tables', 6]] as const) {
      if (family === 6 && !ipv6) continue;
      const ipt = (...args: string[]) => run('ip', ['netns', 'exec', node.ns, bin, ...args], '');
      ipt('-N', KUBE_PROXY.chain);
      ipt('-A', KUBE_PROXY.chain, ...KUBE_PROXY.rule[family].split(' '));
      ipt('-A', 'FORWARD', '-j', KUBE_PROXY.chain);
    }
  }
}

/** Problems with other writers' chains, or with netpolc's hooks (exactly one jump each). */
export function othersIntact(topo: Topology, ipv6: boolean): string[] {
  const out: string[] = [];
  for (const node of topo.nodes.values()) {
    for (const [bin, family] of [['iptables', 4], ['ip6tables', 6]] as const) {
      if (family === 6 && !ipv6) continue;
      const rules = run('ip', ['netns', 'exec', node.ns, bin, '-S'], '').split('\n');
      if (!rules.includes(`-A ${KUBE_PROXY.chain} ${KUBE_PROXY.rule[family]}`)) out.push(`${node.name} ${bin}: ${KUBE_PROXY.chain}'s rule is gone`);
      if (!rules.includes(`-A FORWARD -j ${KUBE_PROXY.chain}`)) out.push(`${node.name} ${bin}: FORWARD no longer jumps to ${KUBE_PROXY.chain}`);
      for (const hook of ['-A FORWARD -j NETPOLC-FORWARD', '-A INPUT -j NETPOLC-INPUT']) {
        const n = rules.filter((r) => r === hook).length;
        if (n !== 1) out.push(`${node.name} ${bin}: "${hook}" ${n} times`);
      }
    }
  }
  return out;
}

/** Both compiled forms of a step: nftables renders the set form, iptables flat tables. */
export interface Forms {
  readonly flat: Ir;
  readonly sets: SetIr;
}

/** Every pod and node pair (a node to a node is no policy's business) on each probed port. */
export function pairsOf(topo: Topology, objects: Parameters<typeof probedPods>[0], ports: readonly { port: number; protocol: ProbeRequest['protocol'] }[], family: Family): PairProbe[] {
  const pods = probedPods(objects);
  for (const key of pods) if (!topo.pods.has(key)) throw new Error(`case uses pod ${key}, which the base topology does not have`);
  const endpoints: Endpoint[] = [...pods.map((key) => ({ kind: 'pod' as const, key })), ...[...topo.nodes.keys()].map((name) => ({ kind: 'node' as const, name }))];
  const address = (e: Endpoint) => {
    const x = e.kind === 'pod' ? topo.pods.get(e.key)! : topo.nodes.get(e.name)!;
    return family === 'IPv4' ? x.v4 : x.v6;
  };
  const out: PairProbe[] = [];
  for (const from of endpoints)
    for (const to of endpoints) {
      if (from === to || (from.kind === 'node' && to.kind === 'node')) continue;
      const [src, host] = [address(from), address(to)];
      if (!src || !host) continue;
      for (const p of ports) out.push({ from, to, src, host, ...p });
    }
  return out;
}

const spec = (e: Endpoint, topo: Topology, family: Family): EndpointSpec => (e.kind === 'pod' ? { pod: e.key } : { ip: family === 'IPv4' ? topo.nodes.get(e.name)!.v4 : topo.nodes.get(e.name)!.v6! });
const label = (e: Endpoint) => (e.kind === 'pod' ? e.key : `node ${e.name}`);

export async function probeStep(topo: Topology, agents: Map<string, Agent>, cluster: Cluster, forms: Forms, dataplane: DataplaneName, pairs: PairProbe[], family: Family): Promise<string[]> {
  const nsOf = (e: Endpoint) => (e.kind === 'pod' ? topo.pods.get(e.key)!.ns : topo.nodes.get(e.name)!.ns);
  const byNs = new Map<string, PairProbe[]>();
  for (const p of pairs) byNs.set(nsOf(p.from), [...(byNs.get(nsOf(p.from)) ?? []), p]);
  const answered = await Promise.all([...byNs].map(async ([ns, list]) => (await agents.get(ns)!.probe(list, PROBE_TIMEOUT_MS)).map((r, i) => [list[i]!, r] as [PairProbe, ProbeResult])));
  const sim = dataplane === 'nftables' ? nftablesSimulator(nftables.render(forms.sets)) : iptablesSimulator(iptables.render(forms.sets));
  const failures: string[] = [];
  for (const [p, result] of answered.flat()) {
    let verdict;
    try {
      verdict = evaluate(cluster, resolveFlow(cluster, { from: spec(p.from, topo, family), to: spec(p.to, topo, family), port: p.port, protocol: p.protocol, ipFamily: family }));
    } catch (e) {
      if (e instanceof FlowError) continue;
      throw e;
    }
    totals.probes++;
    totals[result === 'open' ? 'open' : 'closed']++;
    const head = `${dataplane} ${family}: ${label(p.from)} (${p.src}) → ${label(p.to)} (${p.host}) ${p.port}/${p.protocol}`;
    if (result !== 'open' && result !== 'timeout') failures.push(`${head}: probe ${result} (listener or topology broken, not a policy answer)`);
    else if ((result === 'open') !== verdict.allowed) {
      const trace = (side: typeof verdict.egress) => side?.trace.map((t) => t.message).join(' → ') ?? '(no side)';
      const simulated = sim.explain({ src: p.src, dst: p.host, port: p.port, protocol: p.protocol });
      failures.push([`${head}: kernel ${result}, engine ${verdict.allowed ? 'allow' : 'deny'}${verdict.reason ? ` (${verdict.reason})` : ''}, simulator ${simulated.allowed ? 'allow' : 'deny'}`, `  egress: ${trace(verdict.egress)}`, `  ingress: ${trace(verdict.ingress)}`, ...simulated.trace.map((t) => `  rule: ${t}`)].join('\n'));
    }
  }
  return failures;
}

/** The pairs the verdict engine allows, as text: to tell whether two versions differ on the wire. */
export function allowedPairs(topo: Topology, cluster: Cluster, pairs: readonly PairProbe[], family: Family): string[] {
  return pairs.flatMap((p) => {
    try {
      const v = evaluate(cluster, resolveFlow(cluster, { from: spec(p.from, topo, family), to: spec(p.to, topo, family), port: p.port, protocol: p.protocol, ipFamily: family }));
      return v.allowed ? [`${label(p.from)} → ${label(p.to)} ${p.port}/${p.protocol}`] : [];
    } catch (e) {
      if (e instanceof FlowError) return [];
      throw e;
    }
  });
}
