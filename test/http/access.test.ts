// Access control on stored clusters: every scope against every route (401 / 403 / 2xx), across
// clusters and nodes, malformed headers, and NETPOLC_TOKENS that must stop a server instead of
// opening it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { accessFromEnv } from '../../functions/config.js';
import { grantAllows, parseTokens, TokenConfigError } from '../../functions/access/tokens.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { makeToken, tokenPolicy } from '../support/tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const clusterJson = readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8');
const flows = (JSON.parse(readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8')) as { flows: unknown[] }).flows;

const tokens = {
  admin: makeToken('write:cluster=*'),
  auditor: makeToken('read:cluster=*'),
  prodWriter: makeToken('write:cluster=prod'),
  prodReader: makeToken('read:cluster=prod'),
  node1: makeToken('read:cluster=prod,node=node-1'),
  node2: makeToken('read:cluster=prod,node=node-2'),
  stagingWriter: makeToken('write:cluster=staging'),
};
type Who = keyof typeof tokens | 'nobody' | 'stranger';

const app = createApp({ store: createMemoryStore(), access: tokenPolicy(...Object.values(tokens)), logError: (e) => { throw e; } });

function call(method: string, path: string, who: Who, body?: string, extra: Record<string, string> = {}) {
  const auth = who === 'nobody' ? {} : who === 'stranger' ? makeToken('read:cluster=prod').header : tokens[who].header;
  return app.request(path, { method, headers: { ...auth, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...extra }, ...(body !== undefined ? { body } : {}) });
}

beforeAll(async () => {
  for (const cluster of ['prod', 'staging']) expect((await call('PUT', `/v1/clusters/${cluster}/snapshots/1`, 'admin', clusterJson)).status).toBe(201);
});

type Need = 'write' | 'read' | 'node-1';
const ROUTES: readonly { name: string; need: Need; method: string; path: (c: string) => string; body?: string }[] = [
  { name: 'PUT snapshot', need: 'write', method: 'PUT', path: (c) => `/v1/clusters/${c}/snapshots/1`, body: clusterJson },
  { name: 'POST snapshot', need: 'write', method: 'POST', path: (c) => `/v1/clusters/${c}/snapshots`, body: JSON.stringify({ ...JSON.parse(clusterJson), metadata: { resourceVersion: '1' } }) },
  { name: 'list versions', need: 'read', method: 'GET', path: (c) => `/v1/clusters/${c}/snapshots` },
  { name: 'one version', need: 'read', method: 'GET', path: (c) => `/v1/clusters/${c}/snapshots/1` },
  { name: 'node-1 tables', need: 'node-1', method: 'GET', path: (c) => `/v1/clusters/${c}/nodes/node-1/tables?format=nftables` },
  { name: 'stored verdicts', need: 'read', method: 'POST', path: (c) => `/v1/clusters/${c}/verdicts`, body: JSON.stringify({ flows }) },
  { name: 'stored matrix', need: 'read', method: 'POST', path: (c) => `/v1/clusters/${c}/matrix`, body: JSON.stringify({ ports: [{ port: 5432 }] }) },
  { name: 'ask (GET)', need: 'read', method: 'GET', path: (c) => `/v1/clusters/${c}/ask?q=${encodeURIComponent('can shop/web reach shop/db on 5432?')}` },
  { name: 'ask (POST, cluster)', need: 'read', method: 'POST', path: () => '/v1/ask', body: JSON.stringify({ question: 'what can shop/web reach?', cluster: 'prod' }) },
];

// What each caller may do on cluster prod.
const MAY: Record<Who, readonly Need[]> = {
  admin: ['write', 'read', 'node-1'],
  auditor: ['read', 'node-1'],
  prodWriter: ['write', 'read', 'node-1'],
  prodReader: ['read', 'node-1'],
  node1: ['node-1'],
  node2: [],
  stagingWriter: [],
  nobody: [],
  stranger: [],
};

describe('access to cluster prod: each scope × each route', () => {
  const cases = ROUTES.flatMap((r) => (Object.keys(MAY) as Who[]).map((who) => ({ ...r, who })));
  it.each(cases)('$name as $who', async ({ method, path, body, who, need }) => {
    const res = await call(method, path('prod'), who, body);
    const expected = who === 'nobody' || who === 'stranger' ? 401 : MAY[who].includes(need) ? 'ok' : 403;
    if (expected === 'ok') {
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    } else {
      expect(res.status).toBe(expected);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe(expected === 401 ? 'unauthorized' : 'forbidden');
      // Nothing of the cluster in a refusal: no node, pod or policy names.
      expect(JSON.stringify(body)).not.toMatch(/shop\/|node-2|tenant-guardrails/);
      if (expected === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="netpolc"/);
    }
  });
});

describe('isolation between clusters and nodes', () => {
  it("a cluster's writer reads and writes nothing of another cluster", async () => {
    for (const r of ROUTES.filter((r) => r.method !== 'POST' || r.path('x') !== '/v1/ask')) {
      expect((await call(r.method, r.path('staging'), 'prodWriter', r.body)).status, r.name).toBe(403);
      expect((await call(r.method, r.path('prod'), 'stagingWriter', r.body)).status, r.name).toBe(403);
    }
    const ask = await call('POST', '/v1/ask', 'stagingWriter', JSON.stringify({ question: 'what can shop/web reach?', cluster: 'prod' }));
    expect(ask.status).toBe(403);
  });

  it("a node's token reads that node's tables in every format and with since, and nothing of another node", async () => {
    for (const q of ['', '?format=ir', '?since=1', '?version=1&format=iptables']) {
      expect((await call('GET', `/v1/clusters/prod/nodes/node-1/tables${q}`, 'node1')).status).toBe(200);
      expect((await call('GET', `/v1/clusters/prod/nodes/node-2/tables${q}`, 'node1')).status).toBe(403);
      expect((await call('GET', `/v1/clusters/staging/nodes/node-1/tables${q}`, 'node1')).status).toBe(403);
    }
    expect((await call('GET', '/v1/clusters/prod/nodes/node-2/tables', 'node2')).status).toBe(200);
    // Percent-encoding reaches the same decoded name the handler uses: still node-2, still refused.
    expect((await call('GET', '/v1/clusters/prod/nodes/node%2D2/tables', 'node1')).status).toBe(403);
  });

  it('every /v1/clusters route the app registers refuses a node token, except that node\'s tables', async () => {
    const routes = app.routes.filter((r) => r.path.startsWith('/v1/clusters/:') && r.method !== 'ALL');
    const seen = new Set<string>();
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const path = r.path.replace(':cluster', 'prod').replace(':node', 'node-1').replace(':version', '1');
      const res = await call(r.method, path, 'node1', r.method === 'GET' ? undefined : '{}');
      expect(res.status, key).toBe(r.path === '/v1/clusters/:cluster/nodes/:node/tables' ? 200 : 403);
    }
    expect(seen.size).toBeGreaterThanOrEqual(8);
  });

  it('unknown paths under /v1/clusters need a token too; with one they are 404', async () => {
    expect((await call('GET', '/v1/clusters/prod/secrets', 'nobody')).status).toBe(401);
    expect((await call('GET', '/v1/clusters', 'nobody')).status).toBe(401);
    expect((await call('GET', '/v1/clusters/prod/secrets', 'prodReader')).status).toBe(404);
  });

  it('stateless routes stay open, and /v1/ask with a snapshot needs no token', async () => {
    expect((await call('POST', '/v1/verdicts', 'nobody', JSON.stringify({ snapshot: JSON.parse(clusterJson), flows }))).status).toBe(200);
    expect((await call('POST', '/v1/ask', 'nobody', JSON.stringify({ question: 'can shop/web reach shop/db on 5432?', snapshot: JSON.parse(clusterJson) }))).status).toBe(200);
    expect((await call('POST', '/v1/ask', 'nobody', JSON.stringify({ question: 'can shop/web reach shop/db on 5432?', cluster: 'prod' }))).status).toBe(401);
  });
});

describe('collecting unreferenced content (POST /v1/store/collect)', () => {
  it('needs a write token for every cluster; answers the counts; refuses a grace below the floor', async () => {
    for (const who of ['nobody', 'auditor', 'prodWriter', 'stagingWriter', 'node1'] as const) expect((await call('POST', '/v1/store/collect', who)).status).toBe(who === 'nobody' ? 401 : 403);
    const res = await call('POST', '/v1/store/collect', 'admin');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ versions: 2, deleted: 0, graceSeconds: 3600 });
    expect((await call('POST', '/v1/store/collect', 'admin', JSON.stringify({ graceSeconds: 7200 }))).status).toBe(200);
    expect((await call('POST', '/v1/store/collect', 'admin', JSON.stringify({ graceSeconds: 60 }))).status).toBe(422);
    expect((await call('POST', '/v1/store/collect', 'admin', JSON.stringify({ graceSeconds: 'long' }))).status).toBe(422);
  });
});

