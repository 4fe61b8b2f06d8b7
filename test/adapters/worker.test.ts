// The Cloudflare Worker entry (functions/adapters/worker.ts, via wrangler.toml) under the real
// workerd runtime, started with wrangler's unstable_startWorker: wrangler bundles the Worker
// exactly as `wrangler dev`/`deploy` would and serves it from workerd on a local port.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectExampleVerdicts } from '../support/example-verdicts.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exampleText = readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8');

/** Why workerd cannot run on this machine, or null when it can. Only this ever skips. */
function workerdUnavailable(): string | null {
  try {
    const bin = createRequire(import.meta.url)('workerd') as { default?: string } | string;
    const path = typeof bin === 'string' ? bin : bin.default;
    if (!path) return 'the workerd package does not name a binary';
    execFileSync(path, ['--version'], { timeout: 10_000, stdio: 'pipe' });
    return null;
  } catch (e) {
    return `workerd does not run here: ${(e as Error).message.split('\n')[0]}`;
  }
}

const unavailable = workerdUnavailable();
if (unavailable) console.warn(`SKIPPED test/adapters/worker.test.ts: ${unavailable}`);

type StartedWorker = Awaited<ReturnType<typeof import('wrangler').unstable_startWorker>>;

describe.skipIf(unavailable !== null)('Cloudflare Worker under workerd', () => {
  let worker: StartedWorker | undefined;

  beforeAll(async () => {
    process.env.WRANGLER_SEND_METRICS = 'false';
    const { unstable_startWorker } = await import('wrangler');
    worker = await unstable_startWorker({
      config: join(ROOT, 'wrangler.toml'),
      // A small body limit proves MAX_BODY_BYTES travels from the bindings into createApp.
      bindings: { MAX_BODY_BYTES: { type: 'plain_text', value: '20000' } },
      sendMetrics: false,
      dev: { remote: false, server: { hostname: '127.0.0.1', port: 0 }, inspector: false, watch: false, persist: false, logLevel: 'warn' },
    });
    await worker.ready;
  }, 30_000);

  afterAll(async () => {
    await worker?.dispose();
  }, 15_000);

  const call = (path: string, init?: { method: string; headers: Record<string, string>; body: string }) =>
    worker!.fetch(`http://netpolc.test${path}`, init);

  it('answers POST /v1/verdicts with the documented verdicts', async () => {
    const res = await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exampleText });
    expect(res.status).toBe(200);
    expectExampleVerdicts((await res.json()) as { verdicts: any[]; warnings: string[] });
  });

  it('serves /openapi.json', async () => {
    const res = await call('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v1/verdicts', '/v1/matrix', '/v1/compile']) expect(doc.paths[path]?.post).toBeDefined();
  });

  it('takes MAX_BODY_BYTES from the bindings: 413 above it', async () => {
    const res = await call('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: exampleText + ' '.repeat(20_000) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'too_large', message: expect.stringContaining('20000 bytes') });
  });
});
