// The reference node agent with --backend iptables against the real kernel: the example cluster
// as network namespaces (netns.ts), one agent per node whose ipset and iptables-restore/-save
// run in that node's namespace (as uid 65534 with CAP_NET_ADMIN and CAP_NET_RAW alone where
// setpriv is there and iptables is the nf_tables variant: `-m set` rules cannot be saved or
// restored without the raw socket the set match opens), next to a kube-proxy-like
// chain. v1 is applied in full, v2 (shop/web relabelled out of shop/db's peers) and v3 (a
// policy isolating payments/api) as deltas from changes; then a rule deleted by hand is found
// and put back, and a delta on the wrong base falls back to the whole artifact. After each step
// every pod and node pair is probed over real sockets and held equal to the verdict engine.
// Needs root, iproute2, iptables and ipset; where it cannot run it says why and skips.
import { startApi } from '../support/api-server.js';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Before the schemas core/ loads: the app's zod-openapi extends zod's schemas as they are made.
import { buildCluster } from '../../core/cluster.js';
import { compile } from '../../core/compile/compile.js';
import { compileSets } from '../../core/sets/compile.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { Running, type LogLine } from '../examples/agent-process.js';
import type { Family, K8sObject } from '../support/upstream.js';
import { Agent, buildTopology, dataplaneBlocker, run, teardown, type Topology } from './netns.js';
import { allowedPairs, installOthers, othersIntact, pairsOf, probeStep, type Forms } from './probe.js';

const ROOT = join(import.meta.dirname, '..', '..');
const AGENT = join(ROOT, 'examples', 'node-agent', 'agent.mjs');
const PREFIX = `npc${process.pid}-ia-`;
const PORTS = [5432, 8443, 443].map((port) => ({ port, protocol: 'TCP' as const }));

const BLOCKER = dataplaneBlocker(PREFIX, [['ip', '-V'], ['iptables-restore', '--version'], ['ip6tables-restore', '--version'], ['ipset', 'version']], 'iproute2 iptables ipset');
if (BLOCKER) console.warn(`[dataplane] iptables agent test skipped: ${BLOCKER}`);
const IPV6 = existsSync('/proc/sys/net/ipv6');
const DROP = (() => {
  try {
    run('setpriv', ['--version']);
    if (!run('iptables', ['-V']).includes('nf_tables')) return null; // iptables-legacy also takes /run/xtables.lock
    return 'setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin,+net_raw --ambient-caps=+net_admin,+net_raw --bounding-set=-all,+net_admin,+net_raw --no-new-privs ';
  } catch {
    return null;
  }
})();
if (!BLOCKER && !DROP) console.warn('[dataplane] the iptables agent\'s tools run as root: setpriv is missing or iptables is not the nf_tables variant');

const v1 = (JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: K8sObject[] }).items;
const web = v1.find((o) => o.kind === 'Pod' && o.metadata.name === 'web')!;
const change2 = { base: '1', changes: { apply: [{ ...web, metadata: { ...web.metadata, labels: { app: 'web2' } } }] } };
const policy3 = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'api-from-shop', namespace: 'payments' }, spec: { podSelector: { matchLabels: { app: 'api' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'shop' } } }], ports: [{ port: 8443 }] }] } };
const change3 = { base: '2', changes: { apply: [policy3] } };
const items = [v1, [...v1.filter((o) => o !== web), change2.changes.apply[0]!], [...v1.filter((o) => o !== web), change2.changes.apply[0]!, policy3]] as K8sObject[][];

