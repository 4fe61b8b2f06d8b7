// The HTTP contract, in-process through app.request(): verdicts, matrix, docs, input forms.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { expectExampleVerdicts } from '../support/example-verdicts.js';

const ROOT = join(import.meta.dirname, '..', '..');
const example = JSON.parse(readFileSync(join(ROOT, 'examples', 'verdicts-request.json'), 'utf8'));
const app = createApp({ logError: (e) => { throw e; } });

const post = (path: string, body: unknown, type = 'application/json') =>
  app.request(path, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('POST /v1/verdicts', () => {
  it('answers the README example with both decision chains', async () => {
    const res = await post('/v1/verdicts', example);
    expect(res.status).toBe(200);
    expectExampleVerdicts((await res.json()) as { verdicts: any[]; warnings: string[] });
  });

  it('reports loopback and node-local with their reason and no sides', async () => {
    const res = await post('/v1/verdicts', {
      snapshot: example.snapshot,
      flows: [
        { from: 'shop/db', to: 'shop/db', port: 5432 },
        { from: { ip: '172.18.0.3' }, to: 'shop/db', port: 5432 },
        { from: { ip: '172.18.0.2' }, to: 'shop/db', port: 5432 },
      ],
    });
    const { verdicts } = (await res.json()) as { verdicts: any[] };
    expect(verdicts[0]).toMatchObject({ allowed: true, reason: 'loopback', egress: null, ingress: null });
    expect(verdicts[1]).toMatchObject({ allowed: true, reason: 'node-local', egress: null, ingress: null });
    // node-1 is not shop/db's node: evaluated, and the NetworkPolicy isolates shop/db.
    expect(verdicts[2]).toMatchObject({ allowed: false, egress: null, ingress: { tier: 'networkpolicy' } });
  });

  it('evaluates the family asked for', async () => {
    const res = await post('/v1/verdicts', { snapshot: example.snapshot, flows: [{ from: 'shop/web', to: 'shop/db', port: 5432, ipFamily: 'IPv6' }] });
    const { verdicts } = (await res.json()) as { verdicts: any[] };
    expect(verdicts[0].flow.ipFamily).toBe('IPv6');
    expect(verdicts[0].allowed).toBe(true);
  });

  it('accepts multi-document YAML: the request document plus snapshot objects', async () => {
    const docs = [stringify({ flows: [{ from: 'payments/api', to: 'shop/db', port: 'postgres' }] }), ...example.snapshot.items.map((o: unknown) => stringify(o))];
    const res = await post('/v1/verdicts', docs.join('---\n'), 'application/yaml');
    expect(res.status).toBe(200);
    const { verdicts } = (await res.json()) as { verdicts: any[] };
    expect(verdicts[0].allowed).toBe(false);
  });

  it('accepts the snapshot as {items} or as a bare array', async () => {
    for (const snapshot of [{ items: example.snapshot.items }, example.snapshot.items]) {
      const res = await post('/v1/verdicts', { snapshot, flows: [example.flows[0]] });
      expect(res.status).toBe(200);
    }
  });
});

describe('POST /v1/matrix', () => {
  it('returns truth tables with counts, rows are sources', async () => {
    const res = await post('/v1/matrix', { snapshot: example.snapshot, ports: [{ port: 5432 }, { port: 9187, protocol: 'TCP' }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { pods: string[]; results: any[] };
    expect(body.pods).toEqual(['monitoring/prometheus', 'payments/api', 'shop/db', 'shop/web']);
    const [pg, metrics] = body.results;
    const cell = (r: any, from: string, to: string) => r.allowed[body.pods.indexOf(from)][body.pods.indexOf(to)];
    expect(cell(pg, 'shop/web', 'shop/db')).toBe(true);
    expect(cell(pg, 'payments/api', 'shop/db')).toBe(false);
    expect(cell(metrics, 'monitoring/prometheus', 'shop/db')).toBe(true);
    expect(cell(metrics, 'shop/web', 'shop/db')).toBe(false);
    expect(pg.counts.allowed + pg.counts.denied).toBe(16);
    expect(pg.table.split('\n')[0]).toBe('-\tmonitoring/prometheus\tpayments/api\tshop/db\tshop/web');
  });

  it('filters pods and refuses oversized matrices with a 422 naming $.pods', async () => {
    const filtered = await post('/v1/matrix', { snapshot: example.snapshot, pods: { namespaces: ['shop'] } });
    expect(((await filtered.json()) as { pods: string[] }).pods).toEqual(['shop/db', 'shop/web']);
    const pods = Array.from({ length: 130 }, (_, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'big' }, status: { phase: 'Running', podIP: `10.9.${i >> 8}.${i & 255}` } }));
    const ports = Array.from({ length: 64 }, (_, i) => ({ port: i + 1 }));
    const big = await post('/v1/matrix', { snapshot: pods, ports });
    expect(big.status).toBe(422);
    const body = (await big.json()) as { issues: { path: string; message: string }[] };
    expect(body.issues[0]!.path).toBe('$.pods');
    expect(body.issues[0]!.message).toContain('130 pods × 130 × 64 ports = 1081600 cells');
  });
});

describe('documentation', () => {
  it('serves an OpenAPI 3.1 document declaring every route and error status', async () => {
    const doc = (await (await app.request('/openapi.json')).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/v1/verdicts', '/v1/matrix']) {
      expect(Object.keys(doc.paths[path].post.responses).sort()).toEqual(['200', '400', '413', '415', '422', '503']);
    }
  });

  it('serves a docs page for people', async () => {
    const res = await app.request('/docs');
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('POST /v1/verdicts');
    expect(html).toContain('/openapi.json');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await app.request('/v2/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('POST /v1/compile', () => {
  it('returns the set form: tiered tables over shared sets, each once, nodes naming what they need', async () => {
    const res = await post('/v1/compile', { snapshot: example.snapshot });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.format).toBe('ir');
    expect(body.version).toBe('netpolc.io/ir/v2');
    const n2 = body.nodes['node-2'];
    expect(n2.addresses.length).toBeGreaterThan(0);
    const db = n2.pods['shop/db'];
    expect(db.ips).toEqual(['10.244.2.20', 'fd00:10:244:2::14']);
    // shop/db's ingress: the Admin tier passes shop traffic down, its NetworkPolicy isolates it
    // and lets shop/web in on postgres, the Baseline tier denies the rest.
    const ingress = body.tables[db.ingress];
    expect(ingress.direction).toBe('ingress');
    expect(ingress.admin.map((r: any) => r.action)).toContain('pass');
    expect(ingress.networkPolicy.isolated).toBe(true);
    expect(ingress.networkPolicy.rules[0].ports).toEqual([['TCP', 5432, 5432]]);
    const web = body.sets[ingress.networkPolicy.rules[0].set];
    expect(web.kind).toBe('addresses');
    expect(web.definition).toEqual({ type: 'pods', namespaces: { name: 'shop' }, pods: { matchLabels: { app: 'web' } } });
    expect(web.v4).toEqual(['10.244.1.10/32']);
    for (const id of n2.tables) expect(body.tables[id]).toBeDefined();
    for (const id of n2.sets) expect(body.sets[id]).toBeDefined();
    // Deterministic byte for byte.
    const again = await (await post('/v1/compile', { snapshot: example.snapshot })).text();
    expect(again).toBe(JSON.stringify(body));
  });

  it('returns flat tables as ir-flat: shared, content-addressed tables and a node-global table', async () => {
    const res = await post('/v1/compile', { snapshot: example.snapshot, format: 'ir-flat' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const n2 = body.nodes['node-2'];
    expect(Object.keys(n2.pods).sort()).toEqual(['monitoring/prometheus', 'shop/db']);
    const db = n2.pods['shop/db'];
    expect(db.ips).toEqual(['10.244.2.20', 'fd00:10:244:2::14']);
    for (const id of [db.ingress, db.egress, n2.global]) expect(n2.tables[id]).toBeDefined();
    for (const table of Object.values(n2.tables) as any[][]) expect(table[table.length - 1]).toMatchObject({ protocol: 'ANY', srcNetwork: '', dstNetwork: '', dstPortRange: null });
    // Deterministic byte for byte.
    const again = await (await post('/v1/compile', { snapshot: example.snapshot, format: 'ir-flat' })).text();
    expect(again).toBe(JSON.stringify(body));
  });

  it('refuses nodes the snapshot does not name, at their paths, rather than answering without them', async () => {
    for (const format of ['ir', 'ir-flat', 'nftables']) {
      const res = await post('/v1/compile', { snapshot: example.snapshot, format, nodes: ['node-1', 'nope', 'node-3'] });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { issues: { path: string; message: string }[] };
      expect(body.issues).toEqual([
        { path: '$.nodes[1]', message: 'no node "nope" in the snapshot (it names 2: node-1, node-2)' },
        { path: '$.nodes[2]', message: 'no node "node-3" in the snapshot (it names 2: node-1, node-2)' },
      ]);
    }
  });

  it('renders a dataplane format for selected nodes', async () => {
    const res = await post('/v1/compile', { snapshot: example.snapshot, format: 'openstack-sg', nodes: ['node-1'] });
    const body = (await res.json()) as any;
    expect(Object.keys(body.nodes)).toEqual(['node-1']);
    expect(body.nodes['node-1'].ports.map((p: any) => p.pod).sort()).toEqual(['payments/api', 'shop/web']);
  });

  it('rejects an unknown format with 422 on $.format', async () => {
    const res = await post('/v1/compile', { snapshot: example.snapshot, format: 'pf' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as any).issues[0].path).toBe('$.format');
  });
});

describe('POST /v1/compile limits', () => {
  it('answers 422 on $.format when vpp-session would need more single-port rules than its limit', async () => {
    // One NetworkPolicy allowing ports 1000-60999 to three pods: ~60k session rules per pod.
    const snapshot = {
      items: [
        ...['a', 'b', 'c'].map((n, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: n, namespace: 'x' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: `10.1.0.${i + 1}` } })),
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'wide', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24' } }], ports: [{ port: 1000, endPort: 30999 }] }] } },
      ],
    };
    const res = await post('/v1/compile', { snapshot, format: 'vpp-session' });
    expect(res.status).toBe(422);
    const body = (await res.json()) as any;
    expect(body.issues[0].path).toBe('$.format');
    expect(body.issues[0].message).toContain('node n1');
  });
});
