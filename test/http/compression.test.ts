// Answers compressed when the client asks (Accept-Encoding), as the Node server and Lambda build
// the app (answerCompressor: zlib at level 1): the same bytes once inflated, Vary on every compressible answer, a
// weak ETag that still gives the node agent its 304 (no body, nothing compressed), nothing for
// clients that do not ask.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { nodeAnswerCompressor } from '../../functions/node-compression.js';
import { chosenEncoding } from '../../functions/answer-compression.js';
import { answerBody } from '../../functions/offload.js';
import { withServer } from '../support/node-server.js';
import { wideAdminPolicy } from '../support/hostile.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cluster = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const json = { 'content-type': 'application/json' };

describe('the coding chosen from Accept-Encoding (RFC 9110 12.5.3)', () => {
  it.each([
    [undefined, null],
    ['', null],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['deflate', 'deflate'],
    ['gzip, deflate, br', 'gzip'],
    ['gzip;q=0.5, deflate', 'deflate'],
    ['deflate;q=0.5, gzip;q=0.5', 'gzip'],
    ['gzip;q=0', null],
    ['gzip;q=0, deflate;q=0.1', 'deflate'],
    ['*', 'gzip'],
    ['*;q=0', null],
    ['br, *;q=0.1', 'gzip'],
    ['gzip;q=0, *', 'deflate'],
    ['identity', null],
    ['br, zstd', null],
  ] as const)('%j → %s', (header, coding) => {
    expect(chosenEncoding(header)).toBe(coding);
  });
});

