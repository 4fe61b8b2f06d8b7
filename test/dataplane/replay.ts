// Replaying upstream cases on network namespaces with netpolc's rules applied, for the
// real-kernel tests (kernel.test.ts, legacy.test.ts): what this machine can run, applying a
// dataplane's rendering on every node, and one case replayed in nftables and iptables with every
// step's pairs probed and held equal to the verdict engine.
import { existsSync } from 'node:fs';
import { expect } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { compileSets } from '../../core/sets/compile.js';
import { iptables } from '../../core/render/iptables.js';
import { nftables } from '../../core/render/nftables.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { replay, type Family, type Suite, type UpstreamCase } from '../support/upstream.js';
import { type Agent, dataplaneBlocker, run, type Topology } from './netns.js';
import { othersIntact, pairsOf, probeStep, totals, type DataplaneName, type Forms } from './probe.js';

/** Names of this process's network namespaces start with it; teardown removes them by it. */
export const PREFIX = `npc${process.pid}-`;

const whyNot = (): string | null => dataplaneBlocker(PREFIX, [['ip', '-V'], ['nft', '--version'], ['iptables-restore', '--version'], ['ip6tables-restore', '--version'], ['ipset', 'version']], 'iproute2 nftables iptables ipset');

/** Why the real-kernel tests cannot run here, or null. */
export const BLOCKER = whyNot();
export const NO_IPV6 = existsSync('/proc/sys/net/ipv6') ? null : 'the kernel has no IPv6 (/proc/sys/net/ipv6 missing)';
export const NO_SCTP = !existsSync('/proc/net/sctp') ? 'the kernel has no SCTP (/proc/net/sctp missing)' : (() => {
  try {
    run('socat', ['-V']);
    return null;
  } catch {
    return 'socat is not installed (SCTP probes use it)';
  }
})();
if (BLOCKER) console.warn(`[dataplane] skipped: ${BLOCKER}`);
if (!BLOCKER && NO_SCTP) console.warn(`[dataplane] SCTP probes skipped: ${NO_SCTP}`);


/** Applies `dataplane`'s rendering of `forms` on every node, twice (re-applying must replace); 'none' removes netpolc's rules. */
export function apply(topo: Topology, dataplane: DataplaneName | 'none', forms: Forms | null) {
  for (const node of topo.nodes.values()) {
    const exec = (cmd: string, input: string) => run('ip', ['netns', 'exec', node.ns, cmd, ...(cmd === 'nft' ? ['-f', '-'] : [])], input);
    if (dataplane === 'nftables') {
      const script = nftables.render(forms!.sets)[node.name];
      if (!script) throw new Error(`no nftables script for node ${node.name}`);
      // Twice: re-applying must replace, not fail or stack.
      exec('nft', script);
      exec('nft', script);
    } else if (dataplane === 'iptables') {
      const artifact = iptables.render(forms!.sets)[node.name];
      if (!artifact) throw new Error(`no iptables artifact for node ${node.name}`);
      // Twice: re-applying must replace, not fail or stack (sets swapped, own chains refilled, hooks once).
      for (let i = 0; i < 2; i++) {
        run('ip', ['netns', 'exec', node.ns, 'ipset', 'restore'], artifact.ipset);
        run('ip', ['netns', 'exec', node.ns, 'iptables-restore', '--noflush'], artifact.ipv4);
        if (!NO_IPV6) run('ip', ['netns', 'exec', node.ns, 'ip6tables-restore', '--noflush'], artifact.ipv6);
        for (const [bin, skip] of [['iptables', false], ['ip6tables', NO_IPV6]] as const) {
          if (skip) continue;
          for (const hook of artifact.hooks) {
            const check = ['netns', 'exec', node.ns, bin, '-C', ...hook.replace(/^-I (\S+) 1/, '$1').split(' ')];
            try {
              run('ip', check, '');
            } catch {
              run('ip', ['netns', 'exec', node.ns, bin, ...hook.split(' ')], '');
            }
          }
        }
      }
    } else {
      exec('nft', 'table inet netpolc {}\ndelete table inet netpolc\n');
      // Only netpolc's jumps go; other writers' chains (the kube-proxy-like one) stay.
      for (const [bin, skip] of [['iptables', false], ['ip6tables', NO_IPV6]] as const) {
        if (skip) continue;
        for (const [chain, target] of [['FORWARD', 'NETPOLC-FORWARD'], ['INPUT', 'NETPOLC-INPUT']]) {
          try {
            run('ip', ['netns', 'exec', node.ns, bin, '-D', chain!, '-j', target!], '');
          } catch {
            // not hooked: nothing to remove
          }
        }
      }
    }
  }
}

/** Replays an upstream case on the topology, in nftables and in iptables, every step's pairs probed over real sockets. */
export async function runCase(suite: Suite, c: UpstreamCase, family: Family, topo: Topology, agents: Map<string, Agent>) {
  for (const dataplane of ['nftables', 'iptables'] as const) {
    const started = Date.now();
    let probes = 0;
    const failures: string[] = [];
    apply(topo, 'none', null);
    for (const { index, step, objects } of replay(suite, c, family)) {
      if (!step.probes?.length) continue;
      const parsed = parseSnapshot({ items: objects });
      if (!parsed.ok) throw new Error(`step ${index}: invalid snapshot ${JSON.stringify(parsed.issues.slice(0, 3))}`);
      const cluster = buildCluster(parsed.snapshot);
      const forms: Forms = { flat: compile(cluster).ir, sets: compileSets(cluster).ir };
      apply(topo, dataplane, forms);
      if (dataplane === 'iptables') failures.push(...othersIntact(topo, !NO_IPV6).map((f) => `step ${index}: ${f}`));
      const ports = [...new Map(step.probes.map((p) => [`${p.port}/${p.protocol}`, { port: p.port, protocol: p.protocol }])).values()];
      const usable = ports.filter((p) => p.protocol !== 'SCTP' || !NO_SCTP);
      const pairs = pairsOf(topo, objects, usable, family);
      totals.sctpSkipped += pairsOf(topo, objects, ports.filter((p) => !usable.includes(p)), family).length;
      probes += pairs.length;
      failures.push(...(await probeStep(topo, agents, cluster, forms, dataplane, pairs, family)).map((f) => `step ${index}: ${f}`));
    }
    apply(topo, 'none', null);
    console.info(`[dataplane] ${c.name} [${family}] ${dataplane}: ${probes} pairs probed, ${failures.length} disagreements, ${Date.now() - started} ms`);
    expect(failures, failures.slice(0, 20).join('\n')).toEqual([]);
    expect(probes).toBeGreaterThan(0);
  }
}
