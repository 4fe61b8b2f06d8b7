// The OpenAPI document (/openapi.json) against the handlers: every route documented and every
// documented operation a route, with the same path parameters; every answer of a corpus of real
// requests (test/support/contract-corpus.ts) under a documented status and media type, its JSON
// body parsed by the zod schema the route registered; and the document well formed and valid
// against the official OpenAPI 3.1 schema (@seriousme/openapi-schema-validator).
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { runCorpus, type Exchange } from '../support/contract-corpus.js';

type Json = Record<string, any>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

function build(): { app: App; doc: Json } {
  // An app with every optional part: a store and an offload runner (its routes are the same paths).
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, offload: { run: () => Promise.reject(new Error('unused')), storeRoutes: true, digest: () => ({ update: () => undefined, hex: () => '' }) } });
  return { app, doc: app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '0' } }) as Json };
}

/** `/v1/clusters/:cluster` → `/v1/clusters/{cluster}`. */
const templated = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParams = (template: string) => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/** Every operation of the document: `METHOD /path/{param}`. */
function operations(doc: Json): Map<string, Json> {
  const ops = new Map<string, Json>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) for (const [method, op] of Object.entries<Json>(item)) if (METHODS.includes(method)) ops.set(`${method.toUpperCase()} ${path}`, op);
  return ops;
}

/** The documented operation a request went to. */
function operationOf(ops: Map<string, Json>, e: Exchange): string | null {
  const pathname = new URL(e.url, 'http://x').pathname;
  for (const key of ops.keys()) {
    const [method, template] = key.split(' ') as [string, string];
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (method === e.method && pattern.test(pathname)) return key;
  }
  return null;
}

/** The zod schema registered for an operation's response (status, media type), if any. */
function registeredSchema(app: App, op: string, status: number, type: string): { safeParse(v: unknown): { success: boolean; error?: { issues: unknown[] } } } | null {
  const [method, path] = op.split(' ') as [string, string];
  for (const d of app.openAPIRegistry.definitions as Json[]) {
    if (d.type !== 'route' || d.route.method !== method.toLowerCase() || d.route.path !== path) continue;
    const schema = d.route.responses?.[status]?.content?.[type]?.schema;
    return schema && typeof schema.safeParse === 'function' ? schema : null;
  }
  return null;
}

/** Top-level members of a body that an object schema (not loose, no catchall) does not name. */
function undocumentedMembers(schema: unknown, body: unknown): string[] {
  const def = (schema as { _zod?: { def?: Json } })._zod?.def;
  if (def?.type !== 'object' || def.catchall !== undefined || typeof body !== 'object' || body === null) return [];
  const shape = def.shape as Json;
  return Object.keys(body).filter((k) => !(k in shape));
}

