// Names that are also properties of Object.prototype (constructor, __proto__, toString, …) are
// names like any other: a node, pod, namespace or cluster so named is stored, read, diffed and
// previewed like node-1, or rejected by validation with a JSON path (422). Never a 500, never a
// 503 "damaged version" and never a missing node or table: every lookup of a name a client
// chose reads the name's own entry, not something inherited. The DynamoDB store on an
// in-process dynalite.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { COMPILE_FORMATS } from '../../schemas/api/compile.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };
const NAMES = Object.getOwnPropertyNames(Object.prototype);
type Role = 'node' | 'pod' | 'namespace' | 'label';

/** The example with node-1, pod shop/web or namespace payments renamed `name`, or shop/web labelled `name` and selected by it. */
function renamed(role: Role, name: string): { items: any[] } {
  const c = structuredClone(example);
  for (const o of c.items) {
    if (role === 'node' && o.kind === 'Node' && o.metadata.name === 'node-1') o.metadata.name = name;
    if (role === 'node' && o.kind === 'Pod' && o.spec.nodeName === 'node-1') o.spec.nodeName = name;
    if (role === 'pod' && o.kind === 'Pod' && o.metadata.name === 'web') o.metadata.name = name;
    if (role === 'namespace' && o.kind === 'Namespace' && o.metadata.name === 'payments') o.metadata.name = name;
    if (role === 'namespace' && o.metadata.namespace === 'payments') o.metadata.namespace = name;
    if (role === 'label' && o.kind === 'Pod' && o.metadata.name === 'web') o.metadata.labels = { [name]: 'web' };
  }
  if (role === 'label') c.items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'by-label', namespace: 'shop' }, spec: { podSelector: { matchLabels: { [name]: 'web' } }, policyTypes: ['Egress'] } });
  return c;
}

const dynamo = useLocalDynamo();

let n = 0;
function setup(cluster: string) {
  const errors: unknown[] = [];
  const app = createApp({ store: createDynamoDbStore({ client: dynamo().client, tableName: dynamo().tableName }), access: { kind: 'anonymous' }, logError: (e) => errors.push(e) });
  const send = (method: string, path: string, body?: unknown) => app.request(path, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const at = `/v1/clusters/${encodeURIComponent(cluster)}`;
  return { errors, send, at };
}

/** A 422 names the rejected name's place; anything else must be the answer asked for. */
async function rejectedOr(res: Response, ok: number): Promise<boolean> {
  if (res.status === 422) {
    const body = (await res.json()) as { issues: { path: string }[] };
    expect(body.issues.length).toBeGreaterThan(0);
    for (const i of body.issues) expect(i.path).toMatch(/^\$/);
    return true;
  }
  expect(res.status, await res.clone().text()).toBe(ok);
  return false;
}

describe.each(NAMES)('a name that is a property of Object.prototype: %s', (name) => {
  it.each<Role>(['node', 'pod', 'namespace', 'label'])('as a %s name: stored routes and previews answer as for any name', async (role) => {
    // The cluster is named `name` too, once per name (dynalite is shared by the cases).
    const cluster = role === 'node' ? name : `proto-${++n}`;
    const { errors, send, at } = setup(cluster);
    const head = renamed(role, name);
    expect((await send('PUT', `${at}/snapshots/1`, example)).status).toBe(201);
    const node = role === 'node' ? name : 'node-1';
    if (role === 'node') {
      // Not in version 1: unknown, not a damaged store.
      expect((await send('GET', `${at}/nodes/${encodeURIComponent(name)}/tables`)).status).toBe(404);
      expect((await send('GET', `${at}/nodes/${encodeURIComponent(name)}/tables?format=ir-flat`)).status).toBe(404);
    }
    const put = await send('PUT', `${at}/snapshots/2`, head);
    if (!(await rejectedOr(put, 201))) {
      const header = (await put.json()) as { header: { nodes: string[] } };
      expect(header.header.nodes).toContain(node);
      // Every format for a node so named; the set form for the others.
      for (const format of role === 'node' ? COMPILE_FORMATS : ['ir']) {
        for (const since of ['', '&since=1']) {
          const q = `?format=${format}${since}${format === 'iptables' ? '&part=ipv4' : ''}`;
          const res = await send('GET', `${at}/nodes/${encodeURIComponent(node)}/tables${q}`);
          expect(res.status, `${format}${since}: ${await res.clone().text()}`).toBe(200);
          // A node new in version 2 gets the whole answer from since=1.
          if (role === 'node' && (format === 'ir' || format === 'ir-flat')) expect(((await res.json()) as { full: boolean }).full).toBe(true);
        }
      }
      const who = role === 'pod' ? `shop/${name}` : role === 'namespace' ? `${name}/api` : 'shop/web';
      const expectOk = async (res: Response) => expect(res.status, await res.clone().text()).toBe(200);
      await expectOk(await send('POST', `${at}/verdicts`, { flows: [{ from: who, to: 'shop/db', port: 5432 }] }));
      // The question names shop/db (the grammar reads names in lower case); the answer lists every pod.
      await expectOk(await send('GET', `${at}/ask?q=${encodeURIComponent('who can reach shop/db?')}`));
      await expectOk(await send('GET', `${at}/snapshots/2`));
      await expectOk(await send('PUT', `${at}/latest`, { version: '1' }));
      // Changes on the base: the renamed object deleted again.
      const back = await send('PUT', `${at}/snapshots/3`, { base: '1', changes: { apply: head.items.filter((o) => o.metadata.name === name || o.metadata.namespace === name || o.spec?.nodeName === name || Object.hasOwn(o.metadata.labels ?? {}, name) || o.metadata.name === 'by-label'), delete: [] } });
      expect([200, 201, 422], await back.clone().text()).toContain(back.status);
    }
    for (const tables of [true, false]) {
      await rejectedOr(await send('POST', '/v1/previews', { base: example, head, tables }), 200);
      await rejectedOr(await send('POST', '/v1/previews', { base: head, head: example, tables }), 200);
    }
    const added = role === 'label' ? head.items.at(-1) : { apiVersion: 'v1', kind: role === 'pod' ? 'Pod' : role === 'node' ? 'Node' : 'Namespace', metadata: { name, ...(role === 'pod' ? { namespace: 'shop' } : {}) }, ...(role === 'pod' ? { spec: { nodeName: 'node-1', containers: [{ name: 'c' }] }, status: { podIP: '10.0.9.9' } } : {}) };
    await rejectedOr(await send('POST', '/v1/previews', { base: example, changes: { apply: [added], delete: [] } }), 200);
    expect(errors).toEqual([]);
  });
});