describe('compressed answers (answerCompressor)', () => {
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, answerCompressor: nodeAnswerCompressor, logError: (e) => { throw e; } });
  const compile = (headers: Record<string, string> = {}) => app.request('/v1/compile', { method: 'POST', headers: { ...json, ...headers }, body: `{"snapshot":${cluster}}` });

  it('gzip when asked, the same JSON once inflated; identity when not asked', async () => {
    const plain = await compile();
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/accept-encoding/i);
    const identity = await plain.text();

    const zipped = await compile({ 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('content-length')).toBeNull();
    const bytes = Buffer.from(await zipped.arrayBuffer());
    expect(bytes.length).toBeLessThan(identity.length / 3);
    expect(gunzipSync(bytes).toString('utf8')).toBe(identity);

    const deflated = await compile({ 'accept-encoding': 'deflate' });
    expect(deflated.headers.get('content-encoding')).toBe('deflate');
    expect(inflateSync(Buffer.from(await deflated.arrayBuffer())).toString('utf8')).toBe(identity);

    // Only codings netpolc cannot write (or refused ones): identity.
    for (const accepted of ['br', 'gzip;q=0', 'identity']) {
      const r = await compile({ 'accept-encoding': accepted });
      expect(r.headers.get('content-encoding'), accepted).toBeNull();
      expect(await r.text()).toBe(identity);
    }
  });

  it('a node agent keeps its 304: the ETag of a gzip answer is weak, and If-None-Match compares weakly', async () => {
    expect((await app.request('/v1/clusters/c/snapshots/1', { method: 'PUT', headers: json, body: cluster })).status).toBe(201);
    const path = '/v1/clusters/c/nodes/node-1/tables?format=nftables';
    const first = await app.request(path, { headers: { 'accept-encoding': 'gzip' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-encoding')).toBe('gzip');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\//);
    const plain = await app.request(path);
    expect(gunzipSync(Buffer.from(await first.arrayBuffer())).toString('utf8')).toBe(await plain.text());
    expect(plain.headers.get('etag')).toBe(etag.slice(2));
    for (const tag of [etag, etag.slice(2)]) {
      const again = await app.request(path, { headers: { 'accept-encoding': 'gzip', 'if-none-match': tag } });
      expect(again.status).toBe(304);
      expect(again.headers.get('content-encoding')).toBeNull();
    }
  });

  it('off by default (the Worker: the edge compresses)', async () => {
    const bare = createApp({ access: { kind: 'anonymous' } });
    const r = await bare.request('/v1/compile', { method: 'POST', headers: { ...json, 'accept-encoding': 'gzip' }, body: `{"snapshot":${cluster}}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBeNull();
  });
});

/** A raw HTTP request (no client that inflates for us): status, headers and the bytes as sent. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('compressed answers from the Node server (npm start), through its compute threads', () => {
  it('POST /v1/compile and a node agent read of nftables: gzip on the wire, the same text inflated', async () => {
    const code = await withServer({ STORE: 'memory', NETPOLC_ALLOW_ANONYMOUS: 'true', COMPUTE_THREADS: '1' }, async (url) => {
      const body = `{"snapshot":${cluster}}`;
      const identity = await raw(`${url}/v1/compile`, 'POST', json, body);
      const zipped = await raw(`${url}/v1/compile`, 'POST', { ...json, 'accept-encoding': 'gzip' }, body);
      expect([identity.status, zipped.status]).toEqual([200, 200]);
      expect(identity.headers['content-encoding']).toBeUndefined();
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(zipped.bytes).toString('utf8')).toBe(identity.bytes.toString('utf8'));

      expect((await raw(`${url}/v1/clusters/c/snapshots/1`, 'PUT', json, cluster)).status).toBe(201);
      const tables = `${url}/v1/clusters/c/nodes/node-1/tables?format=nftables`;
      const [plainTables, zippedTables] = [await raw(tables, 'GET', {}), await raw(tables, 'GET', { 'accept-encoding': 'gzip' })];
      expect(zippedTables.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(zippedTables.bytes).toString('utf8')).toBe(plainTables.bytes.toString('utf8'));
    });
    expect(code).toBe(0);
  }, 60_000);

  it('identical requests at once that ask for different codings each get their own (the thread compresses; Vary set there)', async () => {
    const code = await withServer({ STORE: 'memory', NETPOLC_ALLOW_ANONYMOUS: 'true', COMPUTE_THREADS: '1' }, async (url) => {
      // Large enough that the three are computing at the same time (one compile takes ~0.5 s).
      const body = JSON.stringify({ snapshot: { apiVersion: 'v1', kind: 'List', items: wideAdminPolicy(400, 3, 3) } });
      // A compressed one first: shared with the others, its bytes would reach clients that did not ask for them.
      const [zipped, identity, deflated] = await Promise.all([
        raw(`${url}/v1/compile`, 'POST', { ...json, 'accept-encoding': 'gzip' }, body),
        raw(`${url}/v1/compile`, 'POST', json, body),
        raw(`${url}/v1/compile`, 'POST', { ...json, 'accept-encoding': 'deflate' }, body),
      ]);
      expect([identity.status, zipped.status, deflated.status]).toEqual([200, 200, 200]);
      expect([identity.headers['content-encoding'], zipped.headers['content-encoding'], deflated.headers['content-encoding']]).toEqual([undefined, 'gzip', 'deflate']);
      for (const answer of [identity, zipped, deflated]) expect(answer.headers.vary).toBe('Accept-Encoding');
      expect(gunzipSync(zipped.bytes).toString('utf8')).toBe(identity.bytes.toString('utf8'));
      expect(inflateSync(deflated.bytes).toString('utf8')).toBe(identity.bytes.toString('utf8'));
    });
    expect(code).toBe(0);
  }, 60_000);
});

describe("an answer from a compute thread, handed to the socket (answerBody)", () => {
  it('is the same bytes, in slices of at most 1 MiB that are views of them (no copy on the serving thread)', async () => {
    for (const size of [0, 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 17]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31) & 255);
      const slices: Uint8Array[] = [];
      for await (const slice of answerBody(bytes) as unknown as AsyncIterable<Uint8Array>) slices.push(slice);
      expect(slices.every((s) => s.buffer === bytes.buffer && s.length > 0 && s.length <= 1024 * 1024)).toBe(true);
      expect(Buffer.concat(slices).equals(Buffer.from(bytes))).toBe(true);
      expect(slices.length).toBe(Math.ceil(size / (1024 * 1024)));
    }
  });
});
