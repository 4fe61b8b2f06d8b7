// Versions from changes, as a watcher sends them: the bench snapshot stored whole as version 1,
// then changes PUT on the latest version through the real app and store (the embedded dynalite
// store of `npm start`, in process; no socket): one pod relabelled (a pod a NetworkPolicy selects
// by label; ten times, each on the version before: a server is warm after its first few), a 100-pod rolling update as one change,
// the readiness of those 100 pods flipped (status only),
// one NetworkPolicy edited (three times), one AdminNetworkPolicy edited, one namespace relabelled,
// one node added, and
// a one-pod change on a cold server (a new app and store over the same table: the base is read
// back from the store and compiled whole). For each: wall time of the PUT (answered once the
// version is latest, as the Node server does) and until its move is settled after the answer,
// store items and bytes written (the settling's included), and what each node fetches (304s counted over every node; the ir and nftables deltas
// with since= of the first 20 affected nodes, or --sample N).
//
//   node --import tsx bench/changes.ts [S|M|L] [--store memory] [--sample N] [--no-rolling-fetch]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../functions/app.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
import { nodeCompression } from '../functions/node-compression.js';
import type { Item, ItemBackend } from '../infra/store/backend.js';
import { startLocalDynamo } from '../infra/dynamodb-local.js';
import { DynamoDbBackend } from '../infra/store/dynamodb.js';
import { MemoryBackend } from '../infra/store/memory.js';
import { createSnapshotStore } from '../infra/store/snapshot-store.js';
import { GENERATORS, type K8sObject, type SizeName } from './generate.js';
import { addedNode, editedAdminPolicy, editedPolicy, podSelectedByLabel, podsOfOneApp, promotedNamespace } from './pick.js';

const argv = process.argv.slice(2);
const size = (argv.find((a) => /^[SML]$/.test(a)) ?? 'S') as SizeName;
const storeKind = argv.includes('--store') ? argv[argv.indexOf('--store') + 1] : 'embedded';

/** Counts what a publish writes: items and bytes of their binary bodies and attributes. */
class CountingBackend implements ItemBackend {
  items = 0;
  bytes = 0;
  constructor(private readonly inner: ItemBackend) {}
  private count(items: readonly Item[]) {
    this.items += items.length;
    for (const i of items) for (const v of Object.values(i)) this.bytes += v instanceof Uint8Array ? v.length : String(v).length;
  }
  putItems(items: readonly Item[]) {
    this.count(items);
    return this.inner.putItems(items);
  }
  getItems(...a: Parameters<ItemBackend['getItems']>) {
    return this.inner.getItems(...a);
  }
  getItem(...a: Parameters<ItemBackend['getItem']>) {
    return this.inner.getItem(...a);
  }
  putIfAbsent(item: Item, now: number) {
    this.count([item]);
    return this.inner.putIfAbsent(item, now);
  }
  putIfUnchanged(...a: Parameters<ItemBackend['putIfUnchanged']>) {
    this.count([a[0]]);
    return this.inner.putIfUnchanged(...a);
  }
  updateIfExists(...a: Parameters<ItemBackend['updateIfExists']>) {
    this.items++;
    return this.inner.updateIfExists(...a);
  }
  removeIfExists(...a: Parameters<ItemBackend['removeIfExists']>) {
    this.items++;
    return this.inner.removeIfExists(...a);
  }
  queryPage(...a: Parameters<ItemBackend['queryPage']>) {
    return this.inner.queryPage(...a);
  }
  scanPage(...a: Parameters<ItemBackend['scanPage']>) {
    return this.inner.scanPage(...a);
  }
  deleteIf(...a: Parameters<ItemBackend['deleteIf']>) {
    return this.inner.deleteIf(...a);
  }
}