describe('the Authorization header', () => {
  const tables = '/v1/clusters/prod/nodes/node-1/tables';
  it.each([
    ['Basic dXNlcjpwYXNz', 'invalid_request'],
    ['Bearer', 'invalid_request'],
    ['Bearer two tokens', 'invalid_request'],
    ['Token abc', 'invalid_request'],
    ['Bearer not-a-configured-token', 'invalid_token'],
  ])('%s → 401 (%s)', async (authorization, error) => {
    const res = await app.request(tables, { headers: { authorization } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer realm="netpolc", error="${error}"`);
  });

  it('takes the scheme in any case, and the token exactly', async () => {
    expect((await app.request(tables, { headers: { authorization: `bearer ${tokens.node1.token}` } })).status).toBe(200);
    expect((await app.request(tables, { headers: { authorization: `Bearer ${tokens.node1.token.toUpperCase()}x` } })).status).toBe(401);
    expect((await app.request(tables, { headers: { authorization: `Bearer ${tokens.node1.token.slice(0, -1)}` } })).status).toBe(401);
  });

  it('checks the token before reading the body: a bad body with no token is 401, not 400', async () => {
    expect((await call('PUT', '/v1/clusters/prod/snapshots/2', 'nobody', '{not json')).status).toBe(401);
    expect((await call('PUT', '/v1/clusters/prod/snapshots/2', 'prodReader', '{not json')).status).toBe(403);
    expect((await call('PUT', '/v1/clusters/prod/snapshots/2', 'prodWriter', '{not json')).status).toBe(400);
  });
});

describe('without tokens', () => {
  it('a serverless deployment refuses stored clusters with 503 unless NETPOLC_ALLOW_ANONYMOUS=true', async () => {
    const closed = createApp({ store: createMemoryStore(), access: accessFromEnv({}, 'serverless') });
    const res = await closed.request('/v1/clusters/prod/snapshots');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toContain('NETPOLC_TOKENS');
    expect((await closed.request('/v1/ask', { method: 'POST', body: JSON.stringify({ question: 'what can shop/web reach?', cluster: 'prod' }) })).status).toBe(503);
    expect((await closed.request('/v1/verdicts', { method: 'POST', body: JSON.stringify({ snapshot: JSON.parse(clusterJson), flows }) })).status).toBe(200);

    const open = createApp({ store: createMemoryStore(), access: accessFromEnv({ NETPOLC_ALLOW_ANONYMOUS: 'true' }, 'serverless') });
    expect((await open.request('/v1/clusters/prod/snapshots/1', { method: 'PUT', body: clusterJson })).status).toBe(201);
  });

  it('an app built without an access decision serves stored clusters to nobody', async () => {
    const res = await createApp({ store: createMemoryStore() }).request('/v1/clusters/prod/snapshots');
    expect(res.status).toBe(503);
  });

  it('the Node server is anonymous (its adapter keeps it on loopback); tokens switch that off', () => {
    expect(accessFromEnv({}, 'node')).toEqual({ kind: 'anonymous' });
    expect(accessFromEnv({ NETPOLC_TOKENS: tokens.admin.entry }, 'node').kind).toBe('tokens');
    expect(accessFromEnv({ NETPOLC_TOKENS: '  ' }, 'serverless').kind).toBe('closed');
  });
});

describe('NETPOLC_TOKENS', () => {
  const hash = 'a'.repeat(64);
  it('reads several entries separated by spaces, newlines or ";", and merges the scopes of one hash', () => {
    const parsed = parseTokens(`${hash}:read:cluster=prod\n${hash}:write:cluster=dev;${'b'.repeat(64)}:read:cluster=prod,node=n1`);
    expect(parsed).toHaveLength(2);
    expect(parsed[0]!.grants).toEqual([{ access: 'read', cluster: 'prod', node: null }, { access: 'write', cluster: 'dev', node: null }]);
    expect(parsed[1]!.grants).toEqual([{ access: 'read', cluster: 'prod', node: 'n1' }]);
    expect(parsed[0]!.sha256).toEqual(new Uint8Array(32).fill(0xaa));
    expect(parseTokens(`${hash.toUpperCase()}:read:cluster=x`)[0]!.sha256).toEqual(new Uint8Array(32).fill(0xaa));
  });

  it.each([
    ['my-secret-token:read:cluster=prod', /entry 1: must start with the SHA-256 of the token/],
    [`${hash.slice(1)}:read:cluster=prod`, /64 hex digits/],
    [hash, /missing the scope/],
    [`${hash}:admin:cluster=prod`, /must start with "read:" or "write:"/],
    [`${hash}:read:prod`, /expected cluster=<name> or node=<name>/],
    [`${hash}:read:node=n1`, /needs cluster=<name>/],
    [`${hash}:read:cluster=`, /is not a cluster name/],
    [`${hash}:read:cluster=a,cluster=b`, /cluster is given twice/],
    [`${hash}:write:cluster=prod,node=n1`, /a node scope can only read/],
    [`${hash}:read:cluster=*,node=n1`, /names its cluster/],
    [`${hash}:read:cluster=prod ${hash}:read:cluster=prod,node=a/b`, /entry 2: "a\/b" is not a node name/],
  ])('refuses %s', (text, message) => {
    expect(() => parseTokens(text)).toThrow(TokenConfigError);
    expect(() => parseTokens(text)).toThrow(message);
  });

  it('never echoes an entry that may be a plaintext token', () => {
    expect(() => parseTokens('hunter2-plaintext:read:cluster=prod')).toThrow(expect.objectContaining({ message: expect.not.stringContaining('hunter2') }));
  });

  it('write implies read; node scopes read that node only; * is every cluster', () => {
    const g = (access: 'read' | 'write', cluster: string, node: string | null = null) => ({ access, cluster, node });
    expect(grantAllows(g('write', 'prod'), { access: 'read', cluster: 'prod' })).toBe(true);
    expect(grantAllows(g('read', 'prod'), { access: 'write', cluster: 'prod' })).toBe(false);
    expect(grantAllows(g('read', 'prod', 'n1'), { access: 'read', cluster: 'prod', node: 'n1' })).toBe(true);
    expect(grantAllows(g('read', 'prod', 'n1'), { access: 'read', cluster: 'prod' })).toBe(false);
    expect(grantAllows(g('read', 'prod'), { access: 'read', cluster: 'prod', node: 'n7' })).toBe(true);
    expect(grantAllows(g('write', '*'), { access: 'write', cluster: 'anything' })).toBe(true);
    expect(grantAllows(g('read', 'prod'), { access: 'read', cluster: 'prod2' })).toBe(false);
  });

  it('contradicting settings are an error', () => {
    expect(() => accessFromEnv({ NETPOLC_TOKENS: tokens.admin.entry, NETPOLC_ALLOW_ANONYMOUS: 'true' }, 'serverless')).toThrow(/contradict/);
    expect(() => accessFromEnv({ NETPOLC_ALLOW_ANONYMOUS: 'yes' }, 'serverless')).toThrow(/true or false/);
  });
});
