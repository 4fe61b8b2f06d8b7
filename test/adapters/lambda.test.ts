// The Lambda entry (functions/adapters/lambda.ts) with API Gateway v2 (HTTP API) payload
// format 2.0 events, as API Gateway hands them to the function.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LambdaEvent } from 'hono/aws-lambda';
import { stringify } from 'yaml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { expectExampleVerdicts } from '../support/example-verdicts.js';

const ROOT = join(import.meta.dirname, '..', '..');
const exampleText = readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8');
const example = JSON.parse(exampleText);

/** An API Gateway v2 (HTTP API, payload format 2.0) event for `$default` route integration. */
function httpApiEvent(method: string, path: string, opts: { body?: string; contentType?: string; base64?: boolean; query?: string } = {}): LambdaEvent {
  const headers: Record<string, string> = { host: 'abc123.execute-api.eu-west-1.amazonaws.com', 'user-agent': 'vitest' };
  if (opts.contentType) headers['content-type'] = opts.contentType;
  const body = opts.body === undefined ? null : opts.base64 ? Buffer.from(opts.body, 'utf8').toString('base64') : opts.body;
  if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: opts.query ?? '',
    headers,
    body,
    isBase64Encoded: opts.base64 ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'vitest' },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '21/Nov/2026:00:00:00 +0000',
      timeEpoch: 1795219200000,
    },
  } as LambdaEvent;
}

async function loadHandler() {
  vi.resetModules();
  return (await import('../../functions/adapters/lambda.js')).handler;
}

function json(res: { body: string; isBase64Encoded: boolean }): any {
  expect(res.isBase64Encoded).toBe(false);
  return JSON.parse(res.body);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Lambda handler (API Gateway v2 events)', () => {
  it('answers POST /v1/verdicts with a JSON body: the documented verdicts', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json' }));
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toMatch(/^application\/json/);
    expectExampleVerdicts(json(res));
  });

  it('decodes a base64-encoded body (isBase64Encoded: true)', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json', base64: true }));
    expect(res.statusCode).toBe(200);
    expect(json(res).verdicts.map((v: any) => v.allowed)).toEqual([true, false, true, false, true]);
  });

  it('accepts a multi-document YAML body', async () => {
    const handler = await loadHandler();
    const docs = [stringify({ flows: [{ from: 'payments/api', to: 'shop/db', port: 'postgres' }, { from: 'shop/web', to: 'shop/db', port: 5432 }] }), ...example.snapshot.items.map((o: unknown) => stringify(o))];
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: docs.join('---\n'), contentType: 'application/yaml' }));
    expect(res.statusCode).toBe(200);
    const { verdicts } = json(res);
    expect(verdicts.map((v: any) => [v.flow.from, v.flow.to, v.flow.port, v.allowed])).toEqual([
      ['payments/api', 'shop/db', 5432, false],
      ['shop/web', 'shop/db', 5432, true],
    ]);
  });

  it('answers an unknown route with a JSON 404', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('GET', '/v2/nothing'));
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: 'not_found', message: expect.stringContaining('GET /v2/nothing') });
  });

  it('answers a schema violation with 422 and the JSON path', async () => {
    const handler = await loadHandler();
    const body = JSON.stringify({ snapshot: example.snapshot, flows: [{ from: 'shop/nope', to: 'shop/db', port: 5432 }] });
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body, contentType: 'application/json' }));
    expect(res.statusCode).toBe(422);
    expect(json(res)).toMatchObject({ error: 'invalid', issues: [{ path: '$.flows[0].from', message: expect.stringContaining('shop/nope') }] });
  });

  it('serves /openapi.json', async () => {
    const handler = await loadHandler();
    const res = await handler(httpApiEvent('GET', '/openapi.json'));
    expect(res.statusCode).toBe(200);
    const doc = json(res);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/verdicts']).toBeDefined();
  });

  it('reads MAX_BODY_BYTES from process.env on first invocation, not at import', async () => {
    vi.resetModules();
    const { handler } = await import('../../functions/adapters/lambda.js');
    vi.stubEnv('MAX_BODY_BYTES', '1000');
    const res = await handler(httpApiEvent('POST', '/v1/verdicts', { body: exampleText, contentType: 'application/json' }));
    expect(res.statusCode).toBe(413);
    expect(json(res)).toMatchObject({ error: 'too_large', message: expect.stringContaining('1000 bytes') });
  });
});
