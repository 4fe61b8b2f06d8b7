// kill -9 of the server in the middle of a publish, then a restart on the same DATA_DIR: latest
// is the version before, or the new one whole (never one with items missing), the version before
// stays readable, and the publisher's retry completes the new one. Killed at several moments of the publish, real processes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { wideAdminPolicy } from '../support/hostile.js';
import { ROOT, startServer } from '../support/node-server.js';

const json = { 'content-type': 'application/json' };
const example = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const big = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: wideAdminPolicy() });

describe('kill -9 mid-publish', () => {
  it.each([100, 300, 600])('killed %i ms into publishing version 2: after a restart latest is version 1 or a whole version 2, version 1 is served, and the retry completes version 2', async (delayMs) => {
    const dir = mkdtempSync(join(tmpdir(), 'netpolc-crash-'));
    const env = { STORE: 'embedded', DATA_DIR: dir };
    try {
      const first = await startServer(env);
      expect((await fetch(`${first.url}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: json, body: example })).status).toBe(201);
      const publishing = fetch(`${first.url}/v1/clusters/prod/snapshots/2`, { method: 'PUT', headers: json, body: big }).then((r) => r.status, () => 'cut');
      await new Promise((r) => setTimeout(r, delayMs));
      first.child.kill('SIGKILL');
      const outcome = await publishing;
      await first.exited;

      const second = await startServer(env);
      try {
        const latest = (await (await fetch(`${second.url}/v1/clusters/prod/snapshots`)).json()) as { versions: { version: string }[] };
        // Latest is version 1, or version 2 whole (the kill came after its pointer move, with or
        // without its answer reaching the client) — never a version 2 missing any of its items.
        const now = latest.versions[0]!.version;
        if (outcome === 201) expect(now).toBe('2');
        expect(['1', '2']).toContain(now);
        expect((await fetch(`${second.url}/v1/clusters/prod/nodes/node-1/tables`)).status).toBe(200);
        expect((await fetch(`${second.url}/v1/clusters/prod/nodes/node-1/tables?version=1`)).status).toBe(200);
        const retry = await fetch(`${second.url}/v1/clusters/prod/snapshots/2`, { method: 'PUT', headers: json, body: big });
        expect([200, 201]).toContain(retry.status);
        expect(((await retry.json()) as { latest: boolean }).latest).toBe(true);
        const after = (await (await fetch(`${second.url}/v1/clusters/prod/snapshots`)).json()) as { versions: { version: string }[] };
        expect(after.versions.map((v) => v.version)).toEqual(['2', '1']);
        expect((await fetch(`${second.url}/v1/clusters/prod/nodes/node-1/tables`)).headers.get('x-netpolc-version')).toBe('2');
      } finally {
        second.child.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
