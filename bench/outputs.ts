// Every answer of a checkout, one file each, so two checkouts can be compared byte for byte
// (`diff -r`) before a change that must not alter output (a refactor of the HTTP layer, of the
// CLI). Drives the app in-process over every fixture (test/fixtures, examples): each stateless
// route, the same snapshot published and read back through the stored-cluster routes (listing,
// header, node tables in every format, since, ETag/304, stored queries, ask), the CLI over the
// same objects; then the request edges of bench/outputs-edges.ts (bad bodies, bad query values,
// unknown clusters, tokens, no store). Each file holds the status, the headers that carry
// meaning and the body; what changes from run to run (times, durations) is masked.
//
//   npx tsx bench/outputs.ts <checkout-root> <out-dir>
//   (e.g. the base in a worktree: git worktree add /tmp/base <commit>; ln -s $PWD/node_modules /tmp/base/)
//   diff -r <out-dir of one> <out-dir of the other>
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { edgeRequests } from './outputs-edges.js';

const [rootArg, outArg] = process.argv.slice(2);
if (!rootArg || !outArg) throw new Error('usage: npx tsx bench/outputs.ts <checkout-root> <out-dir>');
const [root, outDir] = [resolve(rootArg), resolve(outArg)];
process.chdir(root);
const yaml = createRequire(join(root, 'package.json'))('js-yaml') as { loadAll: (s: string) => unknown[]; dump: (v: unknown) => string };
const load = (path: string) => import(pathToFileURL(join(root, path)).href);
const { createApp } = await load('functions/app.ts');
const { createMemoryStore } = await load('infra/store/memory.ts');
const { main } = await load('functions/cli/main.ts');
const { parseTokens } = await load('functions/access/tokens.ts');

type Obj = Record<string, any>;
export type App = { request: (path: string, init: RequestInit) => Promise<Response> };
export interface Request {
  readonly method?: string;
  readonly body?: unknown;
  readonly type?: string;
  readonly headers?: Record<string, string>;
}

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const inputs = join(outDir, '..', `${outDir.split('/').pop()}-inputs`);
rmSync(inputs, { recursive: true, force: true });
mkdirSync(inputs, { recursive: true });
let files = 0;
const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 150);

function write(group: string, name: string, text: string): void {
  const dir = join(outDir, safe(group));
  mkdirSync(dir, { recursive: true });
  let file = join(dir, safe(name));
  for (let i = 2; statSafe(file); i++) file = join(dir, `${safe(name)}~${i}`);
  writeFileSync(file, text);
  files++;
}
const statSafe = (p: string) => {
  try {
    return statSync(p);
  } catch {
    return null;
  }
};

// Times and durations differ between runs: masked, so only a change of content shows.
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const masked = (text: string) => text.replace(ISO_TIME, '<time>').replace(/"durationMs":\s*[\d.]+/g, '"durationMs":<ms>').replace(/dur=[\d.]+/g, 'dur=<ms>');
const MEANINGFUL = /^(content-type|etag|location|retry-after|www-authenticate|server-timing|x-netpolc-.*)$/;

/** Sends one request and records its answer; returns the response's headers and text. */
export async function send(app: App, group: string, name: string, path: string, r: Request = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const body = r.body === undefined ? undefined : typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const method = r.method ?? (body === undefined ? 'GET' : 'POST');
  const headers = { ...(body !== undefined ? { 'content-type': r.type ?? 'application/json' } : {}), ...r.headers };
  const res = await app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  const shown = [...res.headers].filter(([k]) => MEANINGFUL.test(k)).sort(([a], [b]) => a.localeCompare(b));
  // /metrics: timings differ between runs; the metric names and the counters (requests by route
  // pattern and status, store errors) do not.
  const shownBody = path.startsWith('/metrics') ? text.split('\n').filter((l) => /^(# |netpolc_\w+_total\{)/.test(l)).join('\n') : text;
  write(group, name, masked(`${method} ${path}\n${res.status}\n${shown.map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${shownBody}`));
  return { status: res.status, headers: res.headers, text };
}

function cli(group: string, name: string, args: string[]): void {
  const [out, err]: [string[], string[]] = [[], []];
  let code: number | string;
  try {
    code = main(args, { out: (s: string) => out.push(s), err: (s: string) => err.push(s), stdin: () => '' });
  } catch (e) {
    code = `threw ${(e as Error).message}`;
  }
  // The inputs' directory differs between runs: named, not spelled out.
  write(group, name, masked(`netpolc ${args.join(' ')}\n${code}\n--- stdout\n${out.join('\n')}\n--- stderr\n${err.join('\n')}\n`).replaceAll(inputs, '<inputs>'));
}

const itemsOf = (snapshot: any): Obj[] => (Array.isArray(snapshot) ? snapshot : Array.isArray(snapshot?.items) ? snapshot.items : []);
const podKeys = (snapshot: unknown) => itemsOf(snapshot).filter((o) => o?.kind === 'Pod').map((o) => `${o.metadata?.namespace ?? 'default'}/${o.metadata?.name}`);
const nodeNames = (snapshot: unknown) => [...new Set(itemsOf(snapshot).filter((o) => o?.kind === 'Pod').map((o) => o.spec?.nodeName).filter((n) => typeof n === 'string'))].slice(0, 2) as string[];
const yamlFile = (name: string, objects: unknown[]) => {
  const file = join(inputs, `${safe(name)}.yaml`);
  writeFileSync(file, objects.map((o) => yaml.dump(o)).join('---\n'));
  return file;
};

const app: App = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError: (e: unknown) => console.error('logError', e) });
let counter = 0;
const NODE_FORMATS = ['', '?format=ir-flat', '?format=nftables', '?format=iptables', '?format=iptables&part=ipv4', '?format=vpp-acl', '?format=openstack-sg'];

