// The Node server under requests that cost far more than their size: each is stopped at its
// budget with a 413 naming the budget, the server keeps serving meanwhile and afterwards, an
// overloaded pool says when to come back, a client that leaves stops its work, and identical
// concurrent publishes compile once, rendering a large node's tables leaves polls answered.
// Real processes, real threads, the embedded store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { crowdedNode, wideAdminPolicy } from '../support/hostile.js';
import { withServer } from '../support/node-server.js';

const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });
const WIDE = JSON.stringify({ format: 'ir-flat', snapshot: list(wideAdminPolicy()) });
const SMALL = JSON.stringify({ snapshot: list(wideAdminPolicy(20, 2, 2)) });
const TINY = JSON.stringify({ snapshot: list(wideAdminPolicy(2, 1, 1)) });
const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'netpolc-bounded-'));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const post = (url: string, path: string, body: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body, ...init });

/** The value of one series in /metrics, 0 when absent. */
async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('bounded work on the Node server', () => {
  it('a request over the memory budget is a 413 naming it, while other requests keep being answered', async () => {
    const env = { STORE: 'embedded', DATA_DIR: dataDir(), COMPUTE_THREADS: '1', REQUEST_MEMORY_MB: '160', REQUEST_TIME_BUDGET_SECONDS: '240' };
    const code = await withServer(env, async (url) => {
      expect((await fetch(`${url}/v1/clusters/prod/snapshots/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(JSON.parse(SMALL).snapshot) })).status).toBe(201);
      let wideDone = false;
      const wide = post(url, '/v1/compile', WIDE).then(async (r) => ((wideDone = true), { status: r.status, body: (await r.json()) as { error: string; budget: string; message: string } }));
      // While the thread works on it, the serving thread answers health, metrics and node polls.
      const health = await fetch(`${url}/healthz`);
      const poll = await fetch(`${url}/v1/clusters/prod/nodes/node-1/tables`);
      const answeredMeanwhile = !wideDone;
      expect([health.status, poll.status]).toEqual([200, 200]);
      expect(answeredMeanwhile).toBe(true);
      const res = await wide;
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ error: 'too_large', budget: 'memory' });
      expect(res.body.message).toContain('REQUEST_MEMORY_MB');
      // A fresh thread took its place.
      expect((await post(url, '/v1/compile', SMALL)).status).toBe(200);

      // A 4.8 MB YAML body (20,000 pods) is read into values directly, without a document tree
      // many times its size: it fits the same 160 MiB budget.
      const yaml = wideAdminPolicy(20000, 1, 1).map((o) => stringify(o)).join('---\n');
      const big = await fetch(`${url}/v1/compile`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: yaml });
      expect(big.status).toBe(200);
      expect(((await big.json()) as { nodes: Record<string, unknown> }).nodes).toHaveProperty('node-1');
      // Aliases that would expand a few lines into millions of nodes: refused as malformed.
      const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`)].join('\n');
      const bombed = await fetch(`${url}/v1/compile`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: bomb });
      expect(bombed.status).toBe(400);
      expect(((await bombed.json()) as { message: string }).message).toMatch(/alias/i);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    });
    expect(code).toBe(0);
  }, 180_000);

  it('a request over the time budget is a 413 naming it; a full queue is a 503 with Retry-After', async () => {
    // WIDE takes 2.6-4.5 s on a 2-core machine, so a 3 s budget was met or not by the machine's
    // speed; against 1 s it is over on any machine, and the request after it
    // (a two-pod snapshot) is far under, however loaded the machine (a thread's start is not charged).
    const env = { STORE: 'memory', COMPUTE_THREADS: '1', REQUEST_TIME_BUDGET_SECONDS: '1', MAX_QUEUED_REQUESTS: '0' };
    const code = await withServer(env, async (url) => {
      const wide = post(url, '/v1/compile', WIDE);
      // Once the first request holds the thread (or waits for it to start), another finds no
      // thread and no room to wait.
      while ((await metric(url, 'netpolc_compute_threads_busy')) + (await metric(url, 'netpolc_compute_requests_waiting')) === 0) await new Promise((r) => setTimeout(r, 20));
      const refused = await post(url, '/v1/compile', SMALL);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { message: string }).message).toContain('MAX_QUEUED_REQUESTS');
      const res = await wide;
      expect(res.status).toBe(413);
      const body = (await res.json()) as { budget: string; message: string };
      expect(body.budget).toBe('time');
      expect(body.message).toContain('REQUEST_TIME_BUDGET_SECONDS');
      // The thread stopped for it is replaced; the next request waits for the new one to start,
      // and its own budget starts only then (a loaded machine may take seconds to start one).
      // A new thread's first request also compiles the code it runs for the first time: with the
      // whole suite beside it on two cores, that alone once took over the 1 s budget. So a tiny
      // request may get the same 413 once more, and must get its 200 within three.
      const statuses: number[] = [];
      while (statuses.at(-1) !== 200 && statuses.length < 3) {
        const next = await post(url, '/v1/compile', TINY);
        statuses.push(next.status);
        if (next.status !== 200) expect(((await next.json()) as { budget: string }).budget).toBe('time');
      }
      expect(statuses.at(-1)).toBe(200);
      expect(await metric(url, 'netpolc_compute_threads_busy')).toBe(0);
    });
    expect(code).toBe(0);
  }, 120_000);

  it('a client that gives up stops the work it asked for', async () => {
    const code = await withServer({ STORE: 'memory', COMPUTE_THREADS: '1' }, async (url) => {
      const gone = new AbortController();
      const wide = post(url, '/v1/compile', WIDE, { signal: gone.signal }).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 500));
      gone.abort();
      expect(await wide).toBe('aborted');
      // The one thread answers the next request; the flat compile it was on never finished.
      expect((await post(url, '/v1/compile', SMALL)).status).toBe(200);
      expect(await metric(url, 'netpolc_compile_duration_seconds_count{form="ir"}')).toBe(1);
      expect(await metric(url, 'netpolc_compile_duration_seconds_count{form="ir-flat"}')).toBe(0);
    });
    expect(code).toBe(0);
  }, 120_000);

  it("a large node's rendered tables are computed on a thread: polls are answered while four render", async () => {
    const code = await withServer({ STORE: 'embedded', DATA_DIR: dataDir(), COMPUTE_THREADS: '1' }, async (url) => {
      const put = await fetch(`${url}/v1/clusters/big/snapshots/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(list(crowdedNode(5000, 500))) });
      expect(put.status).toBe(201);
      const tables = async (query: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${url}/v1/clusters/big/nodes/n1/tables?${query}`, { headers });
        return { status: res.status, etag: res.headers.get('etag'), bytes: (await res.arrayBuffer()).byteLength };
      };
      const etag = (await tables('format=ir')).etag!;
      const RENDERED = ['format=iptables', 'format=openstack-sg', 'format=iptables&part=ipv4', 'format=nftables'];
      // Each once first, so the store's caches hold the node wherever it is rendered.
      for (const q of RENDERED) expect((await tables(q)).status).toBe(200);
      let rendering = RENDERED.length;
      const rendered = Promise.all(RENDERED.map((q) => tables(q).finally(() => rendering--)));
      // Health checks and an agent's unchanged poll, one pair after another until the four are
      // answered: a serving thread that renders answers them only between renders (2 pairs in
      // one run before node tables were computed on the threads, 1,128 after).
      let answeredMeanwhile = 0;
      while (rendering > 0) {
        const [health, poll] = await Promise.all([fetch(`${url}/healthz`), tables('format=ir', { 'if-none-match': etag })]);
        expect([health.status, poll.status]).toEqual([200, 304]);
        if (rendering > 0) answeredMeanwhile++;
      }
      expect((await rendered).map((r) => r.status)).toEqual([200, 200, 200, 200]);
      expect(answeredMeanwhile).toBeGreaterThanOrEqual(20);
    });
    expect(code).toBe(0);
  }, 180_000);

  it('a body sent in chunks, with or without Content-Length, reaches the compute thread whole: the same answer', async () => {
    const code = await withServer({ STORE: 'embedded', DATA_DIR: dataDir() }, async (url) => {
      const bytes = new TextEncoder().encode(SMALL);
      // Chunked transfer (no Content-Length), in pieces of 1 KiB.
      const chunked = () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
            controller.close();
          },
        });
      const whole = await post(url, '/v1/compile', SMALL);
      const streamed = await Promise.all([1, 2].map(() => fetch(`${url}/v1/compile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunked(), duplex: 'half' } as RequestInit)));
      expect([whole.status, ...streamed.map((r) => r.status)]).toEqual([200, 200, 200]);
      const [a, b, c] = await Promise.all([whole.text(), streamed[0]!.text(), streamed[1]!.text()]);
      expect(b).toBe(a);
      expect(c).toBe(a);
    });
    expect(code).toBe(0);
  }, 120_000);

  it('identical concurrent publishes compile once and all get the answer', async () => {
    const code = await withServer({ STORE: 'embedded', DATA_DIR: dataDir() }, async (url) => {
      const body = JSON.stringify(list(wideAdminPolicy(400, 3, 3)));
      const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(`${url}/v1/clusters/prod/snapshots/7`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body })));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(await metric(url, 'netpolc_compile_duration_seconds_count{form="ir"}')).toBe(1);
      expect(await metric(url, 'netpolc_http_requests_total{method="PUT",route="/v1/clusters/:cluster/snapshots/:version",status="201"}')).toBe(8);
    });
    expect(code).toBe(0);
  }, 120_000);
});