describe('real kernel: the reference node agent applies iptables artifacts and deltas', () => {
  if (BLOCKER) {
    it.skip(`skipped: ${BLOCKER}`, () => {});
    return;
  }
  let server: ServerType;
  let base: string;
  let dir: string;
  let topo: Topology;
  const pods = new Map<string, Agent>();
  const agents = new Map<string, Running>();

  const agentArgs = (node: string) => [AGENT, '--server', base, '--cluster', 'prod', '--node', node, '--state-dir', join(dir, `state-${node}`), '--backend', 'iptables', '--iptables', join(dir, node, 'iptables'), '--ipset', join(dir, node, 'ipset')];
  const inNode = (node: string, cmd: string, ...args: string[]) => run('ip', ['netns', 'exec', topo.nodes.get(node)!.ns, cmd, ...args], '');

  beforeAll(async () => {
    ({ server, base } = await startApi());
    dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-ipt-kernel-'));
    teardown(PREFIX);
    topo = buildTopology(v1, PREFIX, IPV6);
    for (const ns of new Set([...topo.nodes.values(), ...topo.pods.values()].map((x) => x.ns))) pods.set(ns, await Agent.start(ns, { ports: PORTS.map((p) => p.port), ipv6: IPV6, sctp: false }));
    installOthers(topo, IPV6);
    for (const node of topo.nodes.values()) {
      // The agent's tools, in the node's namespace (stdin passes through to them).
      mkdirSync(join(dir, node.name));
      for (const tool of ['iptables-restore', 'iptables-save', 'ip6tables-restore', 'ip6tables-save', 'ipset']) {
        writeFileSync(join(dir, node.name, tool), `#!/bin/sh\nexec ip netns exec ${node.ns} ${DROP ?? ''}${tool} "$@"\n`);
        chmodSync(join(dir, node.name, tool), 0o755);
      }
    }
    // Left by an older version on node-2: the whole artifact removes it.
    inNode('node-2', 'ipset', 'create', 'npc-sstale-4', 'hash:net');
    inNode('node-2', 'iptables', '-N', 'NPC-rstale');
    inNode('node-2', 'iptables', '-A', 'NPC-rstale', '-m', 'set', '--match-set', 'npc-sstale-4', 'src', '-j', 'DROP');
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await Promise.all([...pods.values()].map((a) => a.stop()));
    await new Promise((resolve) => server?.close(resolve));
    const removed = teardown(PREFIX);
    console.info(`[dataplane] iptables agent: removed ${removed.length} namespaces`);
    rmSync(dir, { recursive: true, force: true });
  });

  async function publish(rv: string, body: unknown) {
    const res = await fetch(`${base}/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(201);
  }

  const clusterOf = (v: number) => {
    const parsed = parseSnapshot({ items: items[v]! });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues.slice(0, 3)));
    return buildCluster(parsed.snapshot);
  };

  /** Every pair probed against version `v`'s verdicts; the kube-proxy-like chains and netpolc's hooks checked. */
  async function probe(step: string, v: number): Promise<void> {
    const cluster = clusterOf(v);
    const forms: Forms = { flat: compile(cluster).ir, sets: compileSets(cluster).ir };
    const failures = othersIntact(topo, IPV6);
    let probes = 0;
    for (const family of (IPV6 ? ['IPv4', 'IPv6'] : ['IPv4']) as Family[]) {
      const pairs = pairsOf(topo, items[v]!, PORTS, family);
      probes += pairs.length;
      failures.push(...(await probeStep(topo, pods, cluster, forms, 'iptables', pairs, family)));
    }
    console.info(`[dataplane] iptables agent, ${step}: ${probes} pairs probed, ${failures.length} disagreements`);
    expect(failures, `${step}:\n${failures.slice(0, 20).join('\n')}`).toEqual([]);
    expect(probes).toBeGreaterThan(50);
  }

  /** netpolc's chains, jumps and sets in a node's namespace, in a fixed order (a delta creates them in another). */
  const ownState = (node: string) => {
    const rules = (bin: string) => inNode(node, bin).split('\n').filter((l) => /^(:|-A )(NETPOLC|NPC)-|-j NETPOLC-/.test(l)).map((l) => l.replace(/ \[\d+:\d+\]$/, '')).sort();
    const sets = inNode(node, 'ipset', 'save').split('\n').filter((l) => /^(create|add) np[ct]-/.test(l)).map((l) => l.replace(/ (hashsize|maxelem|bucketsize|initval) \S+/g, '')).sort();
    return { v4: rules('iptables-save'), v6: IPV6 ? rules('ip6tables-save') : [], sets };
  };

  const waitAll = (match: (node: string, l: LogLine) => boolean, after: Map<string, number>) => Promise.all([...agents].map(([node, a]) => a.waitFor((l) => match(node, l), after.get(node) ?? 0, 30_000)));
  const marks = () => new Map([...agents].map(([node, a]) => [node, a.log.length]));

  it('v1 in full, v2 and v3 as deltas, a rule deleted by hand put back, a delta on the wrong base followed by the whole artifact: real sockets agree with the verdicts after each', async () => {
    // Each version answers some probed pair differently from the one before: the probes see each delta.
    const allowed = [0, 1, 2].map((v) => allowedPairs(topo, clusterOf(v), pairsOf(topo, items[v]!, PORTS, 'IPv4'), 'IPv4'));
    expect(allowed[0]).toContain('shop/web → shop/db 5432/TCP');
    expect(allowed[1]).not.toContain('shop/web → shop/db 5432/TCP');
    expect(allowed[1]!.filter((p) => !allowed[2]!.includes(p)).some((p) => p.includes('→ payments/api'))).toBe(true);
    await publish('1', { items: v1 });
    for (const node of topo.nodes.keys()) agents.set(node, new Running([...agentArgs(node), '--interval', '0.3']));
    await waitAll((_, l) => l.event === 'applied' && l.version === '1' && l.kind === 'full', new Map());
    expect(inNode('node-2', 'iptables-save')).not.toContain('NPC-rstale');
    expect(inNode('node-2', 'ipset', 'list', '-n')).not.toContain('npc-sstale-4');
    await probe('v1 in full', 0);

    let deltas = 0;
    for (const [v, rv, change] of [[1, '2', change2], [2, '3', change3]] as const) {
      const seen = marks();
      await publish(rv, change);
      const lines = await waitAll((_, l) => (l.event === 'applied' || l.event === 'unchanged') && l.version === rv, seen);
      for (const l of lines) expect(l.event === 'unchanged' || l.kind === 'delta', JSON.stringify(l)).toBe(true);
      deltas += lines.filter((l) => l.event === 'applied').length;
      await probe(`v${rv} by deltas`, v);
    }
    expect(deltas, 'each change reached a node as a delta').toBeGreaterThanOrEqual(2);
    const applied = new Map([...topo.nodes.keys()].map((n) => [n, ownState(n)]));

    // A netpolc rule deleted by hand: api's ingress dispatch on node-1.
    const dispatch = inNode('node-1', 'iptables', '-S', 'NETPOLC-INGRESS').split('\n').find((l) => l.includes('-d 10.244.1.11/32'))!;
    let seen = marks();
    inNode('node-1', 'iptables', ...dispatch.replace(/^-A /, '-D ').split(' '));
    expect(inNode('node-1', 'iptables', '-S', 'NETPOLC-INGRESS')).not.toContain('10.244.1.11/32');
    const one = agents.get('node-1')!;
    expect((await one.waitFor((l) => l.event === 'drift', seen.get('node-1'), 30_000)).reason).toBe('edited');
    await one.waitFor((l) => l.event === 'drift_repaired' && l.version === '3' && l.kind === 'full', seen.get('node-1'), 30_000);
    expect(ownState('node-1')).toEqual(applied.get('node-1'));
    await probe('v3 after the drift repair', 2);

    // The state says version 1 (the marker and digest still those of the kernel, at 3): the
    // delta from 1 does not apply, and the whole artifact of 3 follows.
    expect(await one.stop()).toBe(0);
    agents.delete('node-1');
    const state = join(dir, 'state-node-1', 'state.json');
    const etag1 = (await fetch(`${base}/v1/clusters/prod/nodes/node-1/tables?format=iptables&version=1`)).headers.get('etag');
    writeFileSync(state, JSON.stringify({ ...JSON.parse(readFileSync(state, 'utf8')), version: '1', etag: etag1 }));
    const once = new Running([...agentArgs('node-1'), '--once']);
    expect(await once.exited).toBe(0);
    expect(once.log.some((l) => l.event === 'drift')).toBe(false);
    expect(once.log.find((l) => l.event === 'delta_failed')).toMatchObject({ version: '3', from: '1', kind: 'delta' });
    expect(once.log.find((l) => l.event === 'applied')).toMatchObject({ version: '3', kind: 'full', fallback: true });
    expect(ownState('node-1')).toEqual(applied.get('node-1'));
    await probe('v3 in full after a refused delta', 2);
    seen = marks();
    expect(agents.get('node-2')!.log.slice(0, seen.get('node-2')).some((l) => l.event === 'drift' || l.event === 'poll_failed')).toBe(false);
  });
});
