// The Node server (npm start's entry) as a real process: without tokens it stays on loopback and
// says so; a non-loopback HOST without tokens, or malformed tokens, stop it before it listens.
// Also the token helper (npm run token) against the server's own check.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalDynamo } from '../../infra/dynamodb-local.js';
import { TTL_ATTRIBUTE } from '../../infra/store/backend.js';
import { DynamoDbBackend } from '../../infra/store/dynamodb.js';
import { headerKey, pointerKey } from '../../infra/store/keys.js';
import { ROOT, runToExit, startServer, withServer } from '../support/node-server.js';
import { makeToken } from '../support/tokens.js';

describe('Node server start-up', () => {
  it('without tokens: listens on 127.0.0.1, says why, and stops cleanly on SIGTERM', async () => {
    const code = await withServer({}, async (url, log) => {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(log()).toContain('no tokens configured (NETPOLC_TOKENS), so listening on loopback only');
      const res = await fetch(`${url}/v1/clusters/prod/snapshots`);
      expect(res.status).toBe(200); // anonymous on loopback
    });
    expect(code).toBe(0);
  });

  it('/readyz: 503 until a compute thread has started (the threads load the app after the server listens), then 200 with the count', async () => {
    const code = await withServer({}, async (url) => {
      const seen: number[] = [];
      let body: unknown;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
        const res = await fetch(`${url}/readyz`);
        seen.push(res.status);
        body = await res.json();
        if (res.status === 200) break;
        expect(body).toMatchObject({ status: 'unavailable', compute: expect.stringMatching(/^0 of \d+ threads started$/) });
      }
      expect(seen.at(-1)).toBe(200);
      expect(body).toMatchObject({ status: 'ok', store: 'reachable', compute: expect.stringMatching(/^[1-9]\d* of \d+ threads started$/) });
    });
    expect(code).toBe(0);
  }, 90_000);

  it('a second server on the same DATA_DIR stops with one line naming it, not a stack trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolc-lock-'));
    try {
      const code = await withServer({ STORE: 'embedded', DATA_DIR: dir }, async () => {
        const second = runToExit({ STORE: 'embedded', DATA_DIR: dir });
        expect(second.code).toBe(1);
        expect(second.stderr).toContain(`netpolc: ${dir}/dynalite is in use by another process`);
        expect(second.stderr).toContain('or set another DATA_DIR');
        expect(second.stderr).not.toMatch(/^\s+at /m);
      });
      // The first released the directory on SIGTERM: a new server starts on it.
      expect(code).toBe(0);
      expect(await withServer({ STORE: 'embedded', DATA_DIR: dir }, async () => {})).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('SIGTERM right after a publish answered: the move is settled (order item, the replaced version expiring) before DATA_DIR is released', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolc-settle-'));
    try {
      const body = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
      const code = await withServer({ STORE: 'embedded', DATA_DIR: dir }, async (url) => {
        for (const v of ['1', '2']) expect((await fetch(`${url}/v1/clusters/prod/snapshots/${v}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body })).status).toBe(201);
      });
      expect(code).toBe(0);
      // The publish answered before settling (the Node server's setting); SIGTERM came at once.
      const local = await startLocalDynamo({ path: join(dir, 'dynalite') });
      try {
        const backend = new DynamoDbBackend({ client: local.client, tableName: local.tableName });
        expect(await backend.getItem(pointerKey('prod'))).toMatchObject({ version: '2', settled: true, retire: '[]' });
        expect((await backend.getItem(headerKey('prod', '1')))?.[TTL_ATTRIBUTE]).toEqual(expect.any(Number));
      } finally {
        await local.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it.skipIf(process.platform !== 'linux')('compute threads run 10 nice levels below the serving thread (Linux: per thread)', { timeout: 60_000 }, async () => {
    const server = await startServer({ COMPUTE_THREADS: '3' });
    try {
      const niceOf = (tid: string) => {
        const stat = readFileSync(`/proc/${server.child.pid}/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const own = niceOf(String(server.child.pid));
      const lowered = () => readdirSync(`/proc/${server.child.pid}/task`).filter((t) => niceOf(t) !== own);
      // The threads load their code after the server listens.
      for (const deadline = Date.now() + 30_000; lowered().length < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
      expect(lowered().map(niceOf)).toEqual([own + 10, own + 10, own + 10]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('npm start stopped by a script (SIGTERM to npm) stops the server and frees DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolc-npm-'));
    try {
      const npm = spawn('npm', ['start'], { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
      let log = '';
      npm.stdout.on('data', (d: Buffer) => (log += d.toString()));
      const exited = new Promise((resolve) => npm.once('exit', resolve));
      for (const deadline = Date.now() + 30_000; !log.includes('access: '); ) {
        if (Date.now() > deadline) throw new Error(`npm start did not start:\n${log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      npm.kill('SIGTERM');
      await exited;
      // The server is gone with npm: the directory opens for the next one.
      expect(await withServer({ STORE: 'embedded', DATA_DIR: dir }, async () => {})).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it('without tokens: refuses a non-loopback HOST', () => {
    const r = runToExit({ HOST: '0.0.0.0' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HOST=0.0.0.0 would serve stored clusters to anyone who can connect: no access tokens are configured');
    expect(r.stdout).not.toContain('listening');
  });

  it('malformed NETPOLC_TOKENS stop it with the reason, whatever the HOST', () => {
    for (const HOST of ['127.0.0.1', '0.0.0.0']) {
      const r = runToExit({ HOST, NETPOLC_TOKENS: `${makeToken('read:cluster=prod').entry} plaintext-token:read:cluster=prod` });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('netpolc: NETPOLC_TOKENS entry 2: must start with the SHA-256 of the token');
      expect(r.stdout).not.toContain('listening');
    }
  });

  it('with tokens: may listen on every interface, and asks for a token', async () => {
    const reader = makeToken('read:cluster=prod');
    const code = await withServer({ HOST: '0.0.0.0', NETPOLC_TOKENS: reader.entry }, async (url, log) => {
      expect(log()).toContain('access: 1 token (NETPOLC_TOKENS); /v1/clusters/* needs a bearer token');
      const local = url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${local}/v1/clusters/prod/snapshots`)).status).toBe(401);
      expect((await fetch(`${local}/v1/clusters/prod/snapshots`, { headers: reader.header })).status).toBe(200);
      expect((await fetch(`${local}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: reader.header, body: '{}' })).status).toBe(403);
    });
    expect(code).toBe(0);
  });
});

describe('npm run token', () => {
  const tokenCli = (args: string[], input?: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'functions', 'cli', 'token.ts'), ...args], { cwd: ROOT, encoding: 'utf8', input, timeout: 30_000 });

  it('makes a token whose entry the server accepts for exactly that scope', async () => {
    const r = tokenCli(['new', 'write:cluster=prod']);
    expect(r.status).toBe(0);
    const [, token, , entry] = r.stdout.trim().split('\n');
    expect(entry).toMatch(/^[0-9a-f]{64}:write:cluster=prod$/);
    expect(entry).not.toContain(token!);
    const code = await withServer({ NETPOLC_TOKENS: entry }, async (url) => {
      const put = (cluster: string) => fetch(`${url}/v1/clusters/${cluster}/snapshots/1`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'List', items: [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }] }) });
      expect((await put('prod')).status).toBe(201);
      expect((await put('staging')).status).toBe(403);
    });
    expect(code).toBe(0);
  });

  it('hashes a token from stdin (a trailing newline is not part of it) and refuses bad scopes', () => {
    const t = makeToken('read:cluster=prod');
    expect(tokenCli(['hash', 'read:cluster=prod'], `${t.token}\n`).stdout.trim()).toBe(t.entry);
    const bad = tokenCli(['hash', 'write:cluster=prod,node=n1'], t.token);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('a node scope can only read');
    expect(tokenCli(['new']).status).toBe(2);
  });
});
