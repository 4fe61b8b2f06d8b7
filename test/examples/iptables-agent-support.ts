// For the tests of the agent's iptables backend: the API on an ephemeral port (memory store,
// anonymous), the example cluster and its changes, and fake kernels (fake-xtables.mjs) with
// another writer's chains, rules and sets in them.
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parseLog, type LogLine } from './agent-process.js';
import { markerOf as agentMarker } from '../support/agent-marker.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const AGENT = join(ROOT, 'examples', 'node-agent', 'agent.mjs');
const FAKE = join(import.meta.dirname, 'fake-xtables.mjs');
export const v1 = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const web = v1.items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web');
/** shop/web relabelled: out of, or back into, the peers of shop/db's NetworkPolicy (node-2's set members). */
export const relabel = (base: string, app: string) => ({ base, changes: { apply: [{ ...web, metadata: { ...web.metadata, labels: { app } } }] } });
/** monitoring/prometheus (node-2) isolated, admitting only 192.0.2.0/24: new chains and a set of its own. */
export const SCRAPE = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'scrape', namespace: 'monitoring' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 9090 }] }] } };

export interface Kernel {
  ipv4: Record<string, string[]>;
  ipv6: Record<string, string[]>;
  sets: Record<string, { type: string; members: string[] }>;
}

/** Another writer's state, as kube-proxy keeps it: a chain, a rule in it, a jump from FORWARD, a set. */
export const FOREIGN = {
  chain: 'KUBE-SERVICES',
  rule: { ipv4: '-d 10.96.0.10/32 -p udp -m udp --dport 53 -j RETURN', ipv6: '-d fd00:96::a/128 -p udp -m udp --dport 53 -j RETURN' },
  set: { 'KUBE-LOOP-BACK': { type: 'hash:ip,port,ip family inet', members: ['10.244.1.10,tcp:80,10.244.1.10'] } } as Kernel['sets'],
} as const;

export function foreignKernel(): Kernel {
  const family = (f: 'ipv4' | 'ipv6') => ({ INPUT: [], FORWARD: [`-j ${FOREIGN.chain}`], OUTPUT: [], [FOREIGN.chain]: [FOREIGN.rule[f]] });
  return { ipv4: family('ipv4'), ipv6: family('ipv6'), sets: structuredClone(FOREIGN.set) };
}

/** Problems with the other writer's state, or with netpolc's jumps (exactly one each, first in FORWARD). */
export function foreignProblems(k: Kernel): string[] {
  const out: string[] = [];
  for (const f of ['ipv4', 'ipv6'] as const) {
    if (JSON.stringify(k[f][FOREIGN.chain]) !== JSON.stringify([FOREIGN.rule[f]])) out.push(`${f}: ${FOREIGN.chain} is ${JSON.stringify(k[f][FOREIGN.chain])}`);
    if (!k[f].FORWARD!.includes(`-j ${FOREIGN.chain}`)) out.push(`${f}: FORWARD lost its jump to ${FOREIGN.chain}`);
    if (k[f].FORWARD![0] !== '-j NETPOLC-FORWARD' || k[f].FORWARD!.filter((r) => r === '-j NETPOLC-FORWARD').length !== 1) out.push(`${f}: FORWARD is ${JSON.stringify(k[f].FORWARD)}`);
    if (JSON.stringify(k[f].INPUT) !== JSON.stringify(['-j NETPOLC-INPUT'])) out.push(`${f}: INPUT is ${JSON.stringify(k[f].INPUT)}`);
  }
  if (JSON.stringify(k.sets['KUBE-LOOP-BACK']) !== JSON.stringify(FOREIGN.set['KUBE-LOOP-BACK'])) out.push('the other writer\'s set changed');
  return out;
}

/** netpolc's chains (rules sorted: a delta appends dispatch rules a whole artifact writes in another order) and sets (members sorted). */
export function own(k: Kernel) {
  const chains = (f: 'ipv4' | 'ipv6') => Object.fromEntries(Object.entries(k[f]).filter(([c]) => /^(NETPOLC|NPC)-/.test(c)).sort().map(([c, r]) => [c, [...r].sort()]));
  return { ipv4: chains('ipv4'), ipv6: chains('ipv6'), sets: Object.fromEntries(Object.entries(k.sets).filter(([n]) => /^np[ct]-/.test(n)).sort().map(([n, s]) => [n, { type: s.type, members: [...s.members].sort() }])) };
}

export interface Call {
  tool: string;
  args: string[];
  input: string;
}

/** A fake kernel in its own directory, and the wrappers the agent runs (--iptables BIN/iptables --ipset BIN/ipset). */
export function fakeKernel(root: string, name: string, initial: Kernel | null = foreignKernel()) {
  const d = join(root, name);
  mkdirSync(join(d, 'bin'), { recursive: true });
  for (const tool of ['iptables-restore', 'iptables-save', 'ip6tables-restore', 'ip6tables-save', 'ipset']) {
    writeFileSync(join(d, 'bin', tool), `#!/bin/sh\nexec "${process.execPath}" "${FAKE}" ${tool} "$@"\n`);
    chmodSync(join(d, 'bin', tool), 0o755);
  }
  if (initial) writeFileSync(join(d, 'kernel.json'), JSON.stringify(initial));
  const kernel = () => JSON.parse(readFileSync(join(d, 'kernel.json'), 'utf8')) as Kernel;
  const calls = () => (existsSync(join(d, 'calls.jsonl')) ? readFileSync(join(d, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Call) : []);
  return {
    dir: d,
    env: { ...process.env, FAKE_XT_DIR: d },
    flags: ['--backend', 'iptables', '--iptables', join(d, 'bin', 'iptables'), '--ipset', join(d, 'bin', 'ipset')],
    kernel,
    edit: (change: (k: Kernel) => void) => {
      const k = kernel();
      change(k);
      writeFileSync(join(d, 'kernel.json'), JSON.stringify(k));
    },
    calls,
    /** What changed the kernel: restores, as "tool args[0]". */
    writes: () => calls().filter((c) => c.tool.endsWith('-restore') || c.args[0] === 'restore'),
  };
}
export type FakeKernel = ReturnType<typeof fakeKernel>;

export { startApi } from '../support/api-server.js';

export async function publish(base: string, rv: string, body: unknown): Promise<void> {
  const res = await fetch(`${base}/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
}

/** The node's iptables artifact as the API serves it (whole, or the delta from `since`). */
export async function served(base: string, node: string, version: string, since?: string): Promise<{ body: any; etag: string }> {
  const res = await fetch(`${base}/v1/clusters/prod/nodes/${node}/tables?format=iptables&version=${version}${since ? `&since=${since}` : ''}`);
  expect(res.status).toBe(200);
  return { body: await res.json(), etag: res.headers.get('etag')! };
}

export const markerOf = (etag: string) => agentMarker(etag, 'iptables');

export function runAgent(base: string, stateDir: string, k: FakeKernel, ...extra: string[]) {
  // Async spawn: the server answering the agent lives in this process's event loop.
  return new Promise<{ code: number | null; stdout: string; stderr: string; log: LogLine[] }>((resolve) => {
    const child = spawn(process.execPath, [AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-2', '--state-dir', stateDir, ...k.flags, ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: k.env });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr, log: parseLog(stdout) }));
  });
}

export const stateOf = (stateDir: string) => JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as { version: string; etag: string; marker: string; digest: string; appliedAt: string; backend?: string };
