// A stored version hedges its answers as the snapshot sent along does: the same `warnings` for
// the same objects (other engines' policies not evaluated, host-network pods as their node,
// objects of kinds not read), whether the version was stored whole or from changes, and the
// sentence names the policies that were not evaluated.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// First: the app module loads @hono/zod-openapi, which must extend zod before any schema is built.
import { createApp } from '../../functions/app.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';

const ROOT = join(import.meta.dirname, '..', '..');
const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const cilium = (name: string) => ({ apiVersion: 'cilium.io/v2', kind: 'CiliumNetworkPolicy', metadata: { name, namespace: 'shop' }, spec: { endpointSelector: {} } });
const snapshot = {
  kind: 'List',
  items: [
    ...base.items,
    cilium('deny-db'),
    cilium('deny-web'),
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'shop' } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'node-agent', namespace: 'monitoring' }, spec: { nodeName: 'node-1', hostNetwork: true, containers: [{ name: 'agent' }] }, status: { phase: 'Running', podIP: '10.0.0.1' } },
  ],
};

const dynamo = useLocalDynamo();

const stores: Record<string, () => SnapshotStore> = {
  memory: () => createMemoryStore(),
  dynamodb: () => createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }),
};

describe.each(Object.keys(stores))('stored answers carry the snapshot\'s warnings (%s store)', (kind) => {
  it('the same question about the same objects: the same warnings and sentence, stored whole or from changes', async () => {
    const store = stores[kind]!();
    const serve = () => createApp({ store, access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const [app, restarted] = [serve(), serve()];
    const call = (on: typeof app) => (method: string, path: string, body?: unknown) =>
      on.request(path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const json = call(app);
    const cluster = `warn-${kind}`;
    expect((await json('PUT', `/v1/clusters/${cluster}/snapshots/1`, snapshot)).status).toBe(201);
    // Version 2 from changes on version 1, by a server that did not compile version 1 (it reads
    // it from the store): one more ConfigMap, nothing else.
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'more', namespace: 'shop' } };
    expect((await call(restarted)('PUT', `/v1/clusters/${cluster}/snapshots/2`, { base: '1', changes: { apply: [configMap] } })).status).toBe(201);
    const whole2 = { ...snapshot, items: [...snapshot.items, configMap] };

    for (const question of ['can shop/web reach shop/db on 5432?', 'who can reach shop/db?', 'can monitoring/node-agent reach shop/db on 9187?']) {
      for (const [version, sent] of [['1', snapshot], ['2', whole2]] as const) {
        const stateless = (await (await json('POST', '/v1/ask', { question, snapshot: sent })).json()) as any;
        const stored = (await (await json('POST', '/v1/ask', { question, cluster, version })).json()) as any;
        const byGet = (await (await json('GET', `/v1/clusters/${cluster}/ask?q=${encodeURIComponent(question)}&version=${version}`)).json()) as any;
        expect(stateless.warnings, `${question} v${version}`).toEqual(expect.arrayContaining([expect.stringContaining('CiliumNetworkPolicy (cilium.io/v2) (2)'), expect.stringContaining('ConfigMap'), expect.stringContaining('host-network')]));
        expect(stored.warnings, `${question} v${version}`).toEqual(stateless.warnings);
        expect(byGet.warnings, `${question} v${version}`).toEqual(stateless.warnings);
        expect(stored.text).toBe(stateless.text);
        expect(stored.text).toContain('2 CiliumNetworkPolicies were not evaluated and may');
      }
    }
    const stored = (await (await json('POST', '/v1/ask', { question: 'can shop/web reach shop/db on 5432?', cluster })).json()) as any;
    expect(stored.text).toMatch(/^Yes: .* — but 2 CiliumNetworkPolicies were not evaluated and may deny it\.$/);
    const host = (await (await json('POST', '/v1/ask', { question: 'can monitoring/node-agent reach shop/db on 9187?', cluster })).json()) as any;
    expect(host.text).toContain('monitoring/node-agent is a host-network pod, answered as its node');
    // The verdicts route of the stored version warns the same.
    const flows = [{ from: 'shop/web', to: 'shop/db', port: 5432 }];
    const verdicts = (await (await json('POST', `/v1/clusters/${cluster}/verdicts?version=1`, { flows })).json()) as any;
    expect(verdicts.warnings).toEqual(((await (await json('POST', '/v1/verdicts', { snapshot, flows })).json()) as any).warnings);
  });
});
