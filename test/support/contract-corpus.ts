// Real requests to every route of the app, each answer kept with what was asked: the corpus the
// contract test (test/http/contract.test.ts) holds against the OpenAPI document. Successes and
// the error statuses that are easy to provoke, in one order (a version must be stored before its
// node tables are read).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type App } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';
import { makeToken, tokenPolicy } from './tokens.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cluster = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { apiVersion: string; kind: string; items: any[] };
const verdictsExample = JSON.parse(readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8'));

export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly status: number;
  /** The media type of the answer, without parameters; null when it has no body. */
  readonly type: string | null;
  /** Parsed JSON, or the text. */
  readonly body: unknown;
}

interface Call {
  readonly body?: unknown;
  readonly type?: string;
  readonly headers?: Record<string, string>;
}

/** The example cluster with one pod relabelled: another version. */
function edited() {
  const items = structuredClone(cluster.items);
  items.find((o) => o.metadata.name === 'web').metadata.labels = { app: 'web2' };
  return { ...cluster, items };
}

export async function runCorpus(): Promise<Exchange[]> {
  const out: Exchange[] = [];
  const call = async (app: App, method: string, url: string, o: Call = {}) => {
    const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const headers = { ...(body !== undefined ? { 'content-type': o.type ?? 'application/json' } : {}), ...o.headers };
    const res = await app.request(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await res.text();
    const type = text === '' ? null : (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    out.push({ method, url, status: res.status, type, body: type === 'application/json' ? JSON.parse(text) : text });
    return res;
  };
  const logError = (e: unknown) => {
    throw e;
  };

  // Stateless routes.
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError });
  const small = createApp({ maxBodyBytes: 200, logError });
  const snapshot = cluster;
  const flows = verdictsExample.flows;
  for (const path of ['/v1/verdicts', '/v1/matrix', '/v1/compile', '/v1/lint', '/v1/previews', '/v1/ask']) {
    await call(app, 'POST', path, { body: '{"snapshot": ' });
    await call(app, 'POST', path, { body: '<x/>', type: 'application/xml' });
    await call(app, 'POST', path, { body: {} });
    await call(small, 'POST', path, { body: { snapshot } });
  }
  await call(app, 'POST', '/v1/verdicts', { body: verdictsExample });
  await call(app, 'POST', '/v1/verdicts', { body: { snapshot, flows: [{ from: 'shop/svc/db', to: '10.0.0.0/8', port: 5432 }, { from: 'shop/nobody', to: 'shop/db', port: 1 }] } });
  await call(app, 'POST', '/v1/verdicts', { body: { snapshot, flows: [{ from: 'shop/svc/db', to: '10.0.0.0/8', port: 5432 }, ...flows] } });
  await call(app, 'POST', '/v1/verdicts?lenient=true', { body: { snapshot: { items: [...cluster.items, { kind: 'Pod' }] }, flows } });
  await call(app, 'POST', '/v1/matrix', { body: { snapshot } });
  await call(app, 'POST', '/v1/matrix', { body: { snapshot, ports: [{ port: 5432 }, { port: 53, protocol: 'UDP' }], pods: { namespaces: ['shop'] } } });
  for (const format of ['ir', 'ir-flat', 'vpp-acl', 'vpp-session', 'nftables', 'iptables', 'openstack-sg']) await call(app, 'POST', '/v1/compile', { body: { snapshot, format } });
  await call(app, 'POST', '/v1/compile', { body: { snapshot, format: 'pf' } });
  await call(app, 'POST', '/v1/lint', { body: { snapshot } });
  await call(app, 'POST', '/v1/lint', { body: { snapshot: { items: [{ kind: 'Pod' }] } } });
  const head = edited();
  await call(app, 'POST', '/v1/previews', { body: { base: snapshot, head } });
  await call(app, 'POST', '/v1/previews?detail=parts', { body: { base: snapshot, head } });
  await call(app, 'POST', '/v1/previews?tables=false&lint=false', { body: { base: snapshot, changes: { delete: [{ kind: 'NetworkPolicy', namespace: 'shop', name: cluster.items.find((o) => o.kind === 'NetworkPolicy').metadata.name }] } } });
  await call(app, 'POST', '/v1/previews', { body: { base: snapshot, head }, headers: { accept: 'text/markdown' } });
  await call(app, 'POST', '/v1/previews?detail=all', { body: { base: snapshot, head } });
  for (const question of ['can shop/web reach shop/db on 5432?', 'who can reach shop/db?', 'what can shop/web reach?', 'can shop/svc/db reach payments/api on 80?', 'how are you?', 'can shop/nobody reach shop/db on 5432?']) {
    await call(app, 'POST', '/v1/ask', { body: { question, snapshot } });
    await call(app, 'POST', '/v1/ask', { body: { question, snapshot }, headers: { accept: 'text/plain' } });
  }

  // Stored clusters: versions, node tables, queries.
  const put = (rv: string, body: unknown, headers: Record<string, string> = {}, query = '') => call(app, 'PUT', `/v1/clusters/prod/snapshots/${rv}${query}`, { body, headers });
  await put('1', cluster);
  await put('1', cluster);
  await put('1', head);
  await put('2', head, { 'if-match': '"1"' });
  await put('3', cluster, { 'if-match': '"1"' });
  await put('3', cluster, { 'if-match': 'nope' });
  await put('3', cluster, { 'if-none-match': '*' });
  await put('0', cluster, {}, '?order=numeric');
  await put('3', cluster, {}, '?order=sideways');
  await put('3', '{"items": [', {});
  await call(app, 'PUT', '/v1/clusters/prod/snapshots/3', { body: 'x', type: 'application/xml' });
  await put('3', { items: [{ kind: 'Pod' }] });
  await put('3', { base: '2', changes: { apply: [cluster.items.find((o) => o.metadata.name === 'web')] } });
  await put('4', { base: '1', changes: { apply: [] } });
  await put('4', { base: '3', changes: { apply: [{ kind: 'Pod' }] } });
  await call(small, 'PUT', '/v1/clusters/prod/snapshots/9', { body: cluster });
  await call(app, 'POST', '/v1/clusters/prod/snapshots', { body: { ...edited(), metadata: { resourceVersion: '' } } });
  await call(app, 'POST', '/v1/clusters/prod/snapshots', { body: { ...cluster, metadata: { resourceVersion: '5' } }, headers: { 'if-match': '"1"' } });
  await call(app, 'POST', '/v1/clusters/prod/snapshots', { body: '[', type: 'application/json' });
  await call(app, 'POST', '/v1/clusters/prod/snapshots', { body: { base: '1', changes: { apply: [] } } });
  await call(app, 'GET', '/v1/clusters/prod/snapshots');
  await call(app, 'GET', '/v1/clusters/prod/snapshots?limit=1');
  await call(app, 'GET', '/v1/clusters/prod/snapshots?limit=-3');
  await call(app, 'GET', '/v1/clusters/nowhere/snapshots');
  await call(app, 'GET', '/v1/clusters/prod/snapshots/1');
  await call(app, 'GET', '/v1/clusters/prod/snapshots/404');
  const nodeTables = ['?format=ir', '?format=ir&since=1', '?format=ir-flat', '?format=ir-flat&since=1', '?format=ir-flat&since=999', '?format=nftables', '?format=nftables&since=1', '?format=iptables', '?format=iptables&since=1', '?format=iptables&part=ipv4', '?format=iptables&since=1&part=cleanup', '?format=vpp-acl', '?format=vpp-session', '?format=openstack-sg', '?version=1', '?format=pf', '?format=ir&part=ipv4', '?format=iptables&part=all'];
  for (const node of ['node-1', 'node-2']) for (const q of nodeTables) await call(app, 'GET', `/v1/clusters/prod/nodes/${node}/tables${q}`);
  await call(app, 'GET', '/v1/clusters/prod/nodes/node-1/tables?format=iptables', { headers: { accept: 'text/plain' } });
  const first = await call(app, 'GET', '/v1/clusters/prod/nodes/node-1/tables');
  await call(app, 'GET', '/v1/clusters/prod/nodes/node-1/tables', { headers: { 'if-none-match': first.headers.get('etag')! } });
  await call(app, 'GET', '/v1/clusters/prod/nodes/node-9/tables');
  await call(app, 'GET', '/v1/clusters/nowhere/nodes/node-1/tables');
  await call(app, 'GET', '/v1/clusters/prod/nodes/node-1/tables?version=404');
  await call(app, 'POST', '/v1/clusters/prod/verdicts', { body: { flows } });
  await call(app, 'POST', '/v1/clusters/prod/verdicts?version=1', { body: { flows } });
  await call(app, 'POST', '/v1/clusters/prod/verdicts', { body: { snapshot, flows } });
  await call(app, 'POST', '/v1/clusters/prod/verdicts', { body: { flows: [{ from: 'shop/nobody', to: 'shop/db', port: 1 }] } });
  await call(app, 'POST', '/v1/clusters/nowhere/verdicts', { body: { flows } });
  await call(app, 'POST', '/v1/clusters/prod/verdicts', { body: '{' });
  await call(app, 'POST', '/v1/clusters/prod/verdicts', { body: 'x', type: 'application/xml' });
  await call(small, 'POST', '/v1/clusters/prod/verdicts', { body: { flows: [...flows, ...flows, ...flows] } });
  await call(app, 'POST', '/v1/clusters/prod/matrix', { body: {} });
  await call(app, 'POST', '/v1/clusters/prod/matrix?version=404', { body: {} });
  await call(app, 'POST', '/v1/clusters/prod/matrix', { body: { ports: [] } });
  await call(app, 'POST', '/v1/clusters/prod/matrix', { body: '{' });
  for (const [q, accept] of [['can shop/web reach shop/db on 5432?', null], ['can shop/web reach shop/db on 5432?', 'text/plain'], ['what changed for shop/web since version 1?', null], ['what changed for shop/web since version 77?', null], ['', null], ['', 'text/plain'], ['hello', null]] as const) {
    await call(app, 'GET', `/v1/clusters/prod/ask?q=${encodeURIComponent(q)}`, accept ? { headers: { accept } } : {});
  }
  await call(app, 'GET', '/v1/clusters/nowhere/ask?q=who%20can%20reach%20shop/db');
  await call(app, 'GET', '/v1/clusters/prod/ask?q=who%20can%20reach%20shop/db&version=404');
  await call(app, 'POST', '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'prod' } });
  await call(app, 'POST', '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'prod', version: '1' }, headers: { accept: 'text/plain' } });
  await call(app, 'POST', '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'nowhere' } });
  await call(app, 'POST', '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'prod', snapshot } });
  await call(app, 'PUT', '/v1/clusters/prod/latest', { body: { version: '1' } });
  await call(app, 'PUT', '/v1/clusters/prod/latest', { body: { version: '404' } });
  await call(app, 'PUT', '/v1/clusters/prod/latest', { body: {} });
  await call(app, 'PUT', '/v1/clusters/prod/latest', { body: '{' });
  await call(app, 'PUT', '/v1/clusters/prod/latest', { body: 'x', type: 'application/xml' });
  await call(app, 'DELETE', '/v1/clusters/prod/snapshots/2');
  await call(app, 'DELETE', '/v1/clusters/prod/snapshots/2');
  await call(app, 'DELETE', '/v1/clusters/prod/snapshots/1');
  await call(app, 'POST', '/v1/store/collect');
  await call(app, 'POST', '/v1/store/collect', { body: { graceSeconds: 7200 } });
  await call(app, 'POST', '/v1/store/collect', { body: { graceSeconds: 10 } });
  await call(app, 'POST', '/v1/store/collect', { body: { graceSeconds: 'soon' } });
  await call(app, 'POST', '/v1/store/collect', { body: '{' });

  // Tokens: none (401), another cluster's (403); no tokens configured (503); no store (503).
  const reader = makeToken('read:cluster=prod');
  const other = makeToken('write:cluster=other');
  const store = createMemoryStore();
  const guarded = createApp({ store, access: tokenPolicy(reader, other), logError });
  const closed = createApp({ store, logError });
  const storeless = createApp({ access: { kind: 'anonymous' }, logError });
  for (const a of [guarded, closed, storeless]) {
    for (const headers of a === guarded ? [{}, other.header, reader.header] : [{}]) {
      await call(a, 'PUT', '/v1/clusters/prod/snapshots/1', { body: cluster, headers });
      await call(a, 'POST', '/v1/clusters/prod/snapshots', { body: cluster, headers });
      await call(a, 'GET', '/v1/clusters/prod/snapshots', { headers });
      await call(a, 'GET', '/v1/clusters/prod/snapshots/1', { headers });
      await call(a, 'DELETE', '/v1/clusters/prod/snapshots/1', { headers });
      await call(a, 'PUT', '/v1/clusters/prod/latest', { body: { version: '1' }, headers });
      await call(a, 'GET', '/v1/clusters/prod/nodes/node-1/tables', { headers });
      await call(a, 'POST', '/v1/clusters/prod/verdicts', { body: { flows }, headers });
      await call(a, 'POST', '/v1/clusters/prod/matrix', { body: {}, headers });
      await call(a, 'GET', '/v1/clusters/prod/ask?q=who%20can%20reach%20shop/db', { headers });
      await call(a, 'POST', '/v1/ask', { body: { question: 'who can reach shop/db?', cluster: 'prod' }, headers });
      await call(a, 'POST', '/v1/store/collect', { headers });
    }
  }

  // Operations and documents.
  const broken = { ...createMemoryStore(), latest: async () => { throw new Error('ECONNREFUSED 127.0.0.1:8000'); } } as SnapshotStore;
  const unready = createApp({ store: broken, logError: () => {} });
  for (const a of [app, unready, storeless]) for (const path of ['/healthz', '/readyz', '/metrics']) await call(a, 'GET', path);
  for (const path of ['/openapi.json', '/docs', '/']) await call(app, 'GET', path);
  return out;
}
