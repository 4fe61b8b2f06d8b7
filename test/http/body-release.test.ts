// A body is read once and its text is not kept on the request: hono keeps what c.req.text()
// read for later readers, and an L snapshot's 145 MB of text would then stay live through the
// compile (functions/request.ts readBody).
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../functions/request.js';

describe('readBody', () => {
  it('parses the body and leaves no copy of its text cached on the request', async () => {
    const app = new Hono();
    let cached: Record<string, unknown> = { unread: true };
    app.post('/', async (c) => {
      const body = await readBody(c);
      cached = { ...c.req.bodyCache };
      return c.json(body as object);
    });
    const res = await app.request('/', { method: 'POST', body: '{"items":[{"kind":"Pod"}]}', headers: { 'content-type': 'application/json' } });
    expect(await res.json()).toEqual({ items: [{ kind: 'Pod' }] });
    expect(cached).toEqual({});
  });

  it('answers a malformed body as before (400 with the parser message)', async () => {
    const app = new Hono();
    app.post('/', async (c) => c.json((await readBody(c)) as object));
    app.onError((e, c) => c.json({ message: e.message }, 400));
    const res = await app.request('/', { method: 'POST', body: '{"items":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/^malformed JSON/);
  });
});
