// The request edges bench/outputs.ts records besides the fixtures: malformed, unsupported and
// oversized bodies, bad query values (alone and together with a bad body, whose answer comes
// first), repeated query keys, unknown clusters, versions and nodes, conditions on the latest
// version, ETag/304, tokens (none, another scope, none configured), no store, a store that
// fails, and the operations routes. Each answer is one file under `edges/`.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { App, Request } from './outputs.js';

type Send = (app: App, group: string, name: string, path: string, r?: Request) => Promise<{ status: number; headers: Headers; text: string }>;

export interface EdgeDeps {
  readonly createApp: (deps: Record<string, unknown>) => App;
  readonly createMemoryStore: () => Record<string, unknown>;
  readonly parseTokens: (text: string) => unknown;
  readonly send: Send;
}

// Fixed tokens: the answers must not differ between runs.
const READER = 'outputs-reader-token';
const OTHER = 'outputs-other-token';
const entry = (token: string, scope: string) => `${createHash('sha256').update(token, 'utf8').digest('hex')}:${scope}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function edgeRequests({ createApp, createMemoryStore, parseTokens, send }: EdgeDeps): Promise<void> {
  const cluster = JSON.parse(readFileSync('examples/cluster.json', 'utf8')) as { items: any[] };
  const { flows } = JSON.parse(readFileSync('examples/verdicts-request.json', 'utf8')) as { flows: unknown[] };
  const head = { ...cluster, items: structuredClone(cluster.items) };
  head.items.find((o) => o.metadata.name === 'web').metadata.labels = { app: 'web2' };
  let n = 0;
  const logError = () => undefined;
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError });
  const small = createApp({ maxBodyBytes: 200, logError });
  const call = (a: App, path: string, r: Request = {}) => send(a, 'edges', `${String(++n).padStart(3, '0')}-${r.method ?? (r.body === undefined ? 'GET' : 'POST')}-${path}`, path, r);
  const snapshot = cluster;

  // Stateless routes: bodies that cannot be read, query values, both at once.
  for (const path of ['/v1/verdicts', '/v1/matrix', '/v1/compile', '/v1/lint', '/v1/previews', '/v1/ask']) {
    await call(app, path, { body: '{"snapshot": ' });
    await call(app, path, { body: '<x/>', type: 'application/xml' });
    await call(app, path, { body: '' });
    await call(app, path, { body: {} });
    await call(app, `${path}?lenient=yes`, { body: {} });
    await call(app, `${path}?lenient=true&lenient=false`, { body: { snapshot: { items: [...cluster.items, { kind: 'Pod' }] }, flows, question: 'who can reach shop/db?', base: snapshot, head } });
    await call(small, path, { body: { snapshot } });
  }
  await call(app, '/v1/verdicts', { body: { snapshot, flows: [{ from: 'shop/nobody', to: 'shop/db', port: 1 }] } });
  await call(app, '/v1/verdicts', { body: `flows:\n- {from: shop/web, to: shop/db, port: 5432}\n---\nkind: [unclosed\n`, type: 'application/yaml' });
  await call(app, '/v1/verdicts?lenient=true', { body: `flows:\n- {from: shop/web, to: shop/db, port: 5432}\n---\nkind: [unclosed\n`, type: 'application/yaml' });
  await call(app, '/v1/compile', { body: { snapshot, format: 'pf' } });
  for (const q of ['?tables=maybe', '?lint=0&detail=every', '?detail=parts&detail=all', '?tables=false&tables=maybe']) {
    await call(app, `/v1/previews${q}`, { body: { base: snapshot, head } });
    await call(app, `/v1/previews${q}`, { body: '{' });
    await call(app, `/v1/previews${q}`, { body: { base: snapshot } });
  }
  await call(app, '/v1/previews', { body: { base: snapshot, head, detail: 'parts' } });
  for (const question of ['how are you?', 'can shop/nobody reach shop/db on 5432?']) {
    await call(app, '/v1/ask', { body: { question, snapshot } });
    await call(app, '/v1/ask', { body: { question, snapshot }, headers: { accept: 'text/plain' } });
  }

  // Stored clusters.
  const put = (rv: string, body: unknown, headers: Record<string, string> = {}, query = '') => call(app, `/v1/clusters/prod/snapshots/${rv}${query}`, { method: 'PUT', body, headers });
  await put('1', cluster);
  await put('1', cluster);
  await put('1', head);
  await put('2', head, { 'if-match': '"1"' });
  await put('3', cluster, { 'if-match': '"1"' });
  await put('3', cluster, { 'if-match': 'nope' });
  await put('3', cluster, { 'if-none-match': '*' });
  await put('3', cluster, { 'if-none-match': 'W/"x", ' });
  await put('0', cluster, {}, '?order=numeric');
  await put('3', cluster, {}, '?order=sideways');
  await put('3', '{', {}, '?order=sideways');
  await put('3', cluster, { 'if-match': 'nope' }, '?order=sideways');
  await put('3', cluster, {}, '?order=numeric&order=sideways');
  await put('3', '{"items": [');
  await call(app, '/v1/clusters/prod/snapshots/3', { method: 'PUT', body: 'x', type: 'application/xml' });
  await put('3', { items: [{ kind: 'Pod' }] });
  await put('3', { base: '2', changes: { apply: [cluster.items.find((o) => o.metadata.name === 'web')] } });
  await put('4', { base: '1', changes: { apply: [] } });
  await put('4', { base: '3', changes: { apply: [{ kind: 'Pod' }] } });
  await put('4', { base: '3', changes: { apply: [], delete: [{ kind: 'Pod' }] } });
  await call(small, '/v1/clusters/prod/snapshots/9', { method: 'PUT', body: cluster });
  await call(app, '/v1/clusters/prod/snapshots', { body: { ...head, metadata: { resourceVersion: '' } } });
  await call(app, '/v1/clusters/prod/snapshots', { body: { ...cluster, metadata: { resourceVersion: '5' } }, headers: { 'if-match': '"1"' } });
  await call(app, '/v1/clusters/prod/snapshots?order=numeric', { body: { ...cluster, metadata: { resourceVersion: '6' } } });
  await call(app, '/v1/clusters/prod/snapshots', { body: '[' });
  await call(app, '/v1/clusters/prod/snapshots', { body: { base: '1', changes: { apply: [] } } });
  for (const q of ['', '?limit=1', '?limit=-3', '?limit=abc', '?limit=1&cursor=nonsense']) await call(app, `/v1/clusters/prod/snapshots${q}`);
  await call(app, '/v1/clusters/nowhere/snapshots');
  await call(app, '/v1/clusters/prod/snapshots/1');
  await call(app, '/v1/clusters/prod/snapshots/404');
  await call(app, '/v1/clusters/pr%2Fod/snapshots/1');
  const tables = ['?format=ir', '?format=ir&since=1', '?format=ir-flat&since=999', '?format=nftables&since=1', '?format=iptables&since=1', '?format=iptables&part=ipv4', '?format=iptables&since=1&part=cleanup', '?format=vpp-session', '?version=1', '?format=pf', '?format=ir&part=ipv4', '?format=iptables&part=all', '?format=ir&format=pf', '?format=pf&part=all', '?part=all&version=404', '?format=iptables&part=all&version=404', '?format='];
  for (const node of ['node-1', 'node-9']) for (const q of tables) await call(app, `/v1/clusters/prod/nodes/${node}/tables${q}`);
  await call(app, '/v1/clusters/prod/nodes/node-1/tables?format=iptables', { headers: { accept: 'text/plain' } });
  await call(app, '/v1/clusters/prod/nodes/node-1/tables?format=iptables&version=404', { headers: { accept: 'text/plain' } });
  const first = await call(app, '/v1/clusters/prod/nodes/node-1/tables');
  for (const tag of [first.headers.get('etag')!, `W/${first.headers.get('etag')}`, `"x", ${first.headers.get('etag')}`, '*', '"other"']) await call(app, '/v1/clusters/prod/nodes/node-1/tables', { headers: { 'if-none-match': tag } });
  await call(app, '/v1/clusters/nowhere/nodes/node-1/tables');
  await call(app, '/v1/clusters/nowhere/nodes/node-1/tables?format=pf');
  for (const [path, body] of [['verdicts', { flows }], ['verdicts?version=1', { flows }], ['verdicts', { snapshot, flows }], ['verdicts', { flows: [{ from: 'shop/nobody', to: 'shop/db', port: 1 }] }], ['verdicts', '{'], ['matrix', {}], ['matrix?version=404', {}], ['matrix', { ports: [] }], ['matrix?version=1&version=2', {}]] as const) {
    await call(app, `/v1/clusters/prod/${path}`, { body });
    await call(app, `/v1/clusters/nowhere/${path}`, { body });
  }
  await call(app, '/v1/clusters/prod/verdicts', { body: 'x', type: 'application/xml' });
  await call(small, '/v1/clusters/prod/verdicts', { body: { flows: [...flows, ...flows, ...flows] } });
  const asks: [string, string | null][] = [['?q=can%20shop/web%20reach%20shop/db%20on%205432?', null], ['?q=can%20shop/web%20reach%20shop/db%20on%205432?', 'text/plain'], ['?q=what%20changed%20for%20shop/web%20since%20version%201?', null], ['?q=what%20changed%20for%20shop/web%20since%20version%2077?', null], ['?q=', null], ['?q=', 'text/plain'], ['?q=%20%20', null], ['', null], ['', 'text/plain'], ['?q=hello', null], ['?q=hello', 'text/plain'], ['?q=who%20can%20reach%20shop/db&q=hello', null], ['?q=who%20can%20reach%20shop/db&version=404', null], ['?q=who%20can%20reach%20shop/db&version=1', 'text/plain']];
  for (const [q, accept] of asks) {
    await call(app, `/v1/clusters/prod/ask${q}`, accept ? { headers: { accept } } : {});
    await call(app, `/v1/clusters/nowhere/ask${q}`, accept ? { headers: { accept } } : {});
  }
  for (const body of [{ cluster: 'prod' }, { cluster: 'prod', version: '1' }, { cluster: 'nowhere' }, { cluster: 'prod', snapshot }, { cluster: 'prod', version: '404' }]) {
    await call(app, '/v1/ask', { body: { question: 'who can reach shop/db?', ...body } });
    await call(app, '/v1/ask', { body: { question: 'what changed for shop/web since version 77?', ...body }, headers: { accept: 'text/plain' } });
  }
  for (const body of [{ version: '1' }, { version: '404' }, {}, { version: '' }, '{', '[1]']) await call(app, '/v1/clusters/prod/latest', { method: 'PUT', body });
  await call(app, '/v1/clusters/prod/latest', { method: 'PUT', body: 'x', type: 'application/xml' });
  await call(app, '/v1/clusters/prod/latest', { method: 'PUT', body: 'version: "2"\n', type: 'application/yaml' });
  for (const v of ['2', '2', '1', '404']) await call(app, `/v1/clusters/prod/snapshots/${v}`, { method: 'DELETE' });
  for (const body of [undefined, { graceSeconds: 7200 }, { graceSeconds: 10 }, { graceSeconds: 'soon' }, '{', '[]']) await call(app, '/v1/store/collect', { method: 'POST', ...(body !== undefined ? { body } : {}) });
  await call(app, '/v1/nothing-here');
  await call(app, '/v1/clusters/prod/nothing-here');

  // Tokens: none (401), another cluster's (403), a reader's; no tokens configured (503); no store (503).
  const store = createMemoryStore();
  const guarded = createApp({ store, access: { kind: 'tokens', tokens: parseTokens(`${entry(READER, 'read:cluster=prod')} ${entry(OTHER, 'write:cluster=other')}`) }, logError });
  const closed = createApp({ store, logError });
  const storeless = createApp({ access: { kind: 'anonymous' }, logError });
  for (const a of [guarded, closed, storeless]) {
    for (const headers of (a === guarded ? [{}, { authorization: 'Basic abc' }, bearer('wrong'), bearer(OTHER), bearer(READER)] : [{}]) as Record<string, string>[]) {
      await call(a, '/v1/clusters/prod/snapshots/1', { method: 'PUT', body: cluster, headers });
      await call(a, '/v1/clusters/prod/snapshots/1?order=sideways', { method: 'PUT', body: '{', headers });
      await call(a, '/v1/clusters/prod/snapshots', { body: cluster, headers });
      await call(a, '/v1/clusters/prod/snapshots', { headers });
      await call(a, '/v1/clusters/prod/snapshots/1', { headers });
      await call(a, '/v1/clusters/prod/snapshots/1', { method: 'DELETE', headers });
      await call(a, '/v1/clusters/prod/latest', { method: 'PUT', body: { version: '1' }, headers });
      await call(a, '/v1/clusters/prod/nodes/node-1/tables', { headers });
      await call(a, '/v1/clusters/prod/nodes/node-1/tables?format=pf', { headers });
      await call(a, '/v1/clusters/prod/verdicts', { body: { flows }, headers });
      await call(a, '/v1/clusters/prod/verdicts', { body: '{', headers });
      await call(a, '/v1/clusters/prod/matrix', { body: {}, headers });
      await call(a, '/v1/clusters/prod/ask?q=who%20can%20reach%20shop/db', { headers });
      await call(a, '/v1/clusters/prod/ask', { headers });
      await call(a, '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'prod' }, headers });
      await call(a, '/v1/store/collect', { method: 'POST', headers });
    }
  }

  // Operations and documents. The OpenAPI document and the page made from it may change (more
  // precise declarations); their status and media type are recorded, not their bodies.
  const broken = { ...createMemoryStore(), latest: async () => { throw new Error('ECONNREFUSED 127.0.0.1:8000'); } };
  const unready = createApp({ store: broken, logError });
  for (const a of [app, unready, storeless]) for (const path of ['/healthz', '/readyz', '/metrics']) await call(a, path);
  await call(app, '/');
  for (const path of ['/openapi.json', '/docs']) {
    const res = await app.request(path, {});
    await send({ request: async () => new Response(`(${(await res.text()).length > 0 ? 'a body' : 'empty'})`, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? '' } }) }, 'edges', `${String(++n).padStart(3, '0')}-GET-${path}`, path);
  }
}
