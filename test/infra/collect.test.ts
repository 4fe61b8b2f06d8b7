// Collection of unreferenced content (collect.ts) against dynalite and the memory backend:
// storage follows the live versions, every live version still reads back, and a publish that
// relies on content while a collection runs keeps it.
import { describe, expect, it } from 'vitest';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { IdRecord } from '../../core/sets/id-record.js';
import { contentId } from '../../core/sets/ids.js';
import type { Item, ItemBackend } from '../../infra/store/backend.js';
import { HEAD_SK, readBlobs } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { decodeStoredManifest } from '../../infra/store/manifest-patch.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { compiledState, nextVersion } from '../../core/sets/next-version.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { KNOWN_MAX_AGE_SECONDS, MIN_GRACE_SECONDS, REFRESH_AGE_SECONDS, WRITTEN_AT } from '../../infra/store/content-age.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { storeContext } from '../../infra/store/context.js';
import { headerKey } from '../../infra/store/keys.js';
import { versionNeeds } from '../../infra/store/needed.js';
import { StoreInputError, type CompiledSnapshot } from '../../infra/store/types.js';
import { CONTENT, contentHeads, expectAllReadBack, liveContent, scanned } from './collect-support.js';
import { compiledSnapshotOf, realAndMemoryBackends, syntheticSnapshot, tableOf } from './support.js';

const backends = realAndMemoryBackends();
const RETENTION = 60;
const T0 = Date.parse('2026-06-01T00:00:00Z');
let clusters = 0;

/** A small snapshot with one pod more than the base: its own table, its node's manifest new. */
function onePod(i: number): CompiledSnapshot {
  const base = syntheticSnapshot({ nodes: 4, podsPerNode: 2, variant: 0, hash: `one-pod-${i}` });
  const table = tableOf([5000 + i]);
  const tid = contentId('r', JSON.stringify(table), portableSha256Hex);
  const name = `node-${i % 4}`;
  const n = base.ir.nodes[name]!;
  const egress = Object.values(n.pods)[0]!.egress;
  const nodes = { ...base.ir.nodes, [name]: { ...n, pods: { ...n.pods, [`ns/extra-${i}`]: { ips: [`10.9.${i >> 8}.${i & 255}`], ingress: tid, egress } }, tables: [...n.tables, tid].sort() } };
  return { ...base, ir: { ...base.ir, tables: IdRecord.of([...base.ir.tables.entries(), [tid, table]]), nodes } };
}

/** Snapshots of 30 nodes (more content items than a publish writes without reading), their variants distinct per test. */
const bigOf = (test: number) => (v: number) => syntheticSnapshot({ nodes: 30, podsPerNode: 3, variant: 1000 * test + v, hash: `big-${test}-${v}` });

