// Property tests for the HTTP edge: whatever the body, POST /v1/verdicts, /v1/matrix,
// /v1/previews, /v1/lint, /v1/compile (every format) and /v1/ask answer 200, 400, 413, 415 or 422 — never 500 — and every non-200 is a JSON error body.
// Bodies: random JSON values, mutations deep inside a valid request (delete, retype,
// replace, rename, duplicate), the same as YAML, and random bytes/text under JSON and YAML
// content types. A 500 fails with the cause the app logged.
import fc from 'fast-check';
import { stringify as toYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { COMPILE_FORMATS } from '../../schemas/formats.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { assertProperty } from '../support/property.js';
import { isContainer, mutate, mutationsArb, type Json } from '../support/mutations.js';


const logged: unknown[] = [];
// With a store that serves anyone: /v1/ask may name a stored cluster instead of a snapshot.
const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError: (e) => logged.push(e) });
const smallApp = createApp({ maxBodyBytes: 2_000, logError: (e) => logged.push(e) });

// 404: /v1/ask naming a cluster that is not stored.
const ALLOWED = new Set([200, 400, 404, 413, 415, 422]);
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : undefined;
const params = (numRuns = RUNS) => ({ numRuns, ...(SEED !== undefined ? { seed: SEED } : {}) });

const ROUTES = ['/v1/verdicts', '/v1/matrix', '/v1/previews', '/v1/lint', '/v1/compile', '/v1/ask'] as const;
type Route = (typeof ROUTES)[number];

