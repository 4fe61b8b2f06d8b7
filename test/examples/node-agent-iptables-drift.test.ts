// examples/node-agent/agent.mjs --backend iptables, continued (fake tools: fake-xtables.mjs):
// drift found by the kernel check and repaired with the whole artifact (a rule deleted, a set
// member removed, a hook gone or doubled, the marker replaced, netpolc's chains gone), the
// whole artifact removing netpolc's chains and sets it no longer declares while another
// writer's stay, artifacts with lines that are not netpolc's refused before any tool runs,
// --dry-run, and the flags.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Running } from './agent-process.js';
import { AGENT, fakeKernel, foreignKernel, foreignProblems, markerOf, own, publish, runAgent, served, startApi, stateOf, v1, type Kernel } from './iptables-agent-support.js';

let server: ServerType;
let base: string;
let dir: string;

beforeAll(async () => {
  ({ server, base } = await startApi());
  dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-ipt-drift-'));
  await publish(base, '1', v1);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('reference node agent, --backend iptables (kernel checks)', () => {
  it('finds netpolc\'s chains and sets edited, re-marked or gone, and puts the same back with the whole artifact', async () => {
    const k = fakeKernel(dir, 'k-drift');
    const stateDir = join(dir, 'drift');
    const agent = new Running([AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-2', '--state-dir', stateDir, ...k.flags, '--interval', '0.2'], k.env);
    try {
      await agent.waitFor((l) => l.event === 'applied' && l.version === '1');
      await agent.waitFor((l) => l.event === 'unchanged');
      const applied = own(k.kernel());
      const set = Object.keys(applied.sets).find((n) => applied.sets[n]!.members.length > 0)!;
      const edits: [string, string, (k: Kernel) => void][] = [
        ['a dispatch rule deleted', 'edited', (x) => x.ipv4['NETPOLC-INGRESS']!.pop()],
        ['a set member removed', 'edited', (x) => x.sets[set]!.members.pop()],
        ['the FORWARD hook deleted (IPv6)', 'edited', (x) => (x.ipv6.FORWARD = x.ipv6.FORWARD!.filter((r) => r !== '-j NETPOLC-FORWARD'))],
        ['the INPUT hook doubled', 'edited', (x) => x.ipv4.INPUT!.push('-j NETPOLC-INPUT')],
        ['the marker replaced (IPv6)', 'marker', (x) => (x.ipv6['NETPOLC-APPLIED'] = ['-m comment --comment 0123456789abcde -j RETURN'])],
        ["netpolc's IPv4 chains and jumps gone", 'missing', (x) => {
          for (const c of Object.keys(x.ipv4)) if (/^(NETPOLC|NPC)-/.test(c)) delete x.ipv4[c];
          for (const c of ['INPUT', 'FORWARD']) x.ipv4[c] = x.ipv4[c]!.filter((r) => !r.includes('NETPOLC'));
        }],
      ];
      for (const [what, reason, edit] of edits) {
        const seen = agent.log.length;
        k.edit(edit);
        const drift = await agent.waitFor((l) => l.event === 'drift', seen);
        expect(drift.reason, what).toBe(reason);
        await agent.waitFor((l) => l.event === 'drift_repaired' && l.version === '1' && l.kind === 'full', seen);
        expect(own(k.kernel()), what).toEqual(applied);
        expect(foreignProblems(k.kernel()), what).toEqual([]);
      }
      // Left alone, it passes every check.
      const quiet = agent.log.length;
      await agent.waitFor((l) => l.event === 'unchanged', quiet);
      await agent.waitFor((l) => l.event === 'unchanged', agent.log.length);
      expect(agent.log.slice(quiet).some((l) => l.event === 'drift')).toBe(false);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
    expect(agent.stderr).toBe('');
  });

  it("removes netpolc's chains and sets a whole artifact no longer declares, keeps a set another writer still uses", async () => {
    const initial = foreignKernel();
    for (const f of ['ipv4', 'ipv6'] as const) {
      const s = f === 'ipv4' ? '4' : '6';
      Object.assign(initial[f], { 'NPC-rdead': [`-m set --match-set npc-sdead-${s} src -g NPC-rdead-NP`], 'NPC-rdead-NP': ['-j DROP'], 'KUBE-FIREWALL': [`-m set --match-set npc-sused-${s} src -j RETURN`] });
    }
    // In this order: the set still used comes first, and the ones after it still go.
    Object.assign(initial.sets, { 'npc-sused-4': { type: 'hash:net family inet', members: [] }, 'npc-sused-6': { type: 'hash:net family inet6', members: [] }, 'npc-sdead-4': { type: 'hash:net family inet', members: ['10.9.0.0/16'] }, 'npc-sdead-6': { type: 'hash:net family inet6', members: [] }, 'npt-sleft-4': { type: 'hash:net family inet', members: [] } });
    const k = fakeKernel(dir, 'k-stale', initial);
    const stateDir = join(dir, 'stale');
    const r = await runAgent(base, stateDir, k, '--once');
    expect(r.code, r.stdout).toBe(0);
    expect(r.log.find((l) => l.event === 'applied')).toMatchObject({ version: '1', kind: 'full' });
    expect(r.log.filter((l) => l.event === 'cleanup_incomplete').map((l) => l.error)).toEqual([expect.stringContaining('Error in line 1: Set cannot be destroyed: it is in use'), expect.stringContaining('Error in line 1: Set cannot be destroyed: it is in use')]);
    const kernel = k.kernel();
    for (const f of ['ipv4', 'ipv6'] as const) {
      expect(kernel[f]['NPC-rdead'], f).toBeUndefined();
      expect(kernel[f]['NPC-rdead-NP'], f).toBeUndefined();
      expect(kernel[f]['KUBE-FIREWALL'], f).toEqual([initial[f]['KUBE-FIREWALL']![0]]);
    }
    expect(Object.keys(kernel.sets).filter((n) => /sdead|sleft|sused/.test(n)).sort()).toEqual(['npc-sused-4', 'npc-sused-6']);
    expect(foreignProblems(kernel)).toEqual([]);
    // What stays is part of what was applied: the next check passes.
    expect((await runAgent(base, stateDir, k, '--once')).log.map((l) => l.event)).toEqual(['started', 'unchanged']);
  });
});

describe('reference node agent, --backend iptables (what it accepts)', () => {
  let stub: Server;
  let stubBase: string;
  let answer = '';
  let etag = '';

  beforeAll(async () => {
    // A server answering what the test sets, with the headers of the real one.
    stub = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json', etag, 'x-netpolc-version': '1' }).end(answer));
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    stubBase = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())));

  it('refuses an artifact with a line that is not netpolc\'s to run, before any tool runs', async () => {
    const real = await served(base, 'node-2', '1');
    etag = real.etag;
    const edits: [string, (r: any) => void][] = [
      ['none (the real artifact)', () => {}],
      ['a flush of FORWARD', (r) => (r.ipv4 = r.ipv4.replace('COMMIT\n', '-F FORWARD\nCOMMIT\n'))],
      ["a rule in another writer's chain", (r) => (r.ipv4 = r.ipv4.replace('COMMIT\n', '-A KUBE-SERVICES -j DROP\nCOMMIT\n'))],
      ["another writer's set destroyed", (r) => (r.ipset += 'destroy KUBE-LOOP-BACK\n')],
      ['a hook that drops', (r) => (r.hooks = ['-I FORWARD 1 -j DROP'])],
      ['a second table', (r) => (r.ipv6 += '*nat\n-A PREROUTING -j DROP\nCOMMIT\n')],
    ];
    for (const [what, edit] of edits) {
      const body = structuredClone(real.body);
      edit(body.rendered);
      answer = JSON.stringify(body);
      const k = fakeKernel(dir, `k-refuse-${edits.findIndex((e) => e[0] === what)}`);
      const r = await runAgent(stubBase, join(dir, `refuse-${what}`), k, '--once');
      if (what.startsWith('none')) {
        expect(r.code, r.stdout).toBe(0);
        continue;
      }
      expect(r.code, what).toBe(1);
      expect(r.log.find((l) => l.event === 'poll_failed')?.error, what).toContain('did not answer a complete iptables artifact or delta');
      expect(k.writes(), what).toEqual([]);
    }
  });

  it('--dry-run logs the steps it would run, and runs no tool and writes no file', async () => {
    const k = fakeKernel(dir, 'k-dry');
    const fresh = join(dir, 'dry');
    const s1 = await served(base, 'node-2', '1');
    const r = await runAgent(base, fresh, k, '--once', '--dry-run');
    expect(r.code, r.stdout).toBe(0);
    const would = r.log.find((l) => l.event === 'would_apply')!;
    expect(would).toMatchObject({ version: '1', etag: s1.etag, kind: 'full' });
    const script = would.script as string;
    expect(script.startsWith(`# ${k.flags[5]} restore\n${s1.body.rendered.ipset}# ${k.flags[3]}-restore --wait=5 --noflush\n${s1.body.rendered.ipv4.replace(/COMMIT\n$/, '')}`)).toBe(true);
    expect(script).toContain(`-A NETPOLC-APPLIED -m comment --comment ${markerOf(s1.etag)} -j RETURN\n-I FORWARD 1 -j NETPOLC-FORWARD\n`);
    expect(existsSync(fresh)).toBe(false);
    expect(k.calls()).toEqual([]);
  });

  it("does not take the nftables backend's state as a base, and checks its flags", async () => {
    const k = fakeKernel(dir, 'k-switch');
    const stateDir = join(dir, 'switch');
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'state.json'), JSON.stringify({ version: '1', etag: '"h0.nftables"', marker: 'h0', digest: 'sha256:0', appliedAt: null }));
    const r = await runAgent(base, stateDir, k, '--once');
    expect(r.code, r.stdout).toBe(0);
    expect(r.log.find((l) => l.event === 'state_ignored')).toMatchObject({ level: 'warn', error: expect.stringContaining("is the nftables backend's") });
    expect(r.log.find((l) => l.event === 'applied')).toMatchObject({ kind: 'full' });
    expect(stateOf(stateDir).backend).toBe('iptables');

    for (const [flags, message] of [
      [['--backend', 'ebtables'], '--backend is nftables or iptables, not ebtables'],
      [['--backend', 'iptables', '--iptables', '/usr/sbin/xtables'], '--iptables must name iptables or a variant of it'],
    ] as const) {
      const bad = spawnSync(process.execPath, [AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-2', ...flags], { encoding: 'utf8' });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain(message);
    }
  });
});