async function snapshotRequests(label: string, snapshot: unknown, flows?: unknown[]): Promise<void> {
  const group = `${String(++counter).padStart(4, '0')}-${label}`;
  const pods = podKeys(snapshot);
  const [a, b] = [pods[0] ?? 'x/a', pods[1] ?? pods[0] ?? 'x/b'];
  const call = (name: string, path: string, r: Request = {}) => send(app, group, name, path, r);
  for (const lenient of ['', '?lenient=true']) {
    await call(`lint${lenient}`, `/v1/lint${lenient}`, { body: { snapshot } });
    await call(`verdicts${lenient}`, `/v1/verdicts${lenient}`, { body: { snapshot, flows: flows ?? [{ from: a, to: b, port: 80 }, { from: b, to: a, port: 53, protocol: 'UDP' }] } });
    await call(`ask${lenient}`, `/v1/ask${lenient}`, { body: { snapshot, question: `can ${a} reach ${b} on 80?` } });
  }
  for (const format of ['ir', 'ir-flat', 'nftables', 'iptables', 'vpp-acl', 'vpp-session', 'openstack-sg']) await call(`compile-${format}`, '/v1/compile', { body: { snapshot, format } });
  await call('matrix', '/v1/matrix', { body: { snapshot } });
  await call('ask-who', '/v1/ask', { body: { snapshot, question: `who can reach ${b}?` }, headers: { accept: 'text/plain' } });
  // Stored: published as version 1, then as 2 with the first pod relabelled, read back.
  const cluster = `c${counter}`;
  const put = await call('put-1', `/v1/clusters/${cluster}/snapshots/1`, { method: 'PUT', body: snapshot });
  if (put.status < 300) {
    const items = structuredClone(itemsOf(snapshot));
    const first = items.find((o) => o?.kind === 'Pod');
    if (first?.metadata) first.metadata.labels = { ...first.metadata.labels, outputs: 'edited' };
    await call('put-2', `/v1/clusters/${cluster}/snapshots/2`, { method: 'PUT', body: { kind: 'List', items } });
    await call('list', `/v1/clusters/${cluster}/snapshots`);
    await call('header-1', `/v1/clusters/${cluster}/snapshots/1`);
    for (const node of nodeNames(snapshot)) {
      for (const q of NODE_FORMATS) for (const since of ['', 'since=1']) await call(`node-${node}${q}${since}`, `/v1/clusters/${cluster}/nodes/${node}/tables${q}${since ? `${q ? '&' : '?'}${since}` : ''}`);
      const whole = await call(`node-${node}-etag`, `/v1/clusters/${cluster}/nodes/${node}/tables?version=1`);
      await call(`node-${node}-304`, `/v1/clusters/${cluster}/nodes/${node}/tables?version=1`, { headers: { 'if-none-match': `W/${whole.headers.get('etag')}` } });
    }
  }
  await call('stored-verdicts', `/v1/clusters/${cluster}/verdicts?version=1`, { body: { flows: flows ?? [{ from: a, to: b, port: 80 }] } });
  await call('stored-matrix', `/v1/clusters/${cluster}/matrix`, { body: {} });
  await call('stored-ask', '/v1/ask', { body: { cluster, question: `can ${a} reach ${b} on 80?` } });
  await call('stored-ask-get', `/v1/clusters/${cluster}/ask?q=${encodeURIComponent(`what changed for ${a} since version 1?`)}`, { headers: { accept: 'text/plain' } });
  cliRequests(group, yamlFile(group, itemsOf(snapshot)), a, b);
}

