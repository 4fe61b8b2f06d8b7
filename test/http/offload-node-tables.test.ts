// Node tables on a server with compute threads (functions/offload.ts): every answer but the set
// form's slice as stored (format=ir without since) and an unchanged poll's 304 is computed by the
// runner, and each is byte for byte the answer the route gives in process. The runner here is a second app on the same store, reached as data the way
// the Node server's threads are (compute-worker.ts); test/http/bounded-work.test.ts runs the
// real threads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import type { Offload } from '../../functions/offload.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { COMPILE_FORMATS } from '../../schemas/api/compile.js';

const ROOT = join(import.meta.dirname, '..', '..');
const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const v1 = { apiVersion: 'v1', kind: 'List', items: base.items };
const v2 = { ...v1, items: structuredClone(base.items) };
v2.items.find((o) => o.metadata.name === 'web').metadata.labels = { app: 'web2' };
v2.items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'api-deny', namespace: 'payments' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } });

function setup() {
  const store = createMemoryStore();
  const logError = (e: unknown) => {
    throw e;
  };
  const inProcess = createApp({ store, access: { kind: 'anonymous' }, logError });
  const offloaded: string[] = [];
  const run: Offload = async (req) => {
    offloaded.push(new URL(req.url).search);
    const res = await inProcess.fetch(new Request(req.url, { method: req.method, headers: req.headers as [string, string][], ...(req.body ? { body: req.body } : {}) }));
    return { status: res.status, headers: [...res.headers], body: new Uint8Array(await res.arrayBuffer()), observations: [] };
  };
  const served = createApp({ store, access: { kind: 'anonymous' }, logError, offload: { run, storeRoutes: true, digest: () => { let n = 0; return { update: (chunk) => void (n += chunk.length), hex: () => String(n) }; } } });
  return { inProcess, served, offloaded };
}

/** What a client sees of an answer. */
async function seen(res: Response) {
  return { status: res.status, headers: [...res.headers].filter(([k]) => k !== 'date'), body: Buffer.from(await res.arrayBuffer()).toString('base64') };
}

describe('node tables through the compute threads', () => {
  it('every format, part, version and delta is the in-process answer; unchanged polls stay on the serving thread', async () => {
    const { inProcess, served, offloaded } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2]] as const) {
      const put = await inProcess.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(put.status).toBe(201);
    }
    const queries = [
      ...COMPILE_FORMATS.flatMap((f) => [`format=${f}`, `format=${f}&since=1`, `format=${f}&version=1`, `format=${f}&since=999`]),
      ...['ipset', 'ipv4', 'ipv6', 'hooks', 'cleanup', 'nope'].flatMap((p) => [`format=iptables&part=${p}`, `format=iptables&part=${p}&since=1`]),
      'format=nftables&part=ipv4',
      'format=bogus',
      'version=404',
      'version=1',
      '',
    ];
    let compared = 0;
    for (const node of ['node-1', 'node-2', 'node-404']) {
      for (const q of queries) {
        const path = `/v1/clusters/prod/nodes/${node}/tables?${q}`;
        const before = offloaded.length;
        const answer = await seen(await served.request(path));
        // The set form's slice as stored is read on the serving thread, its 404 too.
        const p = new URLSearchParams(q);
        const computes = (p.get('format') ?? 'ir') === 'ir' && !p.has('since') ? 0 : 1;
        expect(offloaded.length, path).toBe(before + computes);
        expect(answer, path).toEqual(await seen(await inProcess.request(path)));
        compared++;
        if (answer.status !== 200) continue;
        // The agent's next poll with the tag it got (weak, as some proxies rewrite it): a 304
        // from memory on the serving thread, with the same headers.
        const etag = answer.headers.find(([k]) => k === 'etag')![1];
        const poll = await seen(await served.request(path, { headers: { 'if-none-match': `W/${etag}` } }));
        expect(offloaded.length, path).toBe(before + computes);
        expect(poll.status, path).toBe(304);
        expect(poll, path).toEqual(await seen(await inProcess.request(path, { headers: { 'if-none-match': `W/${etag}` } })));
        // Another tag: computed, as any changed poll is.
        const changed = await seen(await served.request(path, { headers: { 'if-none-match': '"other"' } }));
        expect(offloaded.length, path).toBe(before + 2 * computes);
        expect(changed, path).toEqual(answer);
      }
    }
    expect(compared).toBe(3 * queries.length);
  });
});
