// A preview whose change alters connectivity in more ways than PREVIEW_LIMITS allows is a 422 at
// the change ($.head), not minutes of work and a heap run out: one AdminNetworkPolicy of 80
// port-range rules over 300 dual-stack pods, then four of them (460 kB together).
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { PREVIEW_LIMITS } from '../../core/preview/index.js';
import { adminRules } from '../support/hostile.js';

const list = (items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });

describe('previews past the class-change limit', () => {
  it('POST /v1/previews: 422 at $.head with the limit and what to do', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const body = JSON.stringify({ base: list(adminRules(1)), head: list(adminRules(4)), tables: false, lint: false });
    const res = await app.request('/v1/previews', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { issues: unknown[] }).issues).toEqual([{ path: '$.head', message: expect.stringContaining(`the change alters connectivity in more than ${PREVIEW_LIMITS.classChanges} ways`) }]);
  });
});
