// Request bodies sent compressed (Content-Encoding): the same answer as the plain body, the body
// limit held once inflated (a small body inflating past it is a 413), 415 for codings netpolc
// cannot read, 400 for bytes that are not what their coding says: never a 500.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { withServer } from '../support/node-server.js';

const ROOT = join(import.meta.dirname, '..', '..');
const verdicts = readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8');
const cluster = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const json = { 'content-type': 'application/json' };

/** A gzip member whose body inflates to `bytes` zeros: ~1 KiB per MiB. */
const bomb = (bytes: number) => gzipSync(Buffer.alloc(bytes));

describe('compressed request bodies (Content-Encoding)', () => {
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, maxBodyBytes: 1 << 20, logError: (e) => { throw e; } });
  const post = (body: Uint8Array, encoding: string, path = '/v1/verdicts') => app.request(path, { method: 'POST', headers: { ...json, 'content-encoding': encoding }, body });

  it('gzip, x-gzip and deflate bodies get the plain body\'s answer; identity is the body as it is', async () => {
    const plain = await (await app.request('/v1/verdicts', { method: 'POST', headers: json, body: verdicts })).text();
    for (const [encoding, body] of [['gzip', gzipSync(verdicts)], ['GZIP', gzipSync(verdicts)], ['x-gzip', gzipSync(verdicts)], ['deflate', deflateSync(verdicts)], ['identity', Buffer.from(verdicts)], ['identity, gzip', gzipSync(verdicts)]] as const) {
      const res = await post(body, encoding);
      expect(res.status, encoding).toBe(200);
      expect(await res.text(), encoding).toBe(plain);
    }
  });

  it('a stored version from a gzipped PUT reads back as from the plain one', async () => {
    expect((await app.request('/v1/clusters/z/snapshots/1', { method: 'PUT', headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(cluster) })).status).toBe(201);
    expect((await app.request('/v1/clusters/p/snapshots/1', { method: 'PUT', headers: json, body: cluster })).status).toBe(201);
    const read = async (c: string) => (await app.request(`/v1/clusters/${c}/nodes/node-1/tables?format=nftables`)).text();
    expect(await read('z')).toBe(await read('p'));
  });

  it('a coding netpolc cannot read: 415 naming the ones it can', async () => {
    for (const encoding of ['br', 'zstd', 'compress', 'gzip, gzip']) {
      const res = await post(gzipSync(verdicts), encoding);
      expect(res.status, encoding).toBe(415);
      expect(res.headers.get('accept-encoding')).toBe('gzip, deflate');
      expect(((await res.json()) as { message: string }).message).toContain(`Content-Encoding "${encoding}"`);
    }
  });

  it('bytes that are not what their coding says: 400, whether garbage, truncated or the other coding', async () => {
    const zipped = gzipSync(verdicts);
    for (const [encoding, body] of [['gzip', Buffer.from(verdicts)], ['gzip', zipped.subarray(0, zipped.length >> 1)], ['deflate', zipped], ['gzip', Buffer.concat([zipped, Buffer.from('trailing')])]] as const) {
      const res = await post(body, encoding);
      expect(res.status, `${encoding} ${body.length}`).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(`the body is not valid ${encoding}`);
    }
  });

  it('a small body that inflates past the limit: 413 (MAX_BODY_BYTES holds once inflated), on every route that reads a body', async () => {
    const small = bomb(8 << 20);
    expect(small.length).toBeLessThan(16 << 10);
    for (const path of ['/v1/verdicts', '/v1/compile', '/v1/clusters/z/snapshots/2']) {
      const res = await app.request(path, { method: path.includes('snapshots') ? 'PUT' : 'POST', headers: { ...json, 'content-encoding': 'gzip' }, body: small });
      expect(res.status, path).toBe(413);
      expect(((await res.json()) as { message: string }).message).toContain('inflates to more than the limit of 1048576 bytes');
    }
    // A route with its own smaller limit holds it to the inflated body too.
    const latest = await app.request('/v1/clusters/z/latest', { method: 'PUT', headers: { ...json, 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify({ version: '1', pad: 'x'.repeat(10_000) })) });
    expect(latest.status).toBe(413);
  });
});

/** A raw HTTP request: status and body text. */
function raw(url: string, method: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('compressed request bodies on the Node server (npm start), to its compute threads', () => {
  it('a gzipped compile gets the plain answer; a bomb is a 413 and garbage a 400, and the server keeps serving', async () => {
    const code = await withServer({ STORE: 'memory', COMPUTE_THREADS: '1', MAX_BODY_BYTES: String(1 << 20) }, async (url) => {
      const body = `{"snapshot":${cluster}}`;
      const plain = await raw(`${url}/v1/compile`, 'POST', json, Buffer.from(body));
      const zipped = await raw(`${url}/v1/compile`, 'POST', { ...json, 'content-encoding': 'gzip' }, gzipSync(body));
      expect([plain.status, zipped.status]).toEqual([200, 200]);
      expect(zipped.text).toBe(plain.text);
      const tooBig = await raw(`${url}/v1/compile`, 'POST', { ...json, 'content-encoding': 'gzip' }, bomb(8 << 20));
      expect(tooBig.status).toBe(413);
      expect(tooBig.text).toContain('inflates to more than the limit');
      const garbage = await raw(`${url}/v1/compile`, 'POST', { ...json, 'content-encoding': 'gzip' }, Buffer.from(body));
      expect(garbage.status).toBe(400);
      expect((await raw(`${url}/v1/compile`, 'POST', json, Buffer.from(body))).text).toBe(plain.text);
    });
    expect(code).toBe(0);
  }, 60_000);
});
