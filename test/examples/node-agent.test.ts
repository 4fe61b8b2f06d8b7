// examples/node-agent/agent.mjs as a real process against the API served by @hono/node-server on
// an ephemeral port (memory store, tokens on). nft is a stand-in (fake-nft.mjs, written below)
// that keeps a "kernel" in a file: whole scripts replace it, deltas append to it, `list table`
// prints it with the agent's marker set, and the test edits, re-marks or deletes it behind the
// agent's back. Covered: full apply, 304, deltas and their fall-back, --dry-run writing and
// running nothing, the kernel check (missing table, another marker, an edited table → the whole
// script again, counted as a drift repair), JSON logs, /metrics and /healthz, token rotation by
// file change and after a 401, backoff and SIGTERM.
import { startApi } from '../support/api-server.js';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { parseTokens } from '../../functions/access/tokens.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { makeToken, tokenPolicy, type TestToken } from '../support/tokens.js';
import { parseLog, Running, type LogLine } from './agent-process.js';
import { markerOf as agentMarker } from '../support/agent-marker.js';

const ROOT = join(import.meta.dirname, '..', '..');
const AGENT = join(ROOT, 'examples', 'node-agent', 'agent.mjs');
const v1 = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
// shop/web loses the label shop/db's NetworkPolicy admits: node-2 (shop/db's node) changes.
const v2 = structuredClone(v1);
v2.items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web').metadata.labels = { app: 'web2' };

const writer = makeToken('write:cluster=prod');
const agentToken = makeToken('read:cluster=prod,node=node-2');
let server: ServerType;
let base: string;
let dir: string;
let fakeNft: string;

// The stand-in for nft. FAKE_NFT_DIR holds `kernel` (the table as applied; absent: no table),
// `calls.jsonl` (every call), and switches: FAIL (every -f fails), REFUSE_DELTA (deltas fail).
const FAKE_NFT = `
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.env.FAKE_NFT_DIR;
const kernel = join(dir, 'kernel');
const args = process.argv.slice(2);
if (args[0] === 'list') {
  appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ args }) + '\\n');
  if (!existsSync(kernel)) { console.error('Error: No such file or directory\\nlist table inet netpolc'); process.exit(1); }
  const text = readFileSync(kernel, 'utf8');
  const markers = [...text.matchAll(/^add element inet netpolc netpolc_applied \\{ "([^"]*)" \\}$/gm)];
  const marker = markers.length ? '\\tset netpolc_applied {\\n\\t\\ttype ifname\\n\\t\\telements = { "' + markers.at(-1)[1] + '" }\\n\\t}\\n' : '';
  process.stdout.write('table inet netpolc {\\n' + marker + text.split('\\n').filter((l) => l && !l.includes('netpolc_applied')).map((l) => '\\t# ' + l + '\\n').join('') + '}\\n');
  process.exit(0);
}
const script = readFileSync(args[1], 'utf8');
if (existsSync(join(dir, 'FAIL'))) { console.error('Error: syntax error'); process.exit(1); }
if (existsSync(join(dir, 'REFUSE_DELTA')) && script.startsWith('# netpolc: nftables delta')) { console.error('Error: Could not process rule: No such file or directory'); process.exit(1); }
appendFileSync(join(dir, 'calls.jsonl'), JSON.stringify({ args, script }) + '\\n');
if (script.includes('\\ndelete table inet netpolc\\n')) writeFileSync(kernel, script);
else appendFileSync(kernel, script);
`;