/** An ItemBackend whose calls pass through; the calls `when` matches wait for a hook, run once at the first of them. */
function hooked(inner: ItemBackend, when: (method: string, arg: unknown) => boolean, hook: () => Promise<void>): ItemBackend {
  let gate: Promise<void> | null = null;
  return new Proxy(inner, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (when(String(key), args[0])) await (gate ??= hook());
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe.each(Object.keys(backends))('%s store', (kind) => {
  it('after 100 one-pod versions, collect leaves exactly the content the live versions read, and they read back', async () => {
    const backend = backends[kind]!();
    const clock = { now: T0 };
    const store = createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now });
    const cluster = `${kind}-gc${++clusters}`;
    for (let i = 0; i < 96; i++) {
      await store.publish(cluster, String(i + 1), onePod(i));
      clock.now += 1000;
    }
    // A day later, four more: all but these (and the one they passed, within retention) have expired.
    clock.now += 24 * 3600 * 1000;
    for (let i = 96; i < 100; i++) {
      await store.publish(cluster, String(i + 1), onePod(i));
      clock.now += 1000;
    }
    const before = await contentHeads(backend);
    const live = await liveContent(backend, clock.now);
    const result = await createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now }).collect();
    const after = await contentHeads(backend);
    console.log(`${kind}: content items before ${before.size}, after ${after.size} (${result.versions} live versions; ${JSON.stringify(result)})`);
    expect(result.versions).toBe(5);
    expect([...after].sort()).toEqual([...live].sort());
    expect(result).toMatchObject({ scanned: before.size, deleted: before.size - after.size, keptYoung: 0, raced: 0 });
    expect(result.bytesFreed).toBeGreaterThan(0);
    // Proportional to live versions: 100 versions' tables and manifests down to 5 versions'.
    expect(before.size).toBeGreaterThan(200);
    expect(after.size).toBeLessThan(40);
    // No chunk of a deleted item is left.
    expect((await scanned(backend, CONTENT)).filter((i) => !after.has(i.pk))).toEqual([]);
    expect(await expectAllReadBack(backend, clock.now, cluster)).toBe(5);
    // The publisher goes on (its cache of what is stored is stale by now).
    await store.publish(cluster, '101', onePod(3));
    expect(await expectAllReadBack(backend, clock.now, cluster)).toBe(6);
    // A second run finds nothing more.
    expect((await createSnapshotStore(backend, { now: () => clock.now }).collect()).deleted).toBe(0);
  }, 120_000);

  /**
   * Version 1 stored, passed and deleted, the clock past the grace, then version 3 with version
   * 1's content again (what this process knew is stale, so it reads, finds it stored and old),
   * its backend running `hook` (a collection) at the first call `when` matches.
   */
  async function raceWithCollection(when: (method: string, arg: unknown) => boolean, hook: (collector: ReturnType<typeof createSnapshotStore>) => Promise<void>) {
    const inner = backends[kind]!();
    const clock = { now: T0 };
    const cluster = `${kind}-race${++clusters}`;
    const collector = createSnapshotStore(inner, { retentionSeconds: RETENTION, now: () => clock.now });
    const store = createSnapshotStore(hooked(inner, when, () => hook(collector)), { retentionSeconds: RETENTION, now: () => clock.now });
    // More than 25 content items, so the publish reads what is stored.
    const big = bigOf(clusters);
    await store.publish(cluster, '1', big(1));
    await store.publish(cluster, '2', big(2));
    await store.deleteVersion(cluster, '1');
    clock.now += 2 * MIN_GRACE_SECONDS * 1000;
    await store.publish(cluster, '3', big(1));
    return expectAllReadBack(inner, clock.now, cluster);
  }

  it('a publish relying on stored content while a collection deletes it: the refresh loses to the delete and writes it again', async () => {
    let collected = 0;
    // The collection runs between the publish's existence read and its refresh of the old stamps.
    const readBack = await raceWithCollection((method, key) => method === 'updateIfExists' && /^[teklgo]#/.test((key as Item).pk), async (collector) => {
      collected = (await collector.collect()).deleted;
    });
    // Version 1's own content (the pack holding its 2 egress tables and its set body, the pack index, 30 manifests) was deleted under the publish, and written again.
    expect(collected).toBe(32);
    expect(readBack).toBe(2);
  }, 60_000);

  it('a publish relying on stored content it stamps again: a collection just before its header keeps it', async () => {
    let keptYoung = 0;
    const readBack = await raceWithCollection((method, item) => method === 'putIfAbsent' && (item as Item).pk.startsWith('c#') && (item as Item).sk.startsWith('v#') && (item as Item).version === '3', async (collector) => {
      keptYoung = (await collector.collect()).keptYoung;
    });
    // Version 1's content, unreferenced when the collection marked (3's header not yet written), was kept as young.
    expect(keptYoung).toBeGreaterThan(25);
    expect(readBack).toBe(2);
  }, 60_000);

  it('what a process knows stored is trusted only for KNOWN_MAX_AGE: later it is checked and stamped again', async () => {
    const backend = backends[kind]!();
    const clock = { now: T0 };
    const cluster = `${kind}-known${++clusters}`;
    const store = createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now });
    const big = bigOf(clusters);
    await store.publish(cluster, '1', big(1));
    const needs = (await versionNeeds(storeContext(backend, { now: () => clock.now }), cluster, '1', (await backend.getItem(headerKey(cluster, '1')))!)).shared;
    const stamps = async () => new Set((await scanned(backend, CONTENT, HEAD_SK)).filter((i) => needs.has(i.pk)).map((i) => i[WRITTEN_AT]));
    const first = await stamps();
    clock.now += (KNOWN_MAX_AGE_SECONDS - 1) * 1000;
    await store.publish(cluster, '2', big(1)); // known: nothing read, nothing stamped
    expect(await stamps()).toEqual(first);
    clock.now += 3600 * 1000;
    await store.publish(cluster, '3', big(1));
    expect([...(await stamps())].every((at) => Number(at) >= clock.now / 1000 - REFRESH_AGE_SECONDS)).toBe(true);
  }, 60_000);

  it('refuses a grace shorter than the publish rules allow for', async () => {
    const store = createSnapshotStore(backends[kind]!());
    await expect(store.collect({ graceSeconds: MIN_GRACE_SECONDS - 1 })).rejects.toBeInstanceOf(StoreInputError);
  });

  it('scanPage pages through the table by prefix in small pages (some empty); deleteIf applies only when its condition holds', async () => {
    const backend = backends[kind]!();
    const tag = `z${++clusters}`;
    const items: Item[] = Array.from({ length: 30 }, (_, i) => ({ pk: `${i % 3 === 0 ? 'q' : 'w'}#${tag}-${i}`, sk: i % 2 === 0 ? '0' : '1', n: i }));
    await backend.putItems(items);
    let pages = 0;
    let empty = 0;
    const seen: Item[] = [];
    let startAfter = null;
    do {
      const page = await backend.scanPage({ pkPrefixes: [`q#${tag}`], limit: 3, startAfter, attributes: ['n'] });
      pages++;
      if (page.items.length === 0 && page.last) empty++;
      seen.push(...page.items);
      startAfter = page.last;
    } while (startAfter !== null);
    expect(seen.map((i) => i.n).sort((a, b) => Number(a) - Number(b))).toEqual(items.filter((i) => i.pk.startsWith('q#')).map((i) => i.n));
    expect(pages).toBeGreaterThan(3);
    expect(empty).toBeGreaterThan(0);
    const heads = await scanned(backend, [`w#${tag}`, `q#${tag}`], '0');
    expect(heads.length).toBe(15);
    const key = { pk: items[4]!.pk, sk: items[4]!.sk };
    expect(await backend.deleteIf(key, { attribute: 'n', absentOrBelow: 4 })).toBeNull();
    expect(await backend.getItem(key)).not.toBeNull();
    expect(await backend.deleteIf(key, { attribute: 'n', absentOrBelow: 5 })).toMatchObject({ ...key, n: 4 });
    expect(await backend.getItem(key)).toBeNull();
    expect(await backend.deleteIf(key)).toBeNull();
  });
});