function cliRequests(group: string, path: string, a: string, b: string): void {
  for (const keep of [[], ['--keep-going']]) {
    const k = keep.length ? '-keep' : '';
    cli(group, `cli-lint${k}`, ['lint', ...keep, path]);
    cli(group, `cli-lint-json${k}`, ['lint', '--output', 'json', ...keep, path]);
    cli(group, `cli-verdict-json${k}`, ['verdict', '--from', a, '--to', b, '--port', '80', '--output', 'json', ...keep, path]);
    cli(group, `cli-ask${k}`, ['ask', `can ${a} reach ${b} on 80?`, ...keep, path]);
  }
}

async function previewRequests(label: string, base: unknown, head: unknown, changes?: unknown): Promise<void> {
  const group = `${String(++counter).padStart(4, '0')}-preview-${label}`;
  const body = changes ? { base, changes } : { base, head };
  for (const q of ['', '?lenient=true', '?detail=parts&tables=false']) await send(app, group, `preview${q}`, `/v1/previews${q}`, { body });
  await send(app, group, 'preview-markdown', '/v1/previews', { body, headers: { accept: 'text/markdown' } });
  if (!changes) {
    const [bf, hf] = [yamlFile(`${group}-base`, itemsOf(base)), yamlFile(`${group}-head`, itemsOf(head))];
    cli(group, 'cli-preview', ['preview', '--base', bf, '--head', hf, '--no-tables']);
    cli(group, 'cli-preview-json', ['preview', '--base', bf, '--head', hf, '--output', 'json']);
  }
}

// ---- fixtures
const walk = (dir: string): string[] => readdirSync(dir).sort().flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const yamlObjects = (text: string): Obj[] => (yaml.loadAll(text) as any[]).flatMap((d) => (d && Array.isArray(d.items) && String(d.kind ?? '').endsWith('List') ? d.items : [d])).filter((d) => d && typeof d === 'object' && d.kind);
const applySteps = (items: Obj[], s: Obj): Obj[] => {
  for (const d of s.delete ?? []) items = items.filter((o) => !(o.kind === d.kind && o.metadata.name === d.name && (o.metadata.namespace ?? undefined) === (d.namespace ?? undefined)));
  for (const o of s.apply ?? []) items = [...items.filter((x) => !(x.kind === o.kind && x.metadata.name === o.metadata.name && x.metadata.namespace === o.metadata.namespace)), o];
  return items;
};
for (const f of [...walk('test/fixtures'), ...walk('examples')].filter((f) => /\.(json|ya?ml)$/.test(f))) {
  const text = readFileSync(f, 'utf8');
  if (!f.endsWith('.json')) {
    const objs = yamlObjects(text);
    if (objs.length === 0) continue;
    await snapshotRequests(f, { apiVersion: 'v1', kind: 'List', items: objs });
    // The YAML as sent: a body of documents.
    const group = `${String(++counter).padStart(4, '0')}-yaml-${f}`;
    for (const lenient of ['', '?lenient=true']) await send(app, group, `lint${lenient}`, `/v1/lint${lenient}`, { body: text, type: 'application/yaml' });
    continue;
  }
  const v = JSON.parse(text);
  if (Array.isArray(v) || v.kind === 'List' || Array.isArray(v.items)) await snapshotRequests(f, v);
  else if (v.snapshot) await snapshotRequests(f, v.snapshot, v.flows);
  else if (Array.isArray(v.apply)) await previewRequests(f, JSON.parse(readFileSync('examples/cluster.json', 'utf8')), undefined, v);
  else if (Array.isArray(v.cases)) {
    // Upstream cases: base.json with each step applied, as the replay does; consecutive steps previewed.
    const base = JSON.parse(readFileSync(join(f, '..', 'base.json'), 'utf8'));
    for (const c of v.cases) {
      let items: Obj[] = [...base.items];
      for (const [i, s] of (c.steps ?? []).entries()) {
        const before = items;
        items = applySteps(items, s);
        await snapshotRequests(`${f}#${c.name}#${i}`, { apiVersion: 'v1', kind: 'List', items });
        if (i > 0) await previewRequests(`${f}#${c.name}#${i}`, { kind: 'List', items: before }, { kind: 'List', items });
      }
    }
  }
}
{
  const live = yamlObjects(readFileSync('examples/pull-request/live.yaml', 'utf8'));
  const manifests = walk('examples/pull-request/manifests').flatMap((f) => yamlObjects(readFileSync(f, 'utf8')));
  const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  const changed = new Set(manifests.map(key));
  await previewRequests('pull-request', { kind: 'List', items: live }, { kind: 'List', items: [...live.filter((o) => !changed.has(key(o))), ...manifests] });
}

await edgeRequests({ createApp, createMemoryStore, parseTokens, send });

console.log(`${files} answers written to ${outDir}`);
process.exit(0);