beforeAll(async () => {
  ({ server, base } = await startApi(tokenPolicy(writer, agentToken)));
  dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-'));
  writeFileSync(join(dir, 'token'), `${agentToken.token}\n`);
  fakeNft = join(dir, 'fake-nft.mjs');
  writeFileSync(fakeNft, `#!${process.execPath}\n${FAKE_NFT}`);
  chmodSync(fakeNft, 0o755);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function publish(rv: string, snapshot: unknown): Promise<void> {
  const res = await fetch(`${base}/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { ...writer.header, 'content-type': 'application/json' }, body: JSON.stringify(snapshot) });
  expect(res.status).toBe(201);
}

/** What the API serves for the node, fetched by the test itself. */
async function served(node: string, version: string, since?: string): Promise<{ script: string; etag: string }> {
  const res = await fetch(`${base}/v1/clusters/prod/nodes/${node}/tables?format=nftables&version=${version}${since ? `&since=${since}` : ''}`, { headers: writer.header });
  return { script: await res.text(), etag: res.headers.get('etag')! };
}

const markerOf = (etag: string) => agentMarker(etag, 'nftables');

/** The script as the agent hands it to nft: the server's, then its marker lines. */
const marked = (script: string, etag: string) =>
  `${script}# netpolc-agent: what this node applied, in the same transaction; read back to check the kernel\nadd set inet netpolc netpolc_applied { type ifname; }\nflush set inet netpolc netpolc_applied\nadd element inet netpolc netpolc_applied { "${markerOf(etag)}" }\n`;

/** A directory for one fake kernel. */
function fakeKernel(name: string): { dir: string; env: NodeJS.ProcessEnv; calls: () => { args: string[]; script?: string }[]; applies: () => string[] } {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const calls = () => (existsSync(join(d, 'calls.jsonl')) ? readFileSync(join(d, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { args: string[]; script?: string }) : []);
  return { dir: d, env: { ...process.env, FAKE_NFT_DIR: d }, calls, applies: () => calls().filter((c) => c.args[0] === '-f').map((c) => c.script!) };
}

const agentArgs = (stateDir: string, extra: string[], node = 'node-2') => [AGENT, '--server', base, '--cluster', 'prod', '--node', node, '--token-file', join(dir, 'token'), '--state-dir', stateDir, ...extra];

function runAgent(stateDir: string, env: NodeJS.ProcessEnv, ...extra: string[]) {
  // Async spawn: the server answering the agent lives in this process's event loop.
  return new Promise<{ code: number | null; stdout: string; stderr: string; log: LogLine[] }>((resolve) => {
    const child = spawn(process.execPath, agentArgs(stateDir, extra), { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr, log: parseLog(stdout) }));
  });
}

/** A loopback port nothing listens on (one just closed): connections to it are refused. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const stateOf = (stateDir: string) => JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as { version: string; etag: string; marker: string; digest: string; appliedAt: string };

/** The samples of a Prometheus text exposition, by series (name and labels as printed). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('#')) continue;
    const m = /^(\S+) (\S+)$/.exec(l);
    expect(m, l).not.toBeNull();
    out.set(m![1]!, Number(m![2]));
  }
  return out;
}

describe('reference node agent (--once)', () => {
  it('applies v1 in full with its marker, answers a 304 with nothing applied, then applies the delta to v2', async () => {
    const stateDir = join(dir, 'main');
    const k = fakeKernel('k-main');
    await publish('1', v1);
    const s1 = await served('node-2', '1');
    expect(s1.script).toContain('delete table inet netpolc');
    const first = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(k.applies()).toEqual([marked(s1.script, s1.etag)]);
    // Applied, then read back: the state holds the marker and the digest of that listing.
    expect(k.calls().map((c) => c.args.join(' '))).toEqual([`-f ${join(stateDir, `ruleset.nft.${k.calls()[0]!.args[1]!.split('ruleset.nft.')[1]}`)}`, 'list table inet netpolc']);
    expect(k.calls()[0]!.args[1]).toMatch(/ruleset\.nft\.\d+\.tmp$/);
    const applied = first.log.find((l) => l.event === 'applied')!;
    expect(applied).toMatchObject({ level: 'info', version: '1', etag: s1.etag, bytes: Buffer.byteLength(marked(s1.script, s1.etag)), kind: 'full' });
    expect(applied.ms).toBeTypeOf('number');
    expect(Object.keys(applied).slice(0, 3)).toEqual(['time', 'level', 'event']);
    expect(stateOf(stateDir)).toMatchObject({ version: '1', etag: s1.etag, marker: markerOf(s1.etag), digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(readFileSync(join(stateDir, 'ruleset.nft'), 'utf8')).toBe(marked(s1.script, s1.etag));
    const stateAfterFirst = stateOf(stateDir);

    const second = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(second.code).toBe(0);
    expect(second.log.map((l) => l.event)).toEqual(['started', 'unchanged']);
    expect(second.log[1]).toMatchObject({ version: '1', etag: s1.etag });
    expect(stateOf(stateDir)).toEqual(stateAfterFirst);
    expect(k.applies()).toHaveLength(1);

    await publish('2', v2);
    const s2 = await served('node-2', '2');
    expect(s2.etag).not.toBe(s1.etag);
    // Only a set's members changed on node-2: the agent gets and applies the delta, marker and all.
    const d12 = await served('node-2', '2', '1');
    expect(d12.script).toMatch(/^# netpolc: nftables delta for node node-2 from version 1 to 2/);
    const third = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(third.code, third.stdout).toBe(0);
    expect(third.log.find((l) => l.event === 'applied')).toMatchObject({ version: '2', etag: s2.etag, from: '1', kind: 'delta' });
    expect(k.applies()[1]).toBe(marked(d12.script, s2.etag));
    expect(stateOf(stateDir)).toMatchObject({ version: '2', etag: s2.etag, marker: markerOf(s2.etag) });
    expect(stateOf(stateDir).digest).not.toBe(stateAfterFirst.digest);
    // No temp files left behind.
    expect(readdirSync(stateDir).sort()).toEqual(['delta.nft', 'ruleset.nft', 'state.json']);
  });

  it('--dry-run logs the script it would apply, and runs no nft and writes no file', async () => {
    const k = fakeKernel('k-dry');
    const fresh = join(dir, 'dry-fresh');
    const s2 = await served('node-2', '2');
    const run = await runAgent(fresh, k.env, '--once', '--dry-run', '--nft', fakeNft);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const would = run.log.find((l) => l.event === 'would_apply')!;
    expect(would).toMatchObject({ version: '2', etag: s2.etag, kind: 'full', script: marked(s2.script, s2.etag), nft: `${fakeNft} -f ${join(fresh, 'ruleset.nft')}` });
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(join(k.dir, 'calls.jsonl'))).toBe(false);

    // From a recorded state: the delta it would apply; the state stays as it was, byte for byte.
    const recorded = join(dir, 'dry-recorded');
    mkdirSync(recorded);
    const s1 = await served('node-2', '1');
    const state = `${JSON.stringify({ version: '1', etag: s1.etag, marker: markerOf(s1.etag), digest: 'sha256:x', appliedAt: '2020-01-01T00:00:00.000Z' })}\n`;
    writeFileSync(join(recorded, 'state.json'), state);
    const delta = await runAgent(recorded, k.env, '--once', '--dry-run', '--nft', fakeNft);
    expect(delta.code, delta.stdout).toBe(0);
    expect(delta.log.find((l) => l.event === 'would_apply')).toMatchObject({ version: '2', from: '1', kind: 'delta', script: marked((await served('node-2', '2', '1')).script, s2.etag) });
    expect(readFileSync(join(recorded, 'state.json'), 'utf8')).toBe(state);
    expect(readdirSync(recorded)).toEqual(['state.json']);
    expect(existsSync(join(k.dir, 'calls.jsonl'))).toBe(false);

    // Polling: what it would apply is remembered in memory, so the next poll is a 304.
    const polling = new Running(agentArgs(fresh, ['--dry-run', '--nft', fakeNft, '--interval', '0.1']), k.env);
    await polling.waitFor((l) => l.event === 'would_apply');
    await polling.waitFor((l) => l.event === 'unchanged' && l.version === '2');
    expect(await polling.stop()).toBe(0);
    expect(polling.log.filter((l) => l.event === 'would_apply')).toHaveLength(1);
    expect(existsSync(fresh)).toBe(false);
    expect(existsSync(join(k.dir, 'calls.jsonl'))).toBe(false);
  });

  it('runs nft -f on the complete script, records nothing when nft fails, and re-applies when the table is gone', async () => {
    const stateDir = join(dir, 'nft');
    const k = fakeKernel('k-nft');
    writeFileSync(join(k.dir, 'FAIL'), '');
    const failed = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(failed.code).toBe(1);
    expect(failed.log.find((l) => l.event === 'poll_failed')).toMatchObject({ level: 'error', error: expect.stringContaining('failed: Error: syntax error') });
    expect(existsSync(join(stateDir, 'state.json'))).toBe(false);
    expect(readdirSync(stateDir)).toEqual([]);

    rmSync(join(k.dir, 'FAIL'));
    const ok = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(ok.code, ok.stdout).toBe(0);
    const latest = await served('node-2', '2');
    expect(k.applies()).toEqual([marked(latest.script, latest.etag)]);
    expect(stateOf(stateDir)).toMatchObject({ version: '2', etag: latest.etag });

    // Nothing changed on the server, but the kernel lost the table (nft flush ruleset, a reboot):
    // the agent checks the kernel, not only its state file, and applies the whole script again.
    rmSync(join(k.dir, 'kernel'));
    const again = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(again.code, again.stdout).toBe(0);
    expect(again.log.find((l) => l.event === 'drift')).toMatchObject({ level: 'warn', reason: 'missing', version: '2', error: expect.stringContaining('table inet netpolc is not in the kernel') });
    expect(again.log.find((l) => l.event === 'drift_repaired')).toMatchObject({ version: '2', kind: 'full' });
    expect(k.applies()).toEqual([marked(latest.script, latest.etag), marked(latest.script, latest.etag)]);
    // With the table there, the next poll is a 304 again.
    const quiet = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(quiet.log.map((l) => l.event)).toEqual(['started', 'unchanged']);
  });

  it('re-applies the whole script when the table was edited, or carries another marker', async () => {
    const stateDir = join(dir, 'edited');
    const k = fakeKernel('k-edited');
    const latest = await served('node-2', '2');
    expect((await runAgent(stateDir, k.env, '--once', '--nft', fakeNft)).code).toBe(0);

    // Someone adds a rule by hand: the listing's digest changes, the marker does not.
    appendFileSync(join(k.dir, 'kernel'), 'add rule inet netpolc input drop\n');
    const edited = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(edited.code, edited.stdout).toBe(0);
    expect(edited.log.find((l) => l.event === 'drift')).toMatchObject({ reason: 'edited', error: expect.stringContaining('it was edited') });
    expect(edited.log.find((l) => l.event === 'drift_repaired')).toMatchObject({ version: '2', kind: 'full', repair: 'edited' });
    expect(k.applies()).toEqual([marked(latest.script, latest.etag), marked(latest.script, latest.etag)]);
    expect(readFileSync(join(k.dir, 'kernel'), 'utf8')).not.toContain('add rule inet netpolc input drop');

    // Another writer applied another version (its marker, or none): the whole script, not a delta.
    const kernel = readFileSync(join(k.dir, 'kernel'), 'utf8');
    writeFileSync(join(k.dir, 'kernel'), kernel.replaceAll(markerOf(latest.etag), '0123456789abcde'));
    const remarked = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(remarked.code, remarked.stdout).toBe(0);
    expect(remarked.log.find((l) => l.event === 'drift')).toMatchObject({ reason: 'marker', error: expect.stringContaining('"0123456789abcde"') });
    expect(remarked.log.find((l) => l.event === 'drift_repaired')).toMatchObject({ kind: 'full', repair: 'marker' });
    expect(k.applies()).toHaveLength(3);
    expect(k.applies()[2]).toBe(marked(latest.script, latest.etag));

    const quiet = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(quiet.log.map((l) => l.event)).toEqual(['started', 'unchanged']);
  });

  it("falls back to the whole script when a delta does not apply (the kernel is not at the delta's base)", async () => {
    const stateDir = join(dir, 'delta-fallback');
    const k = fakeKernel('k-fallback');
    const first = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(first.code, first.stdout).toBe(0);
    // The agent last applied version 1 (its state says so, and the kernel carries that marker), the server is at version 2.
    const s1 = await served('node-2', '1');
    writeFileSync(join(k.dir, 'kernel'), marked(s1.script, s1.etag));
    const listing = spawnSync(fakeNft, ['list', 'table', 'inet', 'netpolc'], { env: k.env, encoding: 'utf8' }).stdout;
    writeFileSync(join(stateDir, 'state.json'), JSON.stringify({ ...stateOf(stateDir), version: '1', etag: s1.etag, marker: markerOf(s1.etag), digest: `sha256:${createHash('sha256').update(listing).digest('hex')}` }));
    writeFileSync(join(k.dir, 'REFUSE_DELTA'), '');
    const second = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(second.code, second.stdout).toBe(0);
    expect(second.log.some((l) => l.event === 'drift')).toBe(false);
    expect(second.log.find((l) => l.event === 'delta_failed')).toMatchObject({ level: 'warn', version: '2', kind: 'delta', error: expect.stringContaining('Could not process rule') });
    expect(second.log.find((l) => l.event === 'applied')).toMatchObject({ version: '2', kind: 'full', fallback: true });
    expect(k.applies().map((s) => s.split('\n')[0])).toEqual(['# netpolc: nftables ruleset for node node-2 (set form). Apply with nft -f; re-applying replaces the table atomically.', '# netpolc: nftables ruleset for node node-2 (set form). Apply with nft -f; re-applying replaces the table atomically.']);
    expect(stateOf(stateDir)).toMatchObject({ version: '2', etag: (await served('node-2', '2')).etag });
  });

  it('fails --once with the reason on a token that does not fit, and needs its flags', async () => {
    const k = fakeKernel('k-denied');
    const denied = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, agentArgs(join(dir, 'denied'), ['--once', '--nft', fakeNft], 'node-1'), { stdio: ['ignore', 'pipe', 'ignore'], env: k.env });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.once('exit', (code) => resolve({ code, stdout }));
    });
    expect(denied.code).toBe(1);
    expect(parseLog(denied.stdout).find((l) => l.event === 'poll_failed')).toMatchObject({ status: 403, error: expect.stringContaining('answered 403') });
    expect(denied.stdout).not.toContain(agentToken.token);
    // spawnSync is fine here: the agent stops at its flags, before any request to this process.
    const usage = spawnSync(process.execPath, [AGENT, '--cluster', 'prod'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('--server is required');
  });

  // It moves the cluster to version 4.
  it('applies a structural delta (a policy added: new chains and sets, pods rebound) as one script', async () => {
    const stateDir = join(dir, 'main');
    const k = fakeKernel('k-main');
    const v3 = structuredClone(v2);
    v3.items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty', labels: {} } });
    await publish('3', v3);
    // A namespace without pods changes no pod's tables: a 304 that records the version.
    const unchanged = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(unchanged.log.find((l) => l.event === 'unchanged')).toMatchObject({ version: '3' });
    expect(stateOf(stateDir).version).toBe('3');
    const v4 = structuredClone(v3);
    // Prometheus (on node-2) becomes isolated: a new table and a new set, its binding changes.
    v4.items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'scrape-from-shop', namespace: 'monitoring' }, spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'shop' } } }], ports: [{ port: 9090 }] }] } });
    await publish('4', v4);
    const d34 = await served('node-2', '4', '3');
    expect(d34.script).toMatch(/^table inet netpolc \{$/m);
    expect(d34.script).toMatch(/^add element inet netpolc pod_ingress_v4 /m);
    const s4 = await served('node-2', '4');
    const run = await runAgent(stateDir, k.env, '--once', '--nft', fakeNft);
    expect(run.code, run.stdout).toBe(0);
    expect(run.log.find((l) => l.event === 'applied')).toMatchObject({ version: '4', from: '3', kind: 'delta' });
    expect(k.applies().at(-1)).toBe(marked(d34.script, s4.etag));
    expect(stateOf(stateDir)).toMatchObject({ version: '4', marker: markerOf(s4.etag) });
  });
});

describe('reference node agent (polling)', () => {
  it('checks the kernel every interval, repairs drift with the whole script, and reports it on /metrics and /healthz', async () => {
    const stateDir = join(dir, 'polling');
    const k = fakeKernel('k-polling');
    const s4 = await served('node-2', '4');
    const agent = new Running(agentArgs(stateDir, ['--nft', fakeNft, '--interval', '0.2', '--metrics-addr', '127.0.0.1:0']), k.env);
    try {
      const ops = await agent.opsBase();
      await agent.waitFor((l) => l.event === 'applied' && l.version === '4');
      await agent.waitFor((l) => l.event === 'unchanged');

      // Three kinds of drift, each repaired on the next check with the whole script (no since).
      const edits: [string, () => void][] = [
        ['edited', () => appendFileSync(join(k.dir, 'kernel'), 'add rule inet netpolc forward accept\n')],
        ['marker', () => writeFileSync(join(k.dir, 'kernel'), readFileSync(join(k.dir, 'kernel'), 'utf8').replaceAll(markerOf(s4.etag), 'fedcba987654321'))],
        ['missing', () => rmSync(join(k.dir, 'kernel'))],
      ];
      for (const [reason, edit] of edits) {
        const seen = agent.log.length;
        const applied = k.applies().length;
        edit();
        await agent.waitFor((l) => l.event === 'drift' && l.reason === reason, seen);
        await agent.waitFor((l) => l.event === 'drift_repaired' && l.version === '4', seen);
        expect(k.applies().slice(applied)).toEqual([marked(s4.script, s4.etag)]);
      }
      await agent.waitFor((l) => l.event === 'unchanged', agent.log.length);

      const health = await fetch(`${ops}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.text()).toMatch(/^ok: version 4, last successful poll [\d.]+ s ago, last kernel check [\d.]+ s ago\n$/);
      const res = await fetch(`${ops}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await res.text();
      for (const name of ['applied_version_info', 'last_apply_timestamp_seconds', 'apply_errors_total', 'polls_total', 'verifications_total', 'drift_repairs_total', 'lag_seconds']) {
        expect(text).toContain(`# TYPE netpolc_agent_${name} `);
        expect(text).toContain(`# HELP netpolc_agent_${name} `);
      }
      const m = samples(text);
      expect(m.get('netpolc_agent_applied_version_info{version="4"}')).toBe(1);
      expect(m.get('netpolc_agent_drift_repairs_total')).toBe(3);
      expect(m.get('netpolc_agent_polls_total{result="full"}')).toBe(4);
      expect(m.get('netpolc_agent_polls_total{result="delta"}')).toBe(0);
      expect(m.get('netpolc_agent_polls_total{result="304"}')).toBeGreaterThanOrEqual(2);
      expect(m.get('netpolc_agent_polls_total{result="error"}')).toBe(0);
      expect(m.get('netpolc_agent_apply_errors_total{kind="full"}')).toBe(0);
      expect(m.get('netpolc_agent_apply_errors_total{kind="delta"}')).toBe(0);
      for (const r of ['edited', 'marker', 'missing']) expect(m.get(`netpolc_agent_verifications_total{result="${r}"}`)).toBe(1);
      expect(m.get('netpolc_agent_verifications_total{result="ok"}')).toBeGreaterThanOrEqual(1);
      const lastApply = m.get('netpolc_agent_last_apply_timestamp_seconds')!;
      expect(Math.abs(lastApply - Date.parse(stateOf(stateDir).appliedAt) / 1000)).toBeLessThan(0.002);
      expect(m.get('netpolc_agent_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(m.get('netpolc_agent_lag_seconds')).toBeLessThan(5);
      expect((await fetch(`${ops}/nothing`)).status).toBe(404);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
    expect(agent.log.at(-1)).toMatchObject({ event: 'stopping', signal: 'SIGTERM' });
  });

  it('backs off on errors, answers /healthz 503 with the reason, and exits cleanly on SIGTERM', async () => {
    // A port nothing listens on: every poll fails; the agent keeps trying until told to stop.
    const port = await closedPort();
    const agent = new Running([AGENT, '--server', `http://127.0.0.1:${port}`, '--cluster', 'prod', '--node', 'node-2', '--state-dir', join(dir, 'poll'), '--interval', '0.05', '--max-backoff', '0.2', '--metrics-addr', '127.0.0.1:0']);
    const ops = await agent.opsBase();
    const deadline = Date.now() + 15_000;
    while (agent.log.filter((l) => l.event === 'poll_failed').length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(agent.log.filter((l) => l.event === 'poll_failed').length).toBeGreaterThanOrEqual(3);
    // 3 intervals without a successful poll or kernel check.
    await new Promise((r) => setTimeout(r, 200));
    const health = await fetch(`${ops}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.text()).toMatch(/^unhealthy: no successful poll or kernel check since the agent started [\d.]+ s ago \(limit: 3 intervals, 0\.150 s\); last poll error: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+; kernel: not checked\n$/);
    const m = samples(await (await fetch(`${ops}/metrics`)).text());
    expect(m.get('netpolc_agent_polls_total{result="error"}')).toBeGreaterThanOrEqual(3);
    expect(m.get('netpolc_agent_last_apply_timestamp_seconds')).toBe(0);
    expect(m.get('netpolc_agent_lag_seconds')).toBeGreaterThan(0.15);
    expect([...m.keys()].some((s) => s.startsWith('netpolc_agent_applied_version_info'))).toBe(false);
    expect(await agent.stop()).toBe(0);
    expect(agent.stderr).toBe('');
    expect(agent.log.at(-1)).toMatchObject({ event: 'stopping', signal: 'SIGTERM' });
  });

  it('stays healthy while the server is down and the kernel still holds what was applied', async () => {
    const stateDir = join(dir, 'server-down');
    const k = fakeKernel('k-server-down');
    expect((await runAgent(stateDir, k.env, '--once', '--nft', fakeNft)).code).toBe(0);
    const port = await closedPort();
    const agent = new Running([AGENT, '--server', `http://127.0.0.1:${port}`, '--cluster', 'prod', '--node', 'node-2', '--state-dir', stateDir, '--nft', fakeNft, '--interval', '0.5', '--max-backoff', '30', '--metrics-addr', '127.0.0.1:0'], k.env);
    try {
      const ops = await agent.opsBase();
      await agent.waitFor((l) => l.event === 'poll_failed');
      // Past 3 intervals (1.5 s) without a successful poll: the kernel checks keep it healthy.
      await new Promise((r) => setTimeout(r, 2000));
      const health = await fetch(`${ops}/healthz`);
      expect(health.status, await health.clone().text()).toBe(200);
      expect(await health.text()).toMatch(/last successful poll never, last kernel check [\d.]+ s ago/);
      // The kernel is checked every interval even while polls back off; a lost table makes it unhealthy.
      rmSync(join(k.dir, 'kernel'));
      await agent.waitFor((l) => l.event === 'drift' && l.reason === 'missing');
      await new Promise((r) => setTimeout(r, 1600));
      const lost = await fetch(`${ops}/healthz`);
      expect(lost.status).toBe(503);
      expect(await lost.text()).toMatch(/; last poll error: fetch failed: connect ECONNREFUSED 127\.0\.0\.1:\d+; kernel: table inet netpolc is not in the kernel \(/);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
  });
});

describe('reference node agent (token rotation)', () => {
  let rotServer: ServerType;
  let rotBase: string;
  const policy = { kind: 'tokens' as const, tokens: [] as ReturnType<typeof parseTokens> };
  const seen: (string | null)[] = [];
  const allow = (...tokens: TestToken[]) => policy.tokens.splice(0, policy.tokens.length, ...parseTokens([writer, ...tokens].map((t) => t.entry).join(' ')));

  beforeAll(async () => {
    allow();
    // The same store is not needed: a second app, the policy's tokens swapped in place as a rotation would.
    const app = createApp({ store: createMemoryStore(), access: policy });
    await new Promise<void>((resolve) => {
      rotServer = serve(
        {
          fetch: (req: Request) => {
            if (new URL(req.url).pathname.includes('/nodes/')) seen.push(req.headers.get('authorization'));
            return app.fetch(req);
          },
          port: 0,
          hostname: '127.0.0.1',
        },
        () => resolve(),
      );
    });
    rotBase = `http://127.0.0.1:${(rotServer.address() as AddressInfo).port}`;
    const res = await fetch(`${rotBase}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: { ...writer.header, 'content-type': 'application/json' }, body: JSON.stringify(v1) });
    expect(res.status).toBe(201);
  });

  afterAll(async () => {
    await new Promise((resolve) => rotServer.close(resolve));
  });

  it('reads the token file again when it changes, and after a 401', async () => {
    const [a, b, c] = [1, 2, 3].map(() => makeToken('read:cluster=prod,node=node-2')) as [TestToken, TestToken, TestToken];
    expect(new Set([a, b, c].map((t) => t.token.length)).size).toBe(1);
    const tokenFile = join(dir, 'rotating-token');
    writeFileSync(tokenFile, `${a.token}\n`);
    // Whole seconds: a time utimes sets back exactly.
    const fixed = new Date('2030-01-01T00:00:00Z');
    allow(a);
    const k = fakeKernel('k-rotation');
    const agent = new Running([AGENT, '--server', rotBase, '--cluster', 'prod', '--node', 'node-2', '--token-file', tokenFile, '--state-dir', join(dir, 'rotation'), '--nft', fakeNft, '--interval', '0.1'], k.env);
    try {
      await agent.waitFor((l) => l.event === 'applied');
      await agent.waitFor((l) => l.event === 'unchanged');
      expect(seen.at(-1)).toBe(a.header.authorization);

      // Rotation as an operator does it: the new token is valid, the file changes, the old one is revoked.
      allow(a, b);
      writeFileSync(tokenFile, `${b.token}\n`);
      utimesSync(tokenFile, fixed, fixed);
      const reloaded = await agent.waitFor((l) => l.event === 'token_reloaded');
      expect(reloaded).toMatchObject({ reason: 'the token file changed', file: tokenFile });
      allow(b);
      const after = agent.log.length;
      await agent.waitFor((l) => l.event === 'unchanged', after);
      await agent.waitFor((l) => l.event === 'unchanged', agent.log.length);
      expect(seen.at(-1)).toBe(b.header.authorization);

      // A file that changed without its mtime, size or inode showing it (a coarse clock): the
      // server's 401 makes the agent read it again and retry at once, with no failed poll.
      // The agent is stopped meanwhile, so it cannot see the file between the write and the utimes.
      agent.signal('SIGSTOP');
      const before = statSync(tokenFile);
      writeFileSync(tokenFile, `${c.token}\n`);
      utimesSync(tokenFile, fixed, fixed);
      const rewritten = statSync(tokenFile);
      expect([rewritten.mtimeMs, rewritten.size, rewritten.ino]).toEqual([before.mtimeMs, before.size, before.ino]);
      allow(c);
      agent.signal('SIGCONT');
      const seenAt = seen.length;
      const mark = agent.log.length;
      await agent.waitFor((l) => l.event === 'token_reloaded' && l.reason === 'the server answered 401', mark);
      await agent.waitFor((l) => l.event === 'unchanged', mark);
      const tail = seen.slice(seenAt);
      const firstC = tail.indexOf(c.header.authorization);
      expect(firstC).toBeGreaterThan(0);
      expect(tail[firstC - 1]).toBe(b.header.authorization);
      expect(seen.at(-1)).toBe(c.header.authorization);
      expect(agent.log.some((l) => l.event === 'poll_failed')).toBe(false);
    } finally {
      expect(await agent.stop()).toBe(0);
    }
    for (const t of [a, b, c]) expect(agent.stdout).not.toContain(t.token);
  });
});

describe('reference node agent (deployment examples)', () => {
  it('daemonset.yaml: host network, NET_ADMIN, node name from spec.nodeName, token Secret as a file, liveness on /healthz of the metrics port', () => {
    const ds = load(readFileSync(join(ROOT, 'examples', 'node-agent', 'daemonset.yaml'), 'utf8')) as any;
    expect(ds).toMatchObject({ apiVersion: 'apps/v1', kind: 'DaemonSet' });
    expect(ds.spec.selector.matchLabels).toEqual(ds.spec.template.metadata.labels);
    const pod = ds.spec.template.spec;
    expect(pod.hostNetwork).toBe(true);
    const [c] = pod.containers;
    expect(c.securityContext.capabilities.add).toEqual(['NET_ADMIN']);
    expect(c.env.find((e: any) => e.name === 'NODE_NAME').valueFrom.fieldRef.fieldPath).toBe('spec.nodeName');
    const script = c.command.join(' ');
    expect(script).toContain('apk add --no-cache nftables');
    expect(script).toContain('--node "$NODE_NAME"');
    expect(script).toContain('--token-file /etc/netpolc/token');
    expect(script).toContain('--metrics-addr "$NODE_IP:9464"');
    expect(c.ports).toEqual([{ name: 'metrics', containerPort: 9464, protocol: 'TCP' }]);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    const mounts = Object.fromEntries(c.volumeMounts.map((m: any) => [m.name, m]));
    const volumes = Object.fromEntries(pod.volumes.map((v: any) => [v.name, v]));
    expect(mounts.token).toMatchObject({ mountPath: '/etc/netpolc', readOnly: true });
    expect(mounts.token.subPath).toBeUndefined();
    expect(volumes.token.secret.secretName).toBe('netpolc-agent-token');
    expect(volumes.code.configMap.name).toBe('netpolc-agent-code');
    expect(mounts.state.mountPath).toBe('/var/lib/netpolc-agent');
    // Every agent flag the command uses exists.
    const source = readFileSync(AGENT, 'utf8');
    const flags = script.match(/--[a-z-]+(?= )/g)!.filter((f: string) => f !== '--no-cache');
    expect(flags).toEqual(['--server', '--cluster', '--node', '--token-file', '--state-dir', '--metrics-addr']);
    for (const flag of flags) expect(source).toMatch(new RegExp(`^  '?${flag.slice(2)}'?: \\{ type: 'string'`, 'm'));
  });

  it('netpolc-agent.service: CAP_NET_ADMIN only, no new privileges, the state dir the only writable path, restarted always', () => {
    const unit = readFileSync(join(ROOT, 'examples', 'node-agent', 'netpolc-agent.service'), 'utf8');
    const directives = new Map(unit.split('\n').filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(directives.get('Restart')).toBe('always');
    expect(directives.get('AmbientCapabilities')).toBe('CAP_NET_ADMIN');
    expect(directives.get('CapabilityBoundingSet')).toBe('CAP_NET_ADMIN');
    expect(directives.get('NoNewPrivileges')).toBe('yes');
    expect(directives.get('ProtectSystem')).toBe('strict');
    expect(directives.get('ReadWritePaths')).toBe('/var/lib/netpolc-agent');
    expect(directives.get('StateDirectory')).toBe('netpolc-agent');
    expect(directives.get('ExecStart')).toContain('--state-dir /var/lib/netpolc-agent');
    expect(directives.get('ExecStart')).toContain('--metrics-addr 127.0.0.1:9464');
  });
});
