// Stored snapshots and node-agent diffs through the HTTP API (memory store; the DynamoDB store
// is tested against dynalite in test/infra).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { applyNodeDelta, type NodeSlice } from '../../core/diff/set-node.js';

const ROOT = join(import.meta.dirname, '..', '..');
const base = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: any[] };

/** The example cluster with edits: a relabelled pod, an extra policy. */
function version(edit: (items: any[]) => void) {
  const items = structuredClone(base.items);
  edit(items);
  return { apiVersion: 'v1', kind: 'List', items };
}
const v1 = version(() => {});
const v2 = version((items) => (items.find((o) => o.metadata.name === 'web').metadata.labels = { app: 'web2' }));
const v3 = version((items) => {
  items.find((o) => o.metadata.name === 'web').metadata.labels = { app: 'web2' };
  items.push({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'api-deny', namespace: 'payments' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } });
});

function setup() {
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const put = (rv: string, body: unknown) => app.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const tables = async (node: string, query = '', headers: Record<string, string> = {}) => app.request(`/v1/clusters/prod/nodes/${node}/tables${query}`, { headers });
  return { app, put, tables };
}

/** A node agent's state: bindings and the tables it holds. */
type AgentState = { pods: Record<string, any>; tables: Record<string, any>; global: string | null };
const fromFull = (b: any): AgentState => ({ pods: b.pods, tables: b.tables, global: b.global });
function applyDiff(s: AgentState, d: any): AgentState {
  const tables = { ...s.tables, ...d.tablesAdded };
  for (const id of d.tablesRemoved) delete tables[id];
  const pods = { ...s.pods };
  for (const [k, v] of Object.entries(d.bindingsChanged)) {
    if (v === null) delete pods[k];
    else pods[k] = v;
  }
  return { pods, tables, global: d.global };
}

