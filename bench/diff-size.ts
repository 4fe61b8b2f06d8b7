// How much a node agent fetches after a one-pod change: the bench snapshot, stored as version 1;
// one pod that a NetworkPolicy selects by label gets another label value, stored as version 2;
// then every node's tables are fetched the way an agent does, through the real route and store
// (memory backend): the set form with since=1 (the delta: set members added and removed, sets,
// tables and bindings), the set form in full, flat tables (ir-flat) with since=1, nftables with
// the v1 ETag and since=1 (304, an add/delete element script, or the whole script) and nftables in full.
//
//   node --import tsx bench/diff-size.ts [S|M|L]      (S by default)
import { createApp } from '../functions/app.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
import { createMemoryStore } from '../infra/store/memory.js';
import { GENERATORS, type SizeName } from './generate.js';
import { podSelectedByLabel } from './pick.js';

const size = (process.argv[2] ?? 'S').toUpperCase() as SizeName;
if (!(size in GENERATORS)) {
  console.error('usage: node --import tsx bench/diff-size.ts [S|M|L]');
  process.exit(2);
}

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const pct = (part: number, whole: number) => (whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)}%`);

async function main(): Promise<void> {
  const app = createApp({ store: createMemoryStore({ sha256Hex: nodeSha256Hex }), access: { kind: 'anonymous' }, sha256Hex: nodeSha256Hex, logError: (e) => { throw e; } });
  const v1 = GENERATORS[size]();
  const v2 = structuredClone(v1);
  const { pod, policy, app: label } = podSelectedByLabel(v2.items);
  pod.metadata.labels = { ...pod.metadata.labels, app: `${label}-relabelled` };

  const put = async (rv: string, body: unknown) => {
    const started = performance.now();
    const res = await app.request(`/v1/clusters/bench/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`PUT ${rv}: ${res.status} ${await res.text()}`);
    return { header: ((await res.json()) as { header: { nodes: string[]; tableCount: number } }).header, seconds: (performance.now() - started) / 1000 };
  };
  const p1 = await put('1', v1);
  const p2 = await put('2', v2);
  const get = async (node: string, query: string, headers: Record<string, string> = {}) => {
    const res = await app.request(`/v1/clusters/bench/nodes/${node}/tables?${query}`, { headers });
    const body = await res.text();
    return { status: res.status, bytes: new TextEncoder().encode(body).length, body, etag: res.headers.get('etag') };
  };

  console.log(`size ${size}: ${v1.items.length} objects, ${p2.header.nodes.length} nodes; version 1 stored in ${p1.seconds.toFixed(1)} s, version 2 in ${p2.seconds.toFixed(1)} s (compile included)`);
  console.log(`change: pod ${pod.metadata.namespace}/${pod.metadata.name} (node ${(pod.spec as any).nodeName}) app=${label} → app=${label}-relabelled; NetworkPolicy ${policy.metadata.namespace}/${policy.metadata.name} selected it\n`);

  const rows: string[][] = [];
  const total = { changed: 0, members: 0, added: 0, removed: 0, bindings: 0, diffIr: 0, fullIr: 0, diffFlat: 0, nftSent: 0, fullNft: 0 };
  for (const node of p2.header.nodes) {
    const diff = await get(node, 'format=ir&since=1');
    const body = JSON.parse(diff.body) as { full: boolean; delta: { setsAdded: Record<string, unknown>; setsRemoved: string[]; setsChanged: Record<string, { add: Record<string, unknown[]>; remove: Record<string, unknown[]> }>; tablesAdded: Record<string, unknown>; tablesRemoved: string[]; bindingsChanged: Record<string, unknown> } };
    if (body.full) throw new Error(`node ${node}: expected a delta, got the full slice`);
    const d = body.delta;
    const members = Object.values(d.setsChanged).reduce((n, c) => n + [...Object.values(c.add), ...Object.values(c.remove)].reduce((m, l) => m + l.length, 0), 0);
    const flatDiff = await get(node, 'format=ir-flat&since=1');
    const fullIr = await get(node, 'format=ir');
    const nftV1 = await get(node, 'format=nftables&version=1');
    // What an nftables agent holding version 1 receives: 304 (no body), a delta script (set
    // members only changed) or the whole script.
    const nftSent = await get(node, 'format=nftables&since=1', { 'if-none-match': nftV1.etag! });
    const fullNft = await get(node, 'format=nftables');
    const changed = nftSent.status !== 304;
    const [added, removed, bindings] = [Object.keys(d.tablesAdded).length + Object.keys(d.setsAdded).length, d.tablesRemoved.length + d.setsRemoved.length, Object.keys(d.bindingsChanged).length];
    if (changed !== members + added + removed + bindings > 0) throw new Error(`node ${node}: the ETag and the delta disagree about a change`);
    total.changed += +changed;
    total.members += members;
    total.diffFlat += flatDiff.bytes;
    total.added += added;
    total.removed += removed;
    total.bindings += bindings;
    total.diffIr += diff.bytes;
    total.fullIr += fullIr.bytes;
    total.nftSent += changed ? nftSent.bytes : 0;
    total.fullNft += fullNft.bytes;
    rows.push([node, changed ? 'yes' : 'no', String(members), String(added), String(removed), String(bindings), kib(diff.bytes), kib(fullIr.bytes), pct(diff.bytes, fullIr.bytes), kib(flatDiff.bytes), changed ? kib(nftSent.bytes) : '304', kib(fullNft.bytes)]);
  }
  if (total.changed === 0) throw new Error('the relabel changed no node: pick another pod');
  rows.push(['all', `${total.changed}/${p2.header.nodes.length}`, String(total.members), String(total.added), String(total.removed), String(total.bindings), kib(total.diffIr), kib(total.fullIr), pct(total.diffIr, total.fullIr), kib(total.diffFlat), kib(total.nftSent), kib(total.fullNft)]);

  const head = ['node', 'changed', 'members ±', 'sets/tables +', 'sets/tables -', 'bindings', 'ir delta', 'ir full', 'delta/full', 'ir-flat diff', 'nft sent', 'nft full'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  // Only the changed nodes' rows are worth reading at M and L.
  console.log(`\nir delta: the since=1 body of the set form (an unchanged node still gets a small "nothing changed" body); ir-flat diff: the same for flat tables; nft sent: what an agent with the v1 ETag asking since=1 receives.`);
}

await main();
