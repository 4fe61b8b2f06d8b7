// examples/node-agent/agent.mjs --backend iptables as a real process against the API on an
// ephemeral port, with fake ipset / iptables-restore / iptables-save (fake-xtables.mjs) keeping
// a "kernel" in a file next to another writer's chains, rules and sets. Covered: the whole
// artifact in order (sets, then each family's rules with marker and hooks in one commit), a 304,
// deltas from changes (members, a policy added, the same removed: chains deleted and sets
// destroyed after the rules that used them) each leaving what the whole artifact leaves, and the
// fall-backs to the whole artifact: a delta refused, one family refused half-way, a kernel not
// as expected after a delta that ran, an unknown `since`.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeKernel, foreignProblems, markerOf, own, publish, relabel, runAgent, SCRAPE, served, startApi, stateOf, v1, type FakeKernel } from './iptables-agent-support.js';

let server: ServerType;
let base: string;
let dir: string;

beforeAll(async () => {
  ({ server, base } = await startApi());
  dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-ipt-'));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** What the whole artifact of the latest version leaves, applied by the agent on a fresh kernel. */
async function wholeOf(name: string) {
  const k = fakeKernel(dir, name);
  const r = await runAgent(base, join(dir, `${name}-state`), k, '--once');
  expect(r.code, r.stdout).toBe(0);
  expect(r.log.find((l) => l.event === 'applied')).toMatchObject({ kind: 'full' });
  return own(k.kernel());
}

/** The tools that wrote to the kernel since call `from`, and what they were given. */
const writesSince = (k: FakeKernel, from: number) => k.writes().slice(from).map((c) => ({ tool: `${c.tool}${c.args[0] === 'restore' ? ' restore' : ''}`, input: c.input }));

describe('reference node agent, --backend iptables (--once)', () => {
  const stateDir = () => join(dir, 'main');
  let k: FakeKernel;

  it('applies v1 in full: sets first, then each family in one commit with the marker and the hooks; another writer\'s chains and sets stay', async () => {
    await publish(base, '1', v1);
    k = fakeKernel(dir, 'k-main');
    const s1 = await served(base, 'node-2', '1');
    expect(s1.body.full).toBe(true);
    const r = await runAgent(base, stateDir(), k, '--once');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.log.find((l) => l.event === 'applied')).toMatchObject({ version: '1', etag: s1.etag, kind: 'full' });
    const writes = writesSince(k, 0);
    expect(writes.map((w) => w.tool)).toEqual(['ipset restore', 'iptables-restore', 'ip6tables-restore']);
    expect(writes[0]!.input).toBe(s1.body.rendered.ipset);
    const marker = markerOf(s1.etag);
    for (const [i, f] of [[1, 'ipv4'], [2, 'ipv6']] as const) {
      expect(writes[i]!.input).toBe(
        `${s1.body.rendered[f].replace(/COMMIT\n$/, '')}# netpolc-agent: the marker, missing hooks and chains no longer declared, in the same commit\n:NETPOLC-APPLIED - [0:0]\n-A NETPOLC-APPLIED -m comment --comment ${marker} -j RETURN\n-I FORWARD 1 -j NETPOLC-FORWARD\n-I INPUT 1 -j NETPOLC-INPUT\nCOMMIT\n`,
      );
    }
    // Restores never flush the table: every one with --noflush.
    for (const c of k.calls().filter((c) => c.tool.endsWith('-restore'))) expect(c.args).toEqual(['--wait=5', '--noflush']);
    const kernel = k.kernel();
    expect(foreignProblems(kernel)).toEqual([]);
    expect(kernel.ipv4['NETPOLC-APPLIED']).toEqual([`-m comment --comment ${marker} -j RETURN`]);
    expect(Object.keys(own(kernel).sets).length).toBeGreaterThan(2);
    expect(stateOf(stateDir())).toMatchObject({ version: '1', etag: s1.etag, marker, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), backend: 'iptables' });
    expect(readFileSync(join(stateDir(), 'ruleset.iptables'), 'utf8')).toBe(`# ${k.flags[5]} restore\n${writes[0]!.input}# ${k.flags[3]}-restore --wait=5 --noflush\n${writes[1]!.input}# ${join(k.dir, 'bin', 'ip6tables')}-restore --wait=5 --noflush\n${writes[2]!.input}`);

    // Nothing changed: a 304, nothing run but the check.
    const again = await runAgent(base, stateDir(), k, '--once');
    expect(again.log.map((l) => l.event)).toEqual(['started', 'unchanged']);
    expect(k.writes()).toHaveLength(3);
  });

  it('applies deltas from changes (members, a policy added, the policy removed), each leaving what the whole artifact leaves', async () => {
    const steps: [string, unknown, RegExp[]][] = [
      ['2', relabel('1', 'web2'), [/^del npc-s[0-9a-f]{16}-4 10\.244\.1\.10\/32$/m]],
      ['3', { base: '2', changes: { apply: [SCRAPE] } }, [/^create npc-s[0-9a-f]{16}-4 hash:net family inet -exist$/m, /^:NPC-r[0-9a-f]{16} - \[0:0\]$/m, /^-D NETPOLC-INGRESS -d 10\.244\.2\.30\/32 /m]],
      ['4', { base: '3', changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'monitoring', name: 'scrape' }] } }, [/^-X NPC-r[0-9a-f]{16}$/m, /^destroy npc-s[0-9a-f]{16}-4$/m]],
    ];
    for (const [rv, change, expected] of steps) {
      const from = String(Number(rv) - 1);
      await publish(base, rv, change);
      const d = await served(base, 'node-2', rv, from);
      expect(d.body.full, rv).toBe(false);
      const parts = Object.values(d.body.rendered).join('');
      for (const e of expected) expect(parts, rv).toMatch(e);
      const before = k.writes().length;
      const r = await runAgent(base, stateDir(), k, '--once');
      expect(r.code, r.stdout).toBe(0);
      expect(r.log.find((l) => l.event === 'applied'), rv).toMatchObject({ version: rv, from, kind: 'delta', etag: d.etag });
      const writes = writesSince(k, before);
      // Sets the rules start using first, sets they stop using last.
      const tools = writes.map((w) => w.tool);
      expect(tools.slice(tools.indexOf('iptables-restore'), tools.indexOf('iptables-restore') + 2), rv).toEqual(['iptables-restore', 'ip6tables-restore']);
      if (/^(create|add|del) /m.test(d.body.rendered.ipset)) expect(writes[0]).toEqual({ tool: 'ipset restore', input: d.body.rendered.ipset });
      if (/^destroy /m.test(d.body.rendered.cleanup)) expect(writes.at(-1)).toEqual({ tool: 'ipset restore', input: d.body.rendered.cleanup });
      expect(writes.find((w) => w.tool === 'iptables-restore')!.input.startsWith(d.body.rendered.ipv4.replace(/COMMIT\n$/, ''))).toBe(true);
      const kernel = k.kernel();
      expect(foreignProblems(kernel), rv).toEqual([]);
      expect(own(kernel), rv).toEqual(await wholeOf(`k-whole-${rv}`));
      expect(stateOf(stateDir())).toMatchObject({ version: rv, etag: d.etag, marker: markerOf(d.etag) });
    }
    expect(readdirSync(stateDir()).sort()).toEqual(['delta.iptables', 'ruleset.iptables', 'state.json']);
  });

  it('falls back to the whole artifact when the kernel refuses a delta (not at its base)', async () => {
    // The state names version 3 (the kernel still passes the check: its marker and digest), the kernel holds 4.
    const s3 = await served(base, 'node-2', '3');
    writeFileSync(join(stateDir(), 'state.json'), JSON.stringify({ ...stateOf(stateDir()), version: '3', etag: s3.etag }));
    const r = await runAgent(base, stateDir(), k, '--once');
    expect(r.code, r.stdout).toBe(0);
    expect(r.log.some((l) => l.event === 'drift')).toBe(false);
    expect(r.log.find((l) => l.event === 'delta_failed')).toMatchObject({ level: 'warn', version: '4', from: '3', kind: 'delta', error: expect.stringMatching(/^ipv4: .*iptables-restore --wait=5 --noflush failed: .*Bad rule/) });
    expect(r.log.find((l) => l.event === 'applied')).toMatchObject({ version: '4', kind: 'full', fallback: true });
    expect(own(k.kernel())).toEqual(await wholeOf('k-whole-4b'));
    expect(foreignProblems(k.kernel())).toEqual([]);
  });

  it('falls back when one family is refused after the other was applied, and when a delta ran but the kernel does not hold what it should', async () => {
    const cases: [string, unknown, string, string, RegExp][] = [
      ['5', relabel('4', 'web'), 'FAIL_ONCE_ip6tables-restore', '', /^ipv6: .*ip6tables-restore --wait=5 --noflush failed: ip6tables-restore: failed on purpose$/],
      ['6', relabel('5', 'web2'), 'LOSE_ONCE', 'comment', /^after the apply the kernel does not hold what it should: iptables chain NETPOLC-APPLIED: 0, expected 1/],
    ];
    for (const [rv, change, file, text, error] of cases) {
      await publish(base, rv, change);
      writeFileSync(join(k.dir, file), text);
      const r = await runAgent(base, stateDir(), k, '--once');
      expect(r.code, r.stdout).toBe(0);
      expect(r.log.find((l) => l.event === 'delta_failed'), rv).toMatchObject({ version: rv, kind: 'delta', error: expect.stringMatching(error) });
      expect(r.log.find((l) => l.event === 'applied'), rv).toMatchObject({ version: rv, kind: 'full', fallback: true });
      expect(own(k.kernel()), rv).toEqual(await wholeOf(`k-whole-${rv}`));
      const marker = markerOf((await served(base, 'node-2', rv)).etag);
      for (const f of ['ipv4', 'ipv6'] as const) expect(k.kernel()[f]['NETPOLC-APPLIED']).toEqual([`-m comment --comment ${marker} -j RETURN`]);
    }
  });

  it('applies the whole artifact when the server does not know the version it applied last', async () => {
    writeFileSync(join(stateDir(), 'state.json'), JSON.stringify({ ...stateOf(stateDir()), version: 'expired', etag: '"hffffffffffffffff.iptables"' }));
    const r = await runAgent(base, stateDir(), k, '--once');
    expect(r.code, r.stdout).toBe(0);
    expect(r.log.map((l) => l.event)).toEqual(['started', 'applied']);
    expect(r.log[1]).toMatchObject({ version: '6', from: 'expired', kind: 'full' });
    expect(r.log[1]!.fallback).toBeUndefined();
    expect(foreignProblems(k.kernel())).toEqual([]);
  });
});