describe('/v1/clusters: snapshots and node tables', () => {
  it('stores a version once: 201, then 200 unchanged, 409 for other content', async () => {
    const { put } = setup();
    expect((await put('100', v1)).status).toBe(201);
    const again = await put('100', v1);
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).status).toBe('unchanged');
    const clash = await put('100', v2);
    expect(clash.status).toBe(409);
    expect(((await clash.json()) as any).error).toBe('conflict');
  });

  it('a node agent applying v1 full, then flat diffs to v2 and v3, ends with exactly the full flat tables of v3', async () => {
    const { put, tables } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2], ['3', v3]] as const) expect((await put(rv, body)).status).toBe(201);
    for (const node of ['node-1', 'node-2']) {
      let state = fromFull(await (await tables(node, '?format=ir-flat&version=1')).json());
      const d2 = (await (await tables(node, '?format=ir-flat&version=2&since=1')).json()) as any;
      expect(d2.full).toBe(false);
      state = applyDiff(state, d2);
      const d3 = (await (await tables(node, '?format=ir-flat&version=3&since=2')).json()) as any;
      state = applyDiff(state, d3);
      const full3 = fromFull(await (await tables(node, '?format=ir-flat')).json());
      expect(state).toEqual(full3);
      // An unknown `since` is answered with the full tables, never an error.
      const unknown = (await (await tables(node, '?format=ir-flat&since=999')).json()) as any;
      expect(unknown.full).toBe(true);
      expect(fromFull(unknown)).toEqual(full3);
    }
    // shop/web lost the label shop/db's NetworkPolicy admits: shop/db's node (node-2) changes.
    const d = (await (await tables('node-2', '?format=ir-flat&version=2&since=1')).json()) as any;
    expect(Object.keys(d.tablesAdded).length + d.tablesRemoved.length).toBeGreaterThan(0);
  });

  it('a node agent applying v1 full, then set-form deltas to v2 and v3, ends with exactly the slice of v3', async () => {
    const { put, tables } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2], ['3', v3]] as const) expect((await put(rv, body)).status).toBe(201);
    const slice = (b: any): NodeSlice => {
      const n = b.ir.nodes[b.node];
      return { addresses: n.addresses, pods: n.pods, sets: b.ir.sets, tables: b.ir.tables };
    };
    for (const node of ['node-1', 'node-2']) {
      let state = slice(await (await tables(node, '?version=1')).json());
      const d2 = (await (await tables(node, '?version=2&since=1')).json()) as any;
      expect(d2).toMatchObject({ full: false, format: 'ir', from: '1', to: '2' });
      state = applyNodeDelta(state, d2.delta);
      const d3 = (await (await tables(node, '?version=3&since=2')).json()) as any;
      state = applyNodeDelta(state, d3.delta);
      const full3 = (await (await tables(node)).json()) as any;
      expect(full3).toMatchObject({ full: true, format: 'ir', version: '3' });
      expect(full3.ir.version).toBe('netpolc.io/ir/v2');
      expect(state).toEqual(slice(full3));
      const unknown = (await (await tables(node, '?since=999')).json()) as any;
      expect(unknown.full).toBe(true);
      expect(slice(unknown)).toEqual(slice(full3));
    }
    // shop/web lost the label shop/db's NetworkPolicy admits: on shop/db's node (node-2) that is
    // a member change of the set "pods with app=web in shop" — same set id, same tables.
    const d = (await (await tables('node-2', '?version=2&since=1')).json()) as any;
    const changed = Object.values(d.delta.setsChanged) as any[];
    expect(changed.some((c) => c.remove.v4.includes('10.244.1.10/32'))).toBe(true);
    expect(d.delta.tablesAdded).toEqual({});
    expect(d.delta.bindingsChanged).toEqual({});
  });

  it('answers 304 to If-None-Match when nothing changed for the node, and lists versions newest first', async () => {
    const { app, put, tables } = setup();
    await put('1', v1);
    await put('2', v2);
    const first = await tables('node-2');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+\.ir"$/);
    expect((await tables('node-2', '', { 'if-none-match': etag })).status).toBe(304);
    const list = (await (await app.request('/v1/clusters/prod/snapshots')).json()) as any;
    expect(list.versions.map((v: any) => v.version)).toEqual(['2', '1']);
    expect((await app.request('/v1/clusters/prod/snapshots/1')).status).toBe(200);
    expect((await app.request('/v1/clusters/prod/snapshots/7')).status).toBe(404);
    expect((await tables('node-9')).status).toBe(404);
  });

  it('answers an unchanged poll 304 before validating the query only where the query is valid: every other poll gets what the route gives', async () => {
    const { put, tables } = setup();
    await put('1', v1);
    const etag = (await tables('node-2', '?format=nftables')).headers.get('etag')!;
    const poll = (query: string, tag = etag) => tables('node-2', query, { 'if-none-match': tag });
    const unchanged = await poll('?format=nftables');
    expect([unchanged.status, unchanged.headers.get('etag'), unchanged.headers.get('x-netpolc-version')]).toEqual([304, etag, '1']);
    // A repeated key is read at its first value, by the validators and by the poll alike.
    expect((await poll('?format=nftables&format=bogus')).status).toBe(304);
    // An invalid format is the route's 422, even for If-None-Match: * (which matches any tag).
    for (const tag of [etag, '*']) {
      const bad = await poll('?format=bogus', tag);
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as any).issues[0].path).toBe('$.query.format');
    }
    // Not the node's tag, a part on another format, an unknown node: what the route answers.
    expect((await poll('?format=ir')).status).toBe(200);
    expect((await poll('?format=nftables&part=ipv4')).status).toBe(422);
    expect((await tables('node-9', '?format=nftables', { 'if-none-match': '*' })).status).toBe(404);
  });

  it('answers nftables since a version with a delta script (members, or new chains and bindings), the whole script for an unknown version', async () => {
    const { put, tables } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2], ['3', v3]] as const) expect((await put(rv, body)).status).toBe(201);
    // v1 → v2 on node-2: shop/web left a set shop/db's table uses; nothing else changed there.
    const delta = await tables('node-2', '?format=nftables&version=2&since=1');
    expect(delta.headers.get('x-netpolc-full')).toBe('false');
    const text = await delta.text();
    expect(text).toMatch(/^# netpolc: nftables delta for node node-2 from version 1 to 2/);
    expect(text).toMatch(/^delete element inet netpolc s[0-9a-f]{16}_v4 \{ 10\.244\.1\.10\/32 \}$/m);
    expect(text).not.toContain('table inet netpolc {');
    // v2 → v3 adds a NetworkPolicy on node-1's payments/api: new table chains declared in a
    // block, api's map entries rebound to them, the old chains removed.
    const structural = await tables('node-1', '?format=nftables&version=3&since=2');
    expect(structural.headers.get('x-netpolc-full')).toBe('false');
    const script = await structural.text();
    expect(script).toMatch(/^table inet netpolc \{\n\tchain r[0-9a-f]{16} \{$/m);
    expect(script).toMatch(/^add element inet netpolc pod_ingress_v4 \{ 10\.244\.\d+\.\d+ : jump r[0-9a-f]{16} \}$/m);
    expect(script).not.toContain('delete table');
    // An unknown `since` is the whole script too, never an error.
    const unknown = await tables('node-2', '?format=nftables&since=999');
    expect(unknown.headers.get('x-netpolc-full')).toBe('true');
  });

  it('answers iptables since a version with a delta artifact (ipset, restore payloads, cleanup), the whole artifact for an unknown version', async () => {
    const { put, tables } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2], ['3', v3]] as const) expect((await put(rv, body)).status).toBe(201);
    const delta = (await (await tables('node-1', '?format=iptables&version=3&since=2')).json()) as any;
    expect(delta).toMatchObject({ full: false, from: '2', to: '3', format: 'iptables' });
    expect(delta.rendered.ipv4).toMatch(/^:NPC-r[0-9a-f]{16} - \[0:0\]$/m);
    expect(delta.rendered.ipv4).toMatch(/^-D NETPOLC-INGRESS -d 10\.244\.\d+\.\d+\/32 -g NPC-r[0-9a-f]{16}$/m);
    expect(typeof delta.rendered.cleanup).toBe('string');
    const unknown = (await (await tables('node-1', '?format=iptables&since=999')).json()) as any;
    expect(unknown.full).toBe(true);
    expect(unknown.rendered.cleanup).toBeUndefined();
  });

  it('answers one part of the iptables artifact as the raw text its tool reads (part=, or 422 for text without one)', async () => {
    const { put, tables } = setup();
    for (const [rv, body] of [['1', v1], ['2', v2], ['3', v3]] as const) expect((await put(rv, body)).status).toBe(201);
    const whole = (await (await tables('node-1', '?format=iptables&version=3')).json()) as any;
    for (const part of ['ipset', 'ipv4', 'ipv6'] as const) {
      const res = await tables('node-1', `?format=iptables&version=3&part=${part}`);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(res.headers.get('x-netpolc-full')).toBe('true');
      expect(await res.text()).toBe(whole.rendered[part]);
    }
    expect(await (await tables('node-1', '?format=iptables&version=3&part=hooks')).text()).toBe(whole.rendered.hooks.map((h: string) => `${h}\n`).join(''));
    const delta = (await (await tables('node-1', '?format=iptables&version=3&since=2')).json()) as any;
    const cleanup = await tables('node-1', '?format=iptables&version=3&since=2&part=cleanup');
    expect(cleanup.headers.get('x-netpolc-full')).toBe('false');
    expect(await cleanup.text()).toBe(delta.rendered.cleanup);
    // Each part is its own representation: its own ETag.
    expect(cleanup.headers.get('etag')).not.toBe((await tables('node-1', '?format=iptables&version=3&part=ipv4')).headers.get('etag'));
    expect((await tables('node-1', '?format=iptables', { accept: 'text/plain' })).status).toBe(422);
    expect((await tables('node-1', '?format=nftables&part=ipv4')).status).toBe(422);
    expect((await tables('node-1', '?format=iptables&part=filter')).status).toBe(422);
  });

  it('renders a stored node as nftables text', async () => {
    const { put, tables } = setup();
    await put('1', v1);
    const res = await tables('node-1', '?format=nftables');
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(await res.text()).toContain('table inet netpolc {');
  });

  it('answers 422 at $.query.format when a stored node cannot be rendered as vpp-session within its limits', async () => {
    const { put, tables } = setup();
    // Ports 1000-30999 from a /24 to three pods: VPPTCP session rules take single ports, 30,000 per pod.
    const items = [
      ...['a', 'b', 'c'].map((n, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n, namespace: 'x' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: `10.1.0.${i + 1}` } })),
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'wide', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 1000, endPort: 30999 }] }] } },
    ];
    expect((await put('1', { apiVersion: 'v1', kind: 'List', items })).status).toBe(201);
    const res = await tables('n1', '?format=vpp-session');
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.issues).toEqual([{ path: '$.query.format', message: expect.stringContaining('node n1: vpp-session needs more than 50000 session rules on this node') }]);
    // The formats that take port ranges render the same node.
    expect((await tables('n1', '?format=vpp-acl')).status).toBe(200);
  });

  it('takes the version from the List on POST, and answers 503 without a store', async () => {
    const { app } = setup();
    const res = await app.request('/v1/clusters/prod/snapshots', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...v1, metadata: { resourceVersion: '42' } }) });
    expect(res.status).toBe(201);
    expect(((await res.json()) as any).version).toBe('42');
    const none = createApp({});
    expect((await none.request('/v1/clusters/prod/snapshots')).status).toBe(503);
  });
});
