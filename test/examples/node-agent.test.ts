// examples/node-agent/agent.mjs as a real process against the API served by @hono/node-server on
// an ephemeral port (memory store, tokens on): full apply of v1, a 304 that applies nothing, v2
// applied, the state file after each run; nft replaced by a recording stand-in for the apply
// path; backoff on errors and a clean exit on SIGTERM.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { makeToken, tokenPolicy } from '../support/tokens.js';

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

beforeAll(async () => {
  const app = createApp({ store: createMemoryStore(), access: tokenPolicy(writer, agentToken) });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), 'netpolc-agent-'));
  writeFileSync(join(dir, 'token'), `${agentToken.token}\n`);
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

const agentArgs = (stateDir: string, extra: string[]) => [AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-2', '--token-file', join(dir, 'token'), '--state-dir', stateDir, ...extra];

function runAgent(stateDir: string, ...extra: string[]) {
  // Async spawn: the server answering the agent lives in this process's event loop.
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, agentArgs(stateDir, extra), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const stateOf = (stateDir: string) => JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8')) as { version: string; etag: string; appliedAt: string };

describe('reference node agent (--once)', () => {
  it('applies v1 in full, then answers a 304 with nothing applied, then applies v2', async () => {
    const stateDir = join(dir, 'dry');
    await publish('1', v1);
    const first = await runAgent(stateDir, '--once', '--dry-run');
    expect(first.code, first.stderr).toBe(0);
    const s1 = await served('node-2', '1');
    expect(s1.script).toContain('delete table inet netpolc');
    expect(first.stdout).toBe(`# --dry-run: would run nft -f ${join(stateDir, 'ruleset.nft')} for version 1\n${s1.script}`);
    expect(first.stderr).toContain('would apply version 1');
    expect(stateOf(stateDir)).toMatchObject({ version: '1', etag: s1.etag });
    expect(readFileSync(join(stateDir, 'ruleset.nft'), 'utf8')).toBe(s1.script);
    const stateAfterFirst = stateOf(stateDir);

    const second = await runAgent(stateDir, '--once', '--dry-run');
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toContain('unchanged (version 1)');
    expect(stateOf(stateDir)).toEqual(stateAfterFirst);

    await publish('2', v2);
    const s2 = await served('node-2', '2');
    expect(s2.etag).not.toBe(s1.etag);
    // Only a set's members changed on node-2: the agent gets and applies the delta.
    const d12 = await served('node-2', '2', '1');
    expect(d12.script).toMatch(/^# netpolc: nftables delta for node node-2 from version 1 to 2/);
    const third = await runAgent(stateDir, '--once', '--dry-run');
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toBe(`# --dry-run: would run nft -f ${join(stateDir, 'delta.nft')} for version 2\n${d12.script}`);
    expect(third.stderr).toContain('would apply version 2 (was 1)');
    expect(stateOf(stateDir)).toMatchObject({ version: '2', etag: s2.etag });
    // No temp files left behind.
    expect(readdirSync(stateDir).sort()).toEqual(['delta.nft', 'ruleset.nft', 'state.json']);
  });

  it('records a newer version whose tables for the node did not change, applying nothing', async () => {
    const stateDir = join(dir, 'dry');
    // A namespace without pods changes no pod's tables.
    const v3 = structuredClone(v2);
    v3.items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty', labels: {} } });
    await publish('3', v3);
    expect((await served('node-2', '3')).etag).toBe((await served('node-2', '2')).etag);
    const before = stateOf(stateDir);
    const run = await runAgent(stateDir, '--once', '--dry-run');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('unchanged (version 3)');
    expect(stateOf(stateDir)).toEqual({ ...before, version: '3' });
  });

  it('runs nft -f on the complete script, and records nothing when nft fails', async () => {
    const stateDir = join(dir, 'nft');
    const record = join(dir, 'nft-calls.txt');
    const fakeNft = join(dir, 'fake-nft.mjs');
    // Records its arguments and the file it was given; fails when FAIL_NFT exists.
    writeFileSync(fakeNft, `#!${process.execPath}\nimport { appendFileSync, existsSync, readFileSync } from 'node:fs';\nif (process.argv[2] === 'list') process.exit(existsSync(${JSON.stringify(join(dir, 'FLUSHED'))}) ? 1 : 0);\nif (existsSync(${JSON.stringify(join(dir, 'FAIL_NFT'))})) { console.error('Error: syntax error'); process.exit(1); }\nappendFileSync(${JSON.stringify(record)}, JSON.stringify({ args: process.argv.slice(2), script: readFileSync(process.argv[3], 'utf8') }) + '\\n');\n`);
    chmodSync(fakeNft, 0o755);

    writeFileSync(join(dir, 'FAIL_NFT'), '');
    const failed = await runAgent(stateDir, '--once', '--nft', fakeNft);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('failed: Error: syntax error');
    expect(existsSync(join(stateDir, 'state.json'))).toBe(false);

    rmSync(join(dir, 'FAIL_NFT'));
    const ok = await runAgent(stateDir, '--once', '--nft', fakeNft);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('');
    const calls = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { args: string[]; script: string });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0]).toBe('-f');
    const latest = await served('node-2', '3');
    expect(calls[0]!.script).toBe(latest.script);
    expect(stateOf(stateDir)).toMatchObject({ version: '3', etag: latest.etag });

    // Nothing changed on the server, but the kernel lost the table (nft flush ruleset, a reboot):
    // the agent checks the kernel, not only its state file, and applies the whole script again.
    writeFileSync(join(dir, 'FLUSHED'), '');
    const again = await runAgent(stateDir, '--once', '--nft', fakeNft);
    rmSync(join(dir, 'FLUSHED'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('table inet netpolc is missing from the kernel (was version 3); applying the full script');
    const after = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { script: string });
    expect(after).toHaveLength(2);
    expect(after[1]!.script).toBe(latest.script);
    // With the table there, the next poll is a 304 again.
    const quiet = await runAgent(stateDir, '--once', '--nft', fakeNft);
    expect(quiet.stderr).toContain('unchanged (version 3)');
  });

  it('falls back to the whole script when a delta does not apply (the kernel is not at the delta\'s base)', async () => {
    const stateDir = join(dir, 'delta-fallback');
    const record = join(dir, 'delta-calls.txt');
    const fakeNft = join(dir, 'fake-nft-delta.mjs');
    // Refuses deltas (as nft does when an element to delete is missing), applies full scripts.
    writeFileSync(fakeNft, `#!${process.execPath}\nimport { appendFileSync, readFileSync } from 'node:fs';\nif (process.argv[2] === 'list') process.exit(0);\nconst script = readFileSync(process.argv[3], 'utf8');\nif (script.startsWith('# netpolc: nftables delta')) { console.error('Error: Could not process rule: No such file or directory'); process.exit(1); }\nappendFileSync(${JSON.stringify(record)}, script.split('\\n')[0] + '\\n');\n`);
    chmodSync(fakeNft, 0o755);
    // The agent last applied version 1 (its state says so), the server is at version 3.
    const first = await runAgent(stateDir, '--once', '--nft', fakeNft);
    expect(first.code, first.stderr).toBe(0);
    writeFileSync(join(stateDir, 'state.json'), JSON.stringify({ ...stateOf(stateDir), version: '1', etag: (await served('node-2', '1')).etag }));
    const second = await runAgent(stateDir, '--once', '--nft', fakeNft);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/delta from version 1 failed .*; applying the full script/);
    expect(readFileSync(record, 'utf8').trim().split('\n')).toEqual(['# netpolc: nftables ruleset for node node-2 (set form). Apply with nft -f; re-applying replaces the table atomically.', '# netpolc: nftables ruleset for node node-2 (set form). Apply with nft -f; re-applying replaces the table atomically.']);
    expect(stateOf(stateDir)).toMatchObject({ version: '3', etag: (await served('node-2', '3')).etag });
  });

  it('fails --once with the reason on a token that does not fit, and needs its flags', async () => {
    const denied = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [AGENT, '--server', base, '--cluster', 'prod', '--node', 'node-1', '--token-file', join(dir, 'token'), '--state-dir', join(dir, 'denied'), '--once', '--dry-run'], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('exit', (code) => resolve({ code, stderr }));
    });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('answered 403');
    // spawnSync is fine here: the agent stops at its flags, before any request to this process.
    const usage = spawnSync(process.execPath, [AGENT, '--cluster', 'prod'], { encoding: 'utf8' });
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('--server is required');
  });
  // Last: it moves the cluster to version 4.
  it('applies a structural delta (a policy added: new chains and sets, pods rebound) as one script', async () => {
    const stateDir = join(dir, 'dry');
    const v4 = structuredClone(v2);
    v4.items.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'empty', labels: {} } });
    // Prometheus (on node-2) becomes isolated: a new table and a new set, its binding changes.
    v4.items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'scrape-from-shop', namespace: 'monitoring' }, spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { tenant: 'shop' } } }], ports: [{ port: 9090 }] }] } });
    await publish('4', v4);
    const d34 = await served('node-2', '4', '3');
    expect(d34.script).toMatch(/^table inet netpolc \{$/m);
    expect(d34.script).toMatch(/^add element inet netpolc pod_ingress_v4 /m);
    const run = await runAgent(stateDir, '--once', '--dry-run');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`# --dry-run: would run nft -f ${join(stateDir, 'delta.nft')} for version 4\n${d34.script}`);
    expect(stateOf(stateDir).version).toBe('4');
  });
});

describe('reference node agent (polling)', () => {
  it('backs off on errors and exits cleanly on SIGTERM', async () => {
    // A port nothing listens on: every poll fails; the agent keeps trying until told to stop.
    const child = spawn(process.execPath, [AGENT, '--server', 'http://127.0.0.1:9', '--cluster', 'prod', '--node', 'node-2', '--state-dir', join(dir, 'poll'), '--interval', '0.05', '--max-backoff', '0.2'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const deadline = Date.now() + 15_000;
    while ((stderr.match(/error: /g) ?? []).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect((stderr.match(/error: /g) ?? []).length).toBeGreaterThanOrEqual(3);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM: stopping');
  });
});
