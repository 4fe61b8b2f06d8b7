// The reference node agent (examples/node-agent) against the real kernel: its nft runs in a
// network namespace, as an unprivileged user with CAP_NET_ADMIN alone where setpriv is there
// (what the systemd unit gives it). It applies v1 in full and the delta to v2, each with its
// marker; then the table is flushed, a chain deleted, the marker replaced, an older script
// applied by another writer and the table deleted, by hand, and each time the agent's next
// check finds it and puts back the same table. Last, a delta the kernel refuses leaves the
// marker as it was. Needs root, iproute2 and nft; where it cannot
// run it says why and skips. `npm run test:dataplane` runs it.
import { startApi } from '../support/api-server.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataplaneBlocker, run, teardown } from './netns.js';
import { markerOf as agentMarker } from '../support/agent-marker.js';

const ROOT = join(import.meta.dirname, '..', '..');
const AGENT = join(ROOT, 'examples', 'node-agent', 'agent.mjs');
const PREFIX = `npc${process.pid}-`;
const NS = `${PREFIX}agent`;

const whyNot = (): string | null => dataplaneBlocker(PREFIX, [['ip', '-V'], ['nft', '--version']], 'iproute2 nftables');

const BLOCKER = whyNot();
if (BLOCKER) console.warn(`[dataplane] agent test skipped: ${BLOCKER}`);
const SETPRIV = (() => {
  try {
    run('setpriv', ['--version']);
    return true;
  } catch {
    return false;
  }
})();
if (!BLOCKER && !SETPRIV) console.warn('[dataplane] setpriv is not installed: the agent\'s nft runs as root, not as a user with CAP_NET_ADMIN alone');

const nft = (...args: string[]) => run('ip', ['netns', 'exec', NS, 'nft', ...args]);
const nftFile = (script: string) => run('ip', ['netns', 'exec', NS, 'nft', '-f', '-'], script);

interface LogLine {
  event: string;
  version?: string;
  reason?: string;
  kind?: string;
  [k: string]: unknown;
}