describe('a stream of versions from changes', () => {
  it('stays incremental past KNOWN_MAX_AGE (each version re-anchors the next), with collections between, and every version reads back', async () => {
    // The memory backend alone: what is asserted is the publish's path, not the backend's.
    const parsed = (items: readonly unknown[]) => {
      const p = parseSnapshot({ items });
      if (!p.ok) throw new Error(JSON.stringify(p.issues));
      return p.snapshot;
    };
    const pod = (ip: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p1', namespace: 'a', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } });
    const items = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } },
      ...Array.from({ length: 40 }, (_, i) => ({ ...pod(`10.0.0.${10 + i}`), metadata: { name: `q${i}`, namespace: 'a', labels: { app: i % 2 ? 'web' : 'db' } } })),
      pod('10.0.1.1'),
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'a' }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] } },
    ];
    const backend = new MemoryBackend();
    const manifests = () => new Set(backend.dump().filter((i) => i.pk.startsWith('g#') && i.sk === HEAD_SK).map((i) => i.pk));
    const clock = { now: T0 };
    const store = createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now });
    let state = compiledState(parsed(items)).state;
    await store.publish('stream', '1', compiledSnapshotOf(state));
    let patches = 0;
    for (let v = 2; v <= 14; v++) {
      clock.now += 5 * 60 * 1000; // a change every 5 minutes: an hour in all, KNOWN_MAX_AGE is 10
      const next = nextVersion(state, { apply: parsed([pod(`10.0.1.${v}`)]), delete: [] });
      if (!next.ok) throw new Error('change refused');
      const before = manifests();
      await store.publish('stream', String(v), compiledSnapshotOf(next.state, next.change));
      // From the version before: the node's new manifest is a patch on its manifest there (a
      // whole publish, which checks everything again, stores it whole).
      const made = [...manifests()].filter((pk) => !before.has(pk));
      for (const blob of (await readBlobs({ backend, compression: streamCompression }, made)).complete.values()) if ('patch' in decodeStoredManifest(blob.bytes)) patches++;
      state = next.state;
      if (v % 4 === 0) await store.collect({ graceSeconds: MIN_GRACE_SECONDS });
    }
    // 13 versions from changes; a chain of patches is MAX_CHAIN (8) long, then one is whole.
    expect(patches).toBeGreaterThanOrEqual(11);
    expect(await expectAllReadBack(backend, clock.now, 'stream')).toBeGreaterThan(0);
  }, 60_000);
});
