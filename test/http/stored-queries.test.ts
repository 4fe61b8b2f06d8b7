// Stored versions answer verdicts, matrices and questions: the same answers as the stateless
// routes give for the same snapshot, from the memory store and from the DynamoDB store on an
// in-process dynalite.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// First: the app module loads @hono/zod-openapi, which must extend zod before any schema is built.
import { createApp } from '../../functions/app.js';
import { ask } from '../../core/ask/answer.js';
import { ACCEPTED_FORMS } from '../../core/ask/parse.js';
import { prefersText } from '../../functions/negotiate.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';
import { clusterOf } from '../support/cluster-builders.js';
import { expectExampleVerdicts } from '../support/example-verdicts.js';

const ROOT = join(import.meta.dirname, '..', '..');
const v1 = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const flows = (JSON.parse(readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8')) as { flows: unknown[] }).flows;
// shop/web loses the label shop/db's NetworkPolicy admits: shop/web → shop/db 5432 turns to No.
const v2 = structuredClone(v1);
v2.items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web').metadata.labels = { app: 'web2' };

const dynamo = useLocalDynamo();

let clusters = 0;
const stores: Record<string, () => SnapshotStore> = {
  memory: () => createMemoryStore(),
  dynamodb: () => createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }),
};

describe.each(Object.keys(stores))('stored versions answer (%s store)', (kind) => {
  const setup = () => {
    const app = createApp({ store: stores[kind]!(), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const cluster = `c${++clusters}`;
    const json = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const put = async (rv: string, snapshot: unknown) => expect((await json('PUT', `/v1/clusters/${cluster}/snapshots/${rv}`, snapshot)).status).toBe(201);
    return { app, cluster, json, put };
  };

  it('verdicts: the same as /v1/verdicts with the snapshot, for the latest or a given version', async () => {
    const { cluster, json, put } = setup();
    await put('1', v1);
    await put('2', v2);
    for (const [query, snapshot, version] of [['', v2, '2'], ['?version=1', v1, '1']] as const) {
      const res = await json('POST', `/v1/clusters/${cluster}/verdicts${query}`, { flows });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-netpolc-version')).toBe(version);
      const stateless = await (await json('POST', '/v1/verdicts', { snapshot, flows })).json();
      expect(await res.json()).toEqual(stateless);
    }
    expectExampleVerdicts((await (await json('POST', `/v1/clusters/${cluster}/verdicts?version=1`, { flows })).json()) as any);
    const latest = (await (await json('POST', `/v1/clusters/${cluster}/verdicts`, { flows: [flows[0]] })).json()) as any;
    expect(latest.verdicts[0].allowed).toBe(false);
  });

  it('matrix: the same as /v1/matrix with the snapshot', async () => {
    const { cluster, json, put } = setup();
    await put('7', v1);
    const req = { ports: [{ port: 5432 }, { port: 443 }], pods: { namespaces: ['shop', 'payments'] } };
    const res = await json('POST', `/v1/clusters/${cluster}/matrix`, req);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual(await (await json('POST', '/v1/matrix', { snapshot: v1, ...req })).json());
    expect([...body.pods].sort()).toEqual(['payments/api', 'shop/db', 'shop/web']);
  });

  it('answers 404 for unknown clusters and versions, 422 with JSON paths for bad requests', async () => {
    const { cluster, json, put } = setup();
    expect((await json('POST', `/v1/clusters/${cluster}/verdicts`, { flows })).status).toBe(404);
    await put('1', v1);
    expect((await json('POST', `/v1/clusters/${cluster}/verdicts?version=9`, { flows })).status).toBe(404);
    expect((await json('GET', `/v1/clusters/${cluster}/ask?q=what+can+shop/web+reach&version=9`)).status).toBe(404);
    const unknownPod = await json('POST', `/v1/clusters/${cluster}/verdicts`, { flows: [{ from: 'shop/nope', to: 'shop/db', port: 1 }] });
    expect(unknownPod.status).toBe(422);
    expect(await unknownPod.json()).toMatchObject({ issues: [{ path: '$.flows[0].from' }] });
    const withSnapshot = await json('POST', `/v1/clusters/${cluster}/verdicts`, { snapshot: v1, flows });
    expect(withSnapshot.status).toBe(422);
    expect(await withSnapshot.json()).toMatchObject({ issues: [{ path: '$.snapshot', message: expect.stringContaining('stored version') }] });
    expect(await (await json('POST', `/v1/clusters/${cluster}/matrix`, { ports: [{ port: 0 }] })).json()).toMatchObject({ error: 'invalid', issues: [{ path: '$.ports[0].port' }] });
    expect((await json('POST', `/v1/clusters/${cluster}/verdicts`, {})).status).toBe(422);
  });

  it('ask: one sentence and the decision chain, as JSON or text, following the latest version', async () => {
    const { cluster, json, put } = setup();
    await put('1', v1);
    const question = 'can shop/web reach shop/db on 5432?';
    const path = `/v1/clusters/${cluster}/ask?q=${encodeURIComponent(question)}`;
    const expected1 = ask(clusterOf(v1.items), question) as unknown as { text: string; chain: string[] };

    const asJson = await json('GET', path);
    expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await asJson.json()).toMatchObject({ cluster, version: '1', kind: 'can', allowed: true, text: expected1.text, chain: expected1.chain });

    const asText = await json('GET', path, undefined, { accept: 'text/plain' });
    expect(asText.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await asText.text()).toBe(`${expected1.text}\n${expected1.chain.map((l) => `  ${l}\n`).join('')}`);
    expect(expected1.text).toMatch(/^Yes: /);

    // A new latest version: the next answer is about it (not the one built for the last question).
    await put('2', v2);
    const expected2 = ask(clusterOf(v2.items), question) as { text: string };
    expect(expected2.text).toMatch(/^No: /);
    expect(await (await json('GET', path, undefined, { accept: 'text/plain' })).text()).toMatch(new RegExp(`^${expected2.text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    expect(((await (await json('GET', `${path}&version=1`)).json()) as any).text).toBe(expected1.text);

    const who = (await (await json('GET', `/v1/clusters/${cluster}/ask?q=${encodeURIComponent('who can reach payments/api?')}`)).json()) as any;
    expect(who).toMatchObject({ kind: 'who', version: '2', text: (ask(clusterOf(v2.items), 'who can reach payments/api?') as { text: string }).text });
  });

  it('ask: an unreadable question is a 422 listing the accepted forms (JSON or text), never a 500', async () => {
    const { cluster, json, put } = setup();
    await put('1', v1);
    for (const q of ['hello there', 'can shop/web reach', 'can shop/web reach shop/db on 99999', 'x'.repeat(600), '¿¿¿ 🙂 ???']) {
      const res = await json('GET', `/v1/clusters/${cluster}/ask?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(422);
      expect(await res.json()).toMatchObject({ error: 'invalid', issues: [{ path: '$.query.q' }], acceptedForms: ACCEPTED_FORMS });
    }
    const text = await json('GET', `/v1/clusters/${cluster}/ask?q=hello`, undefined, { accept: 'text/plain, application/json;q=0.5' });
    expect(text.status).toBe(422);
    const body = await text.text();
    expect(body).toMatch(/^a question starts with "can", "is", "who" or "what"/);
    for (const form of ACCEPTED_FORMS) expect(body).toContain(form);
    // Missing q, and a pod the snapshot does not have.
    expect(await (await json('GET', `/v1/clusters/${cluster}/ask`)).json()).toMatchObject({ issues: [{ path: '$.query.q' }], acceptedForms: ACCEPTED_FORMS });
    const unknown = await json('GET', `/v1/clusters/${cluster}/ask?q=${encodeURIComponent('can shop/nope reach shop/db on 80')}`);
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ issues: [{ path: '$.query.q', message: expect.stringContaining('shop/nope') }] });
  });

  it('POST /v1/ask: with a snapshot, or a stored cluster and version; exactly one of them', async () => {
    const { cluster, json, put } = setup();
    await put('1', v1);
    await put('2', v2);
    const question = 'can shop/web reach shop/db on postgres';
    const withSnapshot = (await (await json('POST', '/v1/ask', { question, snapshot: v1 })).json()) as any;
    expect(withSnapshot.text).toBe((ask(clusterOf(v1.items), question) as { text: string }).text);
    expect(withSnapshot).not.toHaveProperty('cluster');
    const stored = (await (await json('POST', '/v1/ask', { question, cluster, version: '1' })).json()) as any;
    expect(stored).toMatchObject({ cluster, version: '1', text: withSnapshot.text });
    expect(((await (await json('POST', '/v1/ask', { question, cluster })).json()) as any).allowed).toBe(false);
    for (const body of [{ question }, { question, cluster, snapshot: v1 }]) {
      expect(await (await json('POST', '/v1/ask', body)).json()).toMatchObject({ error: 'invalid', issues: [{ path: '$.cluster', message: 'give either snapshot or cluster' }] });
    }
    expect(await (await json('POST', '/v1/ask', { question, snapshot: v1, version: '1' })).json()).toMatchObject({ issues: [{ path: '$.version' }] });
    const unreadable = await json('POST', '/v1/ask', { question: 'why?', snapshot: v1 });
    expect(unreadable.status).toBe(422);
    expect(await unreadable.json()).toMatchObject({ issues: [{ path: '$.question' }], acceptedForms: ACCEPTED_FORMS });
  });

  it('lists the new routes in the OpenAPI document', async () => {
    const { app } = setup();
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    for (const [path, method] of [['/v1/clusters/{cluster}/verdicts', 'post'], ['/v1/clusters/{cluster}/matrix', 'post'], ['/v1/clusters/{cluster}/ask', 'get'], ['/v1/ask', 'post']]) {
      expect(doc.paths[path!]?.[method!]?.responses, `${method} ${path}`).toHaveProperty('422');
    }
    expect(doc.paths['/v1/clusters/{cluster}/ask'].get.responses).toHaveProperty('401');
  });
});

describe('Accept negotiation', () => {
  it.each([
    [undefined, false],
    ['*/*', false],
    ['text/plain', true],
    ['text/*', true],
    ['application/json', false],
    ['text/plain, application/json', false],
    ['text/plain;q=0.9, application/json;q=0.8', true],
    ['application/json;q=0.5, text/plain', true],
    ['text/html, */*;q=0.1', false],
    ['text/*;q=0.9, */*;q=0.1', true],
    ['text/plain;q=0, */*', false],
  ])('%s → text: %s', (accept, text) => {
    expect(prefersText(accept)).toBe(text);
  });
});