describe('the OpenAPI document against the routes', () => {
  const { app, doc } = build();
  const ops = operations(doc);
  const routes = new Set(app.routes.filter((r) => r.method !== 'ALL' && !r.path.includes('*')).map((r) => `${r.method} ${templated(r.path)}`));

  it('documents every route', () => {
    expect([...routes].filter((r) => !ops.has(r)), 'routes without a documented operation').toEqual([]);
  });

  it('has a route for every documented operation (same method, path and path parameter names)', () => {
    expect([...ops.keys()].filter((o) => !routes.has(o)), 'documented operations without a route').toEqual([]);
  });

  it('declares each path parameter of the template, and no other', () => {
    const wrong: string[] = [];
    for (const [key, op] of ops) {
      const inPath = pathParams(key.split(' ')[1]!).sort();
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path');
      if (JSON.stringify(declared.map((p) => p.name).sort()) !== JSON.stringify(inPath)) wrong.push(`${key}: template {${inPath.join('}, {')}}, declared ${JSON.stringify(declared.map((p) => p.name))}`);
      for (const p of declared) if (p.required !== true) wrong.push(`${key}: path parameter ${p.name} not required`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('the OpenAPI document is well formed', () => {
  const { doc } = build();
  const ops = operations(doc);

  it('resolves every $ref', () => {
    const unresolved: string[] = [];
    const walk = (v: unknown, at: string) => {
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${at}[${i}]`));
      if (typeof v !== 'object' || v === null) return;
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') {
          const target = x.startsWith('#/') ? x.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).reduce<any>((o, s) => o?.[s], doc) : undefined;
          if (target === undefined) unresolved.push(`${at}: ${x}`);
        } else walk(x, `${at}.${k}`);
      }
    };
    walk(doc, '$');
    expect(unresolved).toEqual([]);
  });

  it('validates against the official OpenAPI 3.1 schema, as served at /openapi.json', async () => {
    const served = (await (await build().app.request('/openapi.json')).json()) as Json;
    expect(served.openapi).toBe('3.1.0');
    const result = await new Validator().validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('the validator rejects a copy broken as a hand edit could break it', async () => {
    const valid = (await new Validator().validate(structuredClone(doc))).valid;
    expect(valid).toBe(true);
    // A response without its required description; a path parameter that is not required.
    const noDescription = structuredClone(doc);
    delete noDescription.paths['/healthz'].get.responses['200'].description;
    expect((await new Validator().validate(noDescription)).valid).toBe(false);
    const optionalPathParameter = structuredClone(doc);
    optionalPathParameter.paths['/v1/clusters/{cluster}/snapshots'].get.parameters.find((p: Json) => p.in === 'path').required = false;
    expect((await new Validator().validate(optionalPathParameter)).valid).toBe(false);
  });

  it('has unique operation ids', () => {
    const ids = [...ops.values()].map((op) => op.operationId).filter((id) => id !== undefined);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('gives every operation a 2xx or 3xx response', () => {
    expect([...ops].filter(([, op]) => !Object.keys(op.responses ?? {}).some((s) => /^[23]/.test(s))).map(([k]) => k)).toEqual([]);
  });

  it('answers every error status with the shared Error schema as JSON', () => {
    // The Error component itself, or a schema built on it: allOf with it, or (zod's .extend of it)
    // an object with every one of its properties, defined alike, and its required members.
    const error = doc.components.schemas.Error as Json;
    const component = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')] as Json | undefined;
    const isError = (s: Json | undefined): boolean => {
      if (!s) return false;
      if (s.$ref === '#/components/schemas/Error') return true;
      if (typeof s.$ref === 'string') return isError(component(s.$ref));
      if (Array.isArray(s.allOf)) return s.allOf.some(isError);
      return Object.entries<Json>(error.properties).every(([k, v]) => JSON.stringify(s.properties?.[k]) === JSON.stringify(v)) && (error.required as string[]).every((k) => s.required?.includes(k));
    };
    const wrong: string[] = [];
    for (const [key, op] of ops) {
      for (const [status, r] of Object.entries<Json>(op.responses ?? {})) {
        if (!/^[45]/.test(status)) continue;
        const schema = r.content?.['application/json']?.schema;
        if (!isError(schema)) wrong.push(`${key} ${status}: ${JSON.stringify(schema ?? null)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('every answer of the corpus is documented, with its shape', () => {
  const { app, doc } = build();
  const ops = operations(doc);
  let corpus: Exchange[] = [];
  beforeAll(async () => {
    corpus = await runCorpus();
  }, 120_000);

  it('reaches every documented operation, with a success for each', () => {
    const succeeded = new Set(corpus.filter((e) => e.status < 400).map((e) => operationOf(ops, e)));
    expect([...ops.keys()].filter((k) => !succeeded.has(k))).toEqual([]);
    expect(corpus.filter((e) => operationOf(ops, e) === null).map((e) => `${e.method} ${e.url}`)).toEqual([]);
  });

  it('answers only documented statuses and media types, and JSON bodies parse with the registered schema', () => {
    const wrong: string[] = [];
    for (const e of corpus) {
      const key = operationOf(ops, e);
      if (key === null) continue;
      const at = `${e.method} ${e.url} → ${e.status}${e.type ? ` ${e.type}` : ''}`;
      const documented = ops.get(key)!.responses?.[String(e.status)] as Json | undefined;
      if (!documented) {
        wrong.push(`${at}: status not documented for ${key} (documented: ${Object.keys(ops.get(key)!.responses ?? {}).join(', ')})`);
        continue;
      }
      if (e.type === null) continue;
      if (!documented.content?.[e.type]) {
        wrong.push(`${at}: media type not documented for ${key} ${e.status} (documented: ${Object.keys(documented.content ?? {}).join(', ') || 'none'})`);
        continue;
      }
      if (e.type !== 'application/json') continue;
      const schema = registeredSchema(app, key, e.status, e.type);
      if (!schema) {
        wrong.push(`${at}: no zod schema registered for ${key} ${e.status}`);
        continue;
      }
      const parsed = schema.safeParse(e.body);
      if (!parsed.success) wrong.push(`${at}: body does not parse: ${JSON.stringify(parsed.error?.issues.slice(0, 3))}`);
      // zod drops members an object schema does not name: a body member no schema describes is undocumented.
      const extra = undocumentedMembers(schema, e.body);
      if (extra.length > 0) wrong.push(`${at}: members not in the schema: ${extra.join(', ')}`);
    }
    expect(wrong).toEqual([]);
  });
});