describe('real kernel: the reference node agent checks and repairs table inet netpolc', () => {
  if (BLOCKER) {
    it.skip(`skipped: ${BLOCKER}`, () => {});
    return;
  }
  let server: ServerType;
  let base: string;
  let dir: string;
  let agent: ChildProcess | null = null;
  let stdout = '';

  beforeAll(async () => {
    ({ server, base } = await startApi());
    dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-kernel-'));
    teardown(NS);
    run('ip', ['netns', 'add', NS]);
  });

  afterAll(async () => {
    if (agent && agent.exitCode === null) {
      const exited = new Promise((r) => agent!.once('exit', r));
      agent.kill('SIGTERM');
      await exited;
    }
    await new Promise((resolve) => server.close(resolve));
    teardown(NS);
    rmSync(dir, { recursive: true, force: true });
  });

  const log = (): LogLine[] =>
    stdout
      .slice(0, stdout.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as LogLine);

  async function waitFor(match: (l: LogLine) => boolean, after: number): Promise<LogLine> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = log().slice(after).find(match);
      if (found) return found;
      if (Date.now() > deadline || agent?.exitCode !== null) throw new Error(`no matching log line; stdout:\n${stdout}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async function publish(rv: string, snapshot: unknown): Promise<{ script: string; etag: string }> {
    const put = await fetch(`${base}/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(snapshot) });
    expect(put.status).toBe(201);
    const res = await fetch(`${base}/v1/clusters/prod/nodes/node-2/tables?format=nftables&version=${rv}`);
    return { script: await res.text(), etag: res.headers.get('etag')! };
  }

  const markerOf = (etag: string) => agentMarker(etag, 'nftables');
  const kernelMarker = () => /elements = \{ "([^"]*)" \}/.exec(nft('list', 'set', 'inet', 'netpolc', 'netpolc_applied'))?.[1];

  it('applies v1 and the delta to v2 with the marker, and puts the same table back after each edit by hand', async () => {
    const v1 = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
    const v2 = structuredClone(v1);
    v2.items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web').metadata.labels = { app: 'web2' };
    const s1 = await publish('1', v1);

    // nft in the namespace; as uid 65534 with CAP_NET_ADMIN alone when setpriv is there (the
    // script comes on stdin: the agent's files are root's, mode 0600).
    const wrapper = join(dir, 'nft-in-netns');
    const drop = SETPRIV ? 'setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+net_admin --ambient-caps=+net_admin --bounding-set=-all,+net_admin --no-new-privs ' : '';
    writeFileSync(wrapper, `#!/bin/sh\nif [ "$1" = "-f" ]; then exec ip netns exec ${NS} ${drop}nft -f - < "$2"; fi\nexec ip netns exec ${NS} ${drop}nft "$@"\n`);
    chmodSync(wrapper, 0o755);

    agent = spawn(process.execPath, [AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-2', '--state-dir', join(dir, 'state'), '--nft', wrapper, '--interval', '0.3', '--metrics-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    agent.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    agent.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));

    await waitFor((l) => l.event === 'applied' && l.version === '1' && l.kind === 'full', 0);
    expect(kernelMarker()).toBe(markerOf(s1.etag));
    const s2 = await publish('2', v2);
    await waitFor((l) => l.event === 'applied' && l.version === '2' && l.kind === 'delta', 0);
    // The delta's transaction moved the marker too.
    expect(kernelMarker()).toBe(markerOf(s2.etag));
    const applied = nft('list', 'table', 'inet', 'netpolc');
    expect(applied).toMatch(/chain forward \{\n\t\ttype filter hook forward priority filter; policy accept;\n\t\tct state established,related accept\n/);
    const state = JSON.parse(readFileSync(join(dir, 'state', 'state.json'), 'utf8')) as { marker: string; digest: string };
    expect(state.marker).toBe(markerOf(s2.etag));

    const edits: [string, string, () => void][] = [
      ['nft flush table inet netpolc', 'edited', () => nft('flush', 'table', 'inet', 'netpolc')],
      ['nft flush chain + delete chain inet netpolc forward', 'edited', () => nftFile('flush chain inet netpolc forward\ndelete chain inet netpolc forward\n')],
      ['the marker replaced', 'marker', () => nftFile('flush set inet netpolc netpolc_applied\nadd element inet netpolc netpolc_applied { "0123456789abcde" }\n')],
      ["another writer applies v1's whole script (no marker)", 'marker', () => nftFile(s1.script)],
      ['nft delete table inet netpolc', 'missing', () => nft('delete', 'table', 'inet', 'netpolc')],
    ];
    for (const [what, reason, edit] of edits) {
      const seen = log().length;
      edit();
      const drift = await waitFor((l) => l.event === 'drift', seen);
      expect(drift.reason, what).toBe(reason);
      await waitFor((l) => l.event === 'drift_repaired' && l.version === '2' && l.kind === 'full', seen);
      expect(nft('list', 'table', 'inet', 'netpolc'), what).toBe(applied);
    }
    // Left alone, the table passes every check: polls are 304s.
    const quiet = log().length;
    await waitFor((l) => l.event === 'unchanged', quiet);
    await waitFor((l) => l.event === 'unchanged', log().length);
    expect(log().slice(quiet).some((l) => l.event === 'drift')).toBe(false);

    const ops = log().find((l) => l.event === 'metrics_listening')!.addr as string;
    const metrics = await (await fetch(`http://${ops}/metrics`)).text();
    expect(metrics).toContain('\nnetpolc_agent_drift_repairs_total 5\n');
    expect(metrics).toContain('\nnetpolc_agent_verifications_total{result="edited"} 2\n');
    expect(metrics).toContain('\nnetpolc_agent_verifications_total{result="marker"} 2\n');
    expect(metrics).toContain('\nnetpolc_agent_verifications_total{result="missing"} 1\n');
    expect(metrics).toContain('\nnetpolc_agent_applied_version_info{version="2"} 1\n');
    expect((await fetch(`http://${ops}/healthz`)).status).toBe(200);

    const exited = new Promise<number | null>((r) => agent!.once('exit', r));
    agent.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
    // Stopping the agent leaves the ruleset in the kernel.
    expect(nft('list', 'table', 'inet', 'netpolc')).toBe(applied);
    // A refused delta leaves the marker as it was: the marker lines are part of its transaction.
    const marker = (m: string) => `add set inet netpolc netpolc_applied { type ifname; }\nflush set inet netpolc netpolc_applied\nadd element inet netpolc netpolc_applied { "${m}" }\n`;
    expect(() => nftFile(`delete element inet netpolc node_addresses_v4 { 192.0.2.1 }\n${marker('0123456789abcde')}`)).toThrow(/No such file or directory/);
    expect(nft('list', 'table', 'inet', 'netpolc')).toBe(applied);
  });
});