// `--sample N`: how many affected nodes fetch their deltas after each kind of change (20 by
// default; at L each fetch reads thousands of set bodies from the embedded store).
const SAMPLE = argv.includes('--sample') ? Number(argv[argv.indexOf('--sample') + 1]) : 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const kib = (n: number) => +(n / 1024).toFixed(2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'netpolc-changes-'));
  const local = storeKind === 'memory' ? null : await startLocalDynamo({ path: dir, tableName: 'bench' });
  const raw: ItemBackend = local ? new DynamoDbBackend({ client: local.client, tableName: 'bench' }) : new MemoryBackend();
  const backend = new CountingBackend(raw);
  // L's whole snapshot (140 MB) is over the default body limit (64 MiB), as MAX_BODY_BYTES allows.
  // As the Node server runs (depsFromEnv 'node'): a publish answers once its version is latest and
  // settles the pointer move after; what the settling writes is counted with its publish.
  let store = createSnapshotStore(backend, { sha256Hex: nodeSha256Hex, compression: nodeCompression });
  const server = () => {
    store = createSnapshotStore(backend, { sha256Hex: nodeSha256Hex, compression: nodeCompression });
    return createApp({ store, access: { kind: 'anonymous' }, sha256Hex: nodeSha256Hex, logAccess: null, maxBodyBytes: 512 * 2 ** 20, settleAfterAnswer: true, logError: (e) => { throw e; } });
  };
  let app = server();
  const put = async (rv: string, body: unknown) => {
    const text = JSON.stringify(body);
    const [items, bytes] = [backend.items, backend.bytes];
    const started = performance.now();
    const res = await app.request(`/v1/clusters/bench/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
    const ms = performance.now() - started;
    await store.settled();
    const settledMs = performance.now() - started;
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 201) throw new Error(`PUT ${rv}: ${res.status} ${JSON.stringify(json).slice(0, 500)}`);
    return { ms, settledMs, items: backend.items - items, bytes: backend.bytes - bytes, requestBytes: text.length, json };
  };

  const v1 = GENERATORS[size]();
  const nodes = v1.items.filter((o) => o.kind === 'Node').map((o) => o.metadata.name).sort();
  const full = await put('1', v1);
  console.log(JSON.stringify({ size, store: storeKind, fullPutMs: Math.round(full.ms), fullItems: full.items, fullMiB: +(full.bytes / 2 ** 20).toFixed(1) }));

  // What every node fetches after a change from `from` to `to`, as agents do.
  const fetchNodes = async (from: string, to: string) => {
    let affected = 0;
    let irMax = 0;
    let nftMax = 0;
    let nftFull = 0;
    // The slowest node's two delta requests (ir and nftables), as its agent waits for them.
    let deltaMsMax = 0;
    for (const node of nodes) {
      const etag = (await app.request(`/v1/clusters/bench/nodes/${node}/tables?version=${from}`)).headers.get('etag')!;
      const same = await app.request(`/v1/clusters/bench/nodes/${node}/tables?version=${to}`, { headers: { 'if-none-match': etag } });
      if (same.status === 304) continue;
      affected++;
      // Deltas of the first SAMPLE affected nodes (loading two versions' slices of every affected
      // node from the embedded store takes minutes at L; the count covers all of them).
      if (affected > SAMPLE) continue;
      const fetchStarted = performance.now();
      irMax = Math.max(irMax, (await (await app.request(`/v1/clusters/bench/nodes/${node}/tables?version=${to}&since=${from}`)).arrayBuffer()).byteLength);
      const nft = await app.request(`/v1/clusters/bench/nodes/${node}/tables?version=${to}&since=${from}&format=nftables`);
      nftMax = Math.max(nftMax, (await nft.arrayBuffer()).byteLength);
      if (nft.headers.get('x-netpolc-full') !== 'false') nftFull++;
      deltaMsMax = Math.max(deltaMsMax, performance.now() - fetchStarted);
    }
    return { nodes: nodes.length, affected, unaffected304: nodes.length - affected, deltasFetched: Math.min(affected, SAMPLE), irDeltaMaxKiB: kib(irMax), nftDeltaMaxKiB: kib(nftMax), nftFullScripts: nftFull, deltaMsMax: Math.round(deltaMsMax) };
  };

  // One pod relabelled, ten times in a row, each on the latest version (warm; the median over
  // all ten, the first ones included while the code paths are still cold).
  let latest = v1.items;
  let version = 1;
  const relabel: { ms: number; settledMs: number; items: number; bytes: number; incremental: unknown }[] = [];
  let lastFetch: Awaited<ReturnType<typeof fetchNodes>> | null = null;
  const RELABELS = 10;
  for (let r = 0; r < RELABELS; r++) {
    const { pod, app: label } = podSelectedByLabel(latest.filter((o) => !(o.metadata.labels?.app ?? '').endsWith('-relabelled')));
    const changed: K8sObject = { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, app: `${label}-relabelled` } } };
    const res = await put(String(version + 1), { base: String(version), changes: { apply: [changed] } });
    relabel.push({ ms: res.ms, settledMs: res.settledMs, items: res.items, bytes: res.bytes, incremental: res.json.incremental });
    latest = latest.map((o) => (o === pod ? changed : o));
    version++;
    if (r === RELABELS - 1) lastFetch = await fetchNodes(String(version - 1), String(version));
  }
  const onePodMs = median(relabel.map((x) => x.ms));
  console.log(JSON.stringify({ size, change: 'one pod relabelled (warm)', publishMsMedian: Math.round(onePodMs), publishMs: relabel.map((x) => Math.round(x.ms)), settledMsMedian: Math.round(median(relabel.map((x) => x.settledMs))), incremental: relabel.map((x) => x.incremental), storeItems: median(relabel.map((x) => x.items)), storeKiB: kib(median(relabel.map((x) => x.bytes))), ...lastFetch }));

  // The same, sent back to back as a busy watcher does: each PUT as soon as the one before has
  // answered, so its move waits for the previous settling; the time per version until the last
  // is settled shows what answering before settling leaves to the next version.
  const bodies: string[] = [];
  for (let r = 0; r < RELABELS; r++) {
    const { pod, app: label } = podSelectedByLabel(latest.filter((o) => !(o.metadata.labels?.app ?? '').endsWith('-relabelled')));
    const changed: K8sObject = { ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, app: `${label}-relabelled` } } };
    bodies.push(JSON.stringify({ base: String(version + r), changes: { apply: [changed] } }));
    latest = latest.map((o) => (o === pod ? changed : o));
  }
  const burst = performance.now();
  for (const body of bodies) {
    const res = await app.request(`/v1/clusters/bench/snapshots/${version + 1}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
    if (res.status !== 201) throw new Error(`PUT ${version + 1}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    version++;
  }
  await store.settled();
  console.log(JSON.stringify({ size, change: `${RELABELS} one-pod changes back to back (warm)`, msPerVersionSettled: Math.round((performance.now() - burst) / RELABELS) }));

  // A 100-pod rolling update: the pods of one app replaced by new ones (new names, addresses, hash
  // label); three in a row (the largest app rolled again), the median against the one-pod median (both
  // medians of repeated changes on one warm server).
  const ROLLS = 3;
  const rolls: Awaited<ReturnType<typeof put>>[] = [];
  for (let r = 0; r < ROLLS; r++) {
    const old = podsOfOneApp(latest, 100);
    const fresh = old.map((p, i) => ({
      ...p,
      metadata: { ...p.metadata, name: `${p.metadata.name}-r${r + 2}`, labels: { ...p.metadata.labels, 'pod-template-hash': `rolled${r + 2}` } },
      status: { ...(p.status as object), podIP: `100.${64 + r}.${i >> 8}.${i & 255}`, podIPs: [{ ip: `100.${64 + r}.${i >> 8}.${i & 255}` }] },
    }));
    rolls.push(await put(String(version + 1), { base: String(version), changes: { delete: old.map((p) => ({ kind: 'Pod', namespace: p.metadata.namespace, name: p.metadata.name })), apply: fresh } }));
    const gone = new Set(old);
    latest = [...latest.filter((o) => !gone.has(o)), ...fresh];
    version++;
  }
  const rollingMs = median(rolls.map((x) => x.ms));
  // Printed before the fetch: at L, loading two versions' slices of 20 nodes takes minutes.
  console.log(JSON.stringify({ size, change: '100-pod rolling update (warm)', publishMsMedian: Math.round(rollingMs), publishMs: rolls.map((x) => Math.round(x.ms)), settledMsMedian: Math.round(median(rolls.map((x) => x.settledMs))), overOnePod: +(rollingMs / onePodMs).toFixed(1), incremental: rolls.map((x) => x.json.incremental), storeItems: median(rolls.map((x) => x.items)), storeKiB: kib(median(rolls.map((x) => x.bytes))) }));
  // Every node is polled after it: at L that reads most nodes' tables twice from the embedded store (an hour); `--no-rolling-fetch` skips it.
  if (!argv.includes('--no-rolling-fetch')) console.log(JSON.stringify({ size, change: '100-pod rolling update: what nodes fetch', ...(await fetchNodes(String(version - 1), String(version))) }));

  // Readiness flipping on the rolled pods, as a watcher sends it: each pod as it is but for its
  // conditions, which parsing drops (the version changes nothing netpolc reads). Three in a row.
  const readiness: Awaited<ReturnType<typeof put>>[] = [];
  for (let r = 0; r < 3; r++) {
    const pods = podsOfOneApp(latest, 100).map((p) => ({ ...p, status: { ...(p.status as object), conditions: [{ type: 'Ready', status: r % 2 === 0 ? 'False' : 'True' }] } }));
    readiness.push(await put(String(version + 1), { base: String(version), changes: { apply: pods } }));
    version++;
  }
  const readyMs = median(readiness.map((x) => x.ms));
  console.log(JSON.stringify({ size, change: "100 pods' readiness flipped (warm)", publishMsMedian: Math.round(readyMs), publishMs: readiness.map((x) => Math.round(x.ms)), overOnePod: +(readyMs / onePodMs).toFixed(1), changed: readiness.map((x) => x.json.changed), incremental: readiness.map((x) => x.json.incremental), storeItems: median(readiness.map((x) => x.items)), storeKiB: kib(median(readiness.map((x) => x.bytes))) }));

  // Policy edits, as a GitOps pipeline applies a merged pull request: one NetworkPolicy gains an
  // ingress rule (three times, each another policy), then one AdminNetworkPolicy a Deny rule
  // (its subjects span namespaces). Each PUT on the latest version.
  const policyEdits: Awaited<ReturnType<typeof put>>[] = [];
  for (let r = 0; r < 3; r++) {
    const { before, after } = editedPolicy(latest, r);
    policyEdits.push(await put(String(version + 1), { base: String(version), changes: { apply: [after] } }));
    latest = latest.map((o) => (o === before ? after : o));
    version++;
  }
  console.log(JSON.stringify({ size, change: 'one NetworkPolicy edited (warm)', publishMsMedian: Math.round(median(policyEdits.map((x) => x.ms))), publishMs: policyEdits.map((x) => Math.round(x.ms)), overOnePod: +(median(policyEdits.map((x) => x.ms)) / onePodMs).toFixed(1), overFullPut: +(median(policyEdits.map((x) => x.ms)) / full.ms).toFixed(2), incremental: policyEdits.map((x) => x.json.incremental), storeItems: median(policyEdits.map((x) => x.items)), storeKiB: kib(median(policyEdits.map((x) => x.bytes))), ...(await fetchNodes(String(version - 1), String(version))) }));
  const admin = editedAdminPolicy(latest);
  if (admin) {
    const res = await put(String(version + 1), { base: String(version), changes: { apply: [admin.after] } });
    latest = latest.map((o) => (o === admin.before ? admin.after : o));
    version++;
    // It reaches almost every node: fetched as the rolling update's are (`--no-rolling-fetch` skips both).
    const fetched = argv.includes('--no-rolling-fetch') ? {} : await fetchNodes(String(version - 1), String(version));
    console.log(JSON.stringify({ size, change: 'one AdminNetworkPolicy edited (warm)', publishMs: Math.round(res.ms), overFullPut: +(res.ms / full.ms).toFixed(2), incremental: res.json.incremental, storeItems: res.items, storeKiB: kib(res.bytes), ...fetched }));
  }

  // A namespace promoted (its env label dev -> prod), as an admin relabels one: its pods change
  // admin-policy subjects and namespace-selector sets.
  const promoted = promotedNamespace(latest);
  if (promoted) {
    const res = await put(String(version + 1), { base: String(version), changes: { apply: [promoted.after] } });
    latest = latest.map((o) => (o === promoted.before ? promoted.after : o));
    version++;
    const pods = latest.filter((o) => o.kind === 'Pod' && o.metadata.namespace === promoted.before.metadata.name).length;
    console.log(JSON.stringify({ size, change: 'one namespace relabelled (warm)', pods, publishMs: Math.round(res.ms), overFullPut: +(res.ms / full.ms).toFixed(2), incremental: res.json.incremental, storeItems: res.items, storeKiB: kib(res.bytes), ...(await fetchNodes(String(version - 1), String(version))) }));
  }

  // A node added, as an autoscaler adds one (its pods come as pod changes later): node sets and its own record change.
  const node = addedNode(latest);
  const scaled = await put(String(version + 1), { base: String(version), changes: { apply: [node] } });
  latest = [...latest, node];
  version++;
  console.log(JSON.stringify({ size, change: 'one node added (warm)', publishMs: Math.round(scaled.ms), overFullPut: +(scaled.ms / full.ms).toFixed(2), incremental: scaled.json.incremental, storeItems: scaled.items, storeKiB: kib(scaled.bytes), ...(await fetchNodes(String(version - 1), String(version))) }));

  // Cold: a new server over the same table (restart, a new Lambda or Worker isolate).
  app = server();
  const { pod, app: label } = podSelectedByLabel(latest.filter((o) => !(o.metadata.labels?.app ?? '').endsWith('-relabelled')));
  const cold = await put(String(version + 1), { base: String(version), changes: { apply: [{ ...pod, metadata: { ...pod.metadata, labels: { ...pod.metadata.labels, app: `${label}-relabelled` } } }] } });
  console.log(JSON.stringify({ size, change: 'one pod relabelled (cold: base read from the store)', publishMs: Math.round(cold.ms), overFullPut: +(cold.ms / full.ms).toFixed(2), warm: cold.json.warm, storeItems: cold.items, storeKiB: kib(cold.bytes) }));

  await local?.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