/** Posts and checks the contract; throws with the logged cause on a 500. */
async function check(route: Route, body: string | Uint8Array, contentType: string | undefined, target = app): Promise<number> {
  logged.length = 0;
  const headers: Record<string, string> = {};
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await target.request(route, { method: 'POST', headers, body });
  const text = await res.text();
  const shown = typeof body === 'string' ? body : `bytes[${body.length}] ${Buffer.from(body).toString('base64')}`;
  const where = `POST ${route} (${contentType ?? 'no content-type'}) body ${shown.length > 3000 ? `${shown.slice(0, 3000)}… (${shown.length} chars)` : shown}`;
  if (res.status === 500 || logged.length > 0) {
    const cause = logged.map((e) => (e instanceof Error ? e.stack : String(e))).join('\n');
    throw new Error(`${where}\n→ ${res.status} ${text.slice(0, 500)}\nlogged: ${cause}`);
  }
  if (!ALLOWED.has(res.status)) throw new Error(`${where}\n→ unexpected status ${res.status}: ${text.slice(0, 500)}`);
  expect(res.headers.get('content-type') ?? '', where).toMatch(/^application\/json/);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${where}\n→ ${res.status} with a body that is not JSON: ${text.slice(0, 500)}`);
  }
  if (res.status !== 200) {
    const err = json as { error?: unknown; message?: unknown; issues?: unknown };
    if (typeof err !== 'object' || err === null || typeof err.error !== 'string' || typeof err.message !== 'string') {
      throw new Error(`${where}\n→ ${res.status} without {error, message}: ${text.slice(0, 500)}`);
    }
    if (res.status === 422) {
      const issues = err.issues as { path?: unknown; message?: unknown }[] | undefined;
      if (!Array.isArray(issues) || issues.length === 0 || issues.some((i) => typeof i.path !== 'string' || !i.path.startsWith('$') || typeof i.message !== 'string')) {
        throw new Error(`${where}\n→ 422 without well-formed issues: ${text.slice(0, 500)}`);
      }
    }
  }
  return res.status;
}

// ---------------------------------------------------------------------------------------
// A valid request that uses every kind and most fields.

const pod = (ns: string, name: string, ips: string[], extra: { ports?: Json[]; hostNetwork?: boolean; labels?: Record<string, string> } = {}): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: extra.labels ?? { app: name } },
  spec: { nodeName: 'node-1', hostNetwork: extra.hostNetwork ?? false, containers: [{ name: 'main', ports: extra.ports ?? [] }], initContainers: null },
  status: { phase: 'Running', podIP: ips[0]!, podIPs: ips.map((ip) => ({ ip })) },
});

const SNAPSHOT: Json = {
  apiVersion: 'v1',
  kind: 'List',
  metadata: { resourceVersion: '42' },
  items: [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x', labels: { team: 'x', tenant: 'a' } } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'y', labels: { team: 'y', tenant: 'a' }, annotations: { 'net.beta.kubernetes.io/network-policy': '{"ingress": {"isolation": "DefaultDeny"}}' } } },
    { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }, { type: 'InternalIP', address: 'fc00::2' }, { type: 'Hostname', address: 'node-1' }] } },
    pod('x', 'a', ['10.0.0.1', 'fd00::1'], { ports: [{ name: 'http', containerPort: 80 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }),
    pod('x', 'b', ['10.0.0.2', 'fd00::2'], { ports: [{ name: 'http', containerPort: 8080 }] }),
    pod('y', 'c', ['10.0.1.1']),
    pod('y', 'host', ['172.18.0.2'], { hostNetwork: true }),
    {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'x' }, spec: { selector: { app: 'b' }, clusterIP: '10.96.0.10', ports: [{ port: 80, targetPort: 'http' }] } },
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ignored', namespace: 'x' }, data: { a: 'b' } },
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'x' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 80 }] }] } } } },
      ],
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np', namespace: 'x' },
      spec: {
        podSelector: { matchLabels: { app: 'b' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'a'] }] },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          { from: [{ podSelector: { matchLabels: { app: 'a' } }, namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } }, { ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }], ports: [{ port: 'http' }, { protocol: 'TCP', port: 8000, endPort: 9000 }] },
          { from: null, ports: null },
        ],
        egress: [{ to: [{ ipBlock: { cidr: 'fd00::/64' } }, { namespaceSelector: {} }], ports: [{ protocol: 'UDP', port: 53 }] }],
      },
    },
    {
      apiVersion: 'extensions/v1beta1',
      kind: 'NetworkPolicy',
      metadata: { name: 'legacy', namespace: 'y' },
      spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'x' } } }], ports: [{ port: 80 }] }, { from: [], ports: [] }] },
    },
    {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'AdminNetworkPolicy',
      metadata: { name: 'anp' },
      spec: {
        priority: 5,
        subject: { pods: { namespaceSelector: { matchLabels: { tenant: 'a' } }, podSelector: {} } },
        ingress: [
          { name: 'pass-same', action: 'Pass', from: [{ namespaces: { sameLabels: ['tenant'] } }] },
          { name: 'allow-self', action: 'Allow', from: [{ pods: { namespaces: { related: 'Self' }, podSelector: { matchLabels: { app: 'a' } } } }], ports: [{ portNumber: { protocol: 'TCP', port: 80 } }, { namedPort: 'http' }, { portRange: { protocol: 'UDP', start: 50, end: 60 } }] },
        ],
        egress: [
          { action: 'Deny', to: [{ networks: ['192.0.2.0/24', '2001:db8::/32'] }, { nodes: { matchLabels: { 'kubernetes.io/hostname': 'node-1' } } }], ports: [{ portRange: { start: 1000, end: 2000 } }] },
          { action: 'Allow', to: [{ domainNames: ['example.com'] }, { namespaces: { notSameLabels: ['team'] } }], ports: { port: [{ protocol: 'TCP', number: 443 }] } },
        ],
      },
    },
    {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'BaselineAdminNetworkPolicy',
      metadata: { name: 'default' },
      spec: {
        subject: { namespaceSelector: {} },
        ingress: [{ action: 'Deny', from: [{ namespaces: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['x'] }] } }] }],
        egress: [{ action: 'Allow', to: [{ networks: ['0.0.0.0/0'] }] }],
      },
    },
    {
      apiVersion: 'policy.networking.k8s.io/v1alpha2',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: 'cnp-admin' },
      spec: {
        tier: 'Admin',
        priority: 5,
        subject: { namespaces: { matchLabels: { team: 'x' } } },
        ingress: [{ name: 'accept', action: 'Accept', from: [{ pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'c' } } } }], protocols: [{ tcp: { destinationPort: { number: 80 } } }, { destinationNamedPort: 'http' }] }],
        egress: [{ action: 'Pass', to: [{ nodes: {} }, { networks: ['10.0.0.0/8'] }], protocols: [{ udp: { destinationPort: { range: { start: 1, end: 100 } } } }, { sctp: { destinationPort: { number: 9 } } }] }],
      },
    },
    {
      apiVersion: 'policy.networking.k8s.io/v1alpha2',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: 'cnp-baseline' },
      spec: { tier: 'Baseline', priority: 0, subject: { pods: { podSelector: {} } }, ingress: [{ action: 'Deny', from: [{ namespaces: {} }] }] },
    },
  ],
};

const VERDICTS: Json = {
  snapshot: SNAPSHOT,
  flows: [
    { from: 'x/a', to: 'x/b', port: 'http' },
    { from: { pod: 'y/c' }, to: 'x/b', port: 8500, protocol: 'TCP' },
    { from: 'x/b', to: 'x/a', port: 'dns', protocol: 'UDP', ipFamily: 'IPv4' },
    { from: 'x/a', to: 'x/b', port: 80, ipFamily: 'IPv6' },
    { from: { ip: '192.0.2.7' }, to: 'x/a', port: 80 },
    { from: 'y/host', to: 'x/a', port: 'http' },
    { from: 'x/a', to: { ip: '172.18.0.2' }, port: 1500, protocol: 'SCTP' },
  ],
};

const MATRIX: Json = {
  snapshot: SNAPSHOT,
  ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }, { port: 8080, protocol: 'TCP' }],
  pods: { namespaces: ['x', 'y'], selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, names: ['x/a', 'x/b', 'y/c'] },
  ipFamily: 'IPv4',
};

/** A change that edits the NetworkPolicy, deletes a pod and keeps the (slow) table delta out. */
const PREVIEW: Json = {
  base: SNAPSHOT,
  changes: {
    apply: [{ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {} }], ports: [{ port: 'http' }, { protocol: 'UDP', port: 50, endPort: 60 }] }] } }],
    delete: [{ kind: 'Pod', namespace: 'x', name: 'b' }],
  },
  tables: false,
};

/** Every output format in one request each: mutations pick one (`format` is mutated like any field). */
const COMPILE: Json = { snapshot: SNAPSHOT, format: 'nftables', nodes: ['node-1'] };

const ASK: Json = { snapshot: SNAPSHOT, question: 'can x/a reach x/svc/svc on 80?' };

const BASE: Record<Route, Json> = { '/v1/verdicts': VERDICTS, '/v1/matrix': MATRIX, '/v1/previews': PREVIEW, '/v1/lint': { snapshot: SNAPSHOT }, '/v1/compile': COMPILE, '/v1/ask': ASK };

// ---------------------------------------------------------------------------------------
// Properties

describe('fuzz: the HTTP edge never answers 500', () => {
  it('the base requests are valid (200), so mutations start from a meaningful body', async () => {
    for (const route of ROUTES) {
      logged.length = 0;
      const res = await app.request(route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BASE[route]) });
      const text = await res.text();
      expect(res.status, `${route}: ${text.slice(0, 2000)}`).toBe(200);
      const yaml = await app.request(route, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body: toYaml(BASE[route]) });
      expect(yaml.status, `${route} as YAML: ${(await yaml.text()).slice(0, 2000)}`).toBe(200);
    }
    for (const format of COMPILE_FORMATS) {
      const res = await app.request('/v1/compile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...(COMPILE as Record<string, Json>), format }) });
      expect(res.status, `${format}: ${(await res.text()).slice(0, 2000)}`).toBe(200);
    }
    const v = await (await app.request('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(VERDICTS) })).json() as { verdicts: unknown[] };
    expect(v.verdicts).toHaveLength((VERDICTS as { flows: unknown[] }).flows.length);
  });

  it('random JSON values', async () => {
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.jsonValue({ maxDepth: 5 }), async (route, value) => {
        await check(route, JSON.stringify(value), 'application/json');
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('random JSON values in the request fields (snapshot, flows, ports, pods, ipFamily, base, head, changes)', async () => {
    const anyJson = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>;
    const field = (base: Json) => fc.oneof(anyJson, fc.constant(base), fc.constant(undefined));
    const s = SNAPSHOT;
    const verdicts = fc.record({ snapshot: field(s), flows: fc.oneof(field((VERDICTS as { flows: Json }).flows), fc.array(fc.record({ from: anyJson, to: anyJson, port: anyJson, protocol: anyJson, ipFamily: anyJson }, { requiredKeys: [] }), { maxLength: 3 })) }, { requiredKeys: [] });
    const matrix = fc.record({ snapshot: field(s), ports: anyJson, pods: fc.oneof(anyJson, fc.record({ namespaces: anyJson, selector: anyJson, names: anyJson }, { requiredKeys: [] })), ipFamily: anyJson }, { requiredKeys: [] });
    const changes = fc.oneof(anyJson, fc.record({ apply: fc.oneof(anyJson, fc.array(anyJson, { maxLength: 2 })), delete: fc.oneof(anyJson, fc.array(fc.record({ kind: anyJson, namespace: anyJson, name: anyJson }, { requiredKeys: [] }), { maxLength: 2 })) }, { requiredKeys: [] }));
    const previews = fc.record({ base: field(s), head: field(s), changes, tables: fc.oneof(anyJson, fc.constant(false)), lint: anyJson, detail: anyJson }, { requiredKeys: [] });
    const lint = fc.record({ snapshot: field(s) }, { requiredKeys: [] });
    const compile = fc.record({ snapshot: field(s), format: fc.oneof(anyJson, fc.constantFrom(...COMPILE_FORMATS)), nodes: fc.oneof(anyJson, fc.constant(['node-1']), fc.array(fc.string(), { maxLength: 3 })) }, { requiredKeys: [] });
    const ask = fc.record({ snapshot: field(s), question: fc.oneof(anyJson, fc.string(), fc.constantFrom('can x/a reach x/b on 80?', 'who can reach x/b?', 'what can y/c reach on 53/udp?', 'is anything exposed to the internet?', 'can 192.0.2.7 reach svc in x on http and 8000-8002?')), cluster: anyJson, version: anyJson }, { requiredKeys: [] });
    await assertProperty(
      fc.asyncProperty(fc.oneof(verdicts.map((b) => ['/v1/verdicts', b] as const), matrix.map((b) => ['/v1/matrix', b] as const), previews.map((b) => ['/v1/previews', b] as const), lint.map((b) => ['/v1/lint', b] as const), compile.map((b) => ['/v1/compile', b] as const), ask.map((b) => ['/v1/ask', b] as const)), async ([route, body]) => {
        await check(route, JSON.stringify(body), 'application/json');
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('mutations deep inside a valid request (JSON)', async () => {
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), mutationsArb, fc.constantFrom(...COMPILE_FORMATS), async (route, mutations, format) => {
        const body = mutate(route === '/v1/compile' ? { ...(BASE[route] as Record<string, Json>), format } : BASE[route], mutations);
        await check(route, JSON.stringify(body), 'application/json');
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('mutations deep inside a valid request (YAML, one or many documents)', async () => {
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), mutationsArb, fc.boolean(), fc.constantFrom('application/yaml', 'application/x-yaml', 'text/yaml'), async (route, mutations, split, type) => {
        const body = mutate(BASE[route], mutations);
        let text: string;
        const snap = isContainer(body) && !Array.isArray(body) ? body.snapshot : undefined;
        if (split && isContainer(body) && !Array.isArray(body) && isContainer(snap ?? null) && !Array.isArray(snap) && Array.isArray((snap as { items?: Json }).items)) {
          // The README's form: the request document, then one document per object.
          const { snapshot: _drop, ...head } = body;
          const docs = [head, ...((snap as { items: Json[] }).items)];
          text = docs.map((d) => toYaml(d)).join('---\n');
        } else {
          text = toYaml(body);
        }
        await check(route, text, type);
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('mutated requests against a 2,000-byte body limit (413 or any other allowed answer)', async () => {
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), mutationsArb, fc.constantFrom('application/json', 'application/yaml'), async (route, mutations, type) => {
        const body = mutate(BASE[route], mutations);
        const text = type === 'application/json' ? JSON.stringify(body) : toYaml(body);
        const status = await check(route, text, type, smallApp);
        if (Buffer.byteLength(text) > 2_000) expect(status).toBe(413);
      }),
      { ...params(100), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('random bytes and text with JSON, YAML, other and no content types', async () => {
    const contentType = fc.constantFrom(
      'application/json', 'application/json; charset=utf-8', 'application/merge-patch+json', 'text/plain',
      'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml; charset=utf-8',
      'application/xml', 'multipart/form-data', 'APPLICATION/JSON', '', ';', undefined,
    );
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => new TextEncoder().encode(s)),
    );
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), bytes, contentType, async (route, body, type) => {
        await check(route, body, type);
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });

  it('YAML-shaped text built from YAML tokens', async () => {
    const token = fc.constantFrom(
      'snapshot', 'flows', 'items', 'kind', 'List', 'apiVersion', 'v1', 'Pod', 'metadata', 'name', 'x/a', 'port', '80',
      ': ', ':', '- ', '-', '---\n', '...\n', '\n', '  ', '[', ']', '{', '}', ',', '&a ', '*a', '&b ', '*b', '!!str ', '!!int ',
      '!!binary ', '!!map ', '!!seq ', '!foo ', '? ', '|', '>', '"', "'", '#', '%YAML 1.2\n', '%TAG ! tag:x:\n', '<<: *a',
      '.inf', '.nan', '~', 'null', 'true', '0x1F', '0o17', '1e400', '-', '\t', '\\', '\u0000', '\uFEFF', '@', '`',
    );
    await assertProperty(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.array(token, { maxLength: 40 }), async (route, tokens) => {
        await check(route, tokens.join(''), 'application/yaml');
      }),
      { ...params(), file: import.meta.url, env: ['FUZZ_RUNS'] },
    );
  });
});
