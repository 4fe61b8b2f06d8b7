// A publish that answers once its version is latest and settles the pointer move after
// (PublishOptions.settleLater, infra/store/after-answer.ts): once settled, the store is exactly
// what settling before the answer leaves; a process that stops right after answering leaves
// what the next publish (of any process) finishes. Real dynalite and memory.
import { describe, expect, it } from 'vitest';
import type { ItemBackend } from '../../infra/store/backend.js';
import { clusterPk, ORDER_SK_PREFIX, pointerKey } from '../../infra/store/keys.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import type { SnapshotStore } from '../../infra/store/types.js';
import { realAndMemoryBackends, syntheticSnapshot } from './support.js';

const backends = realAndMemoryBackends();
const snap = (variant: number) => syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant });
const clock = { now: Date.parse('2026-06-01T00:00:00Z') };
const open = (backend: ItemBackend) => createSnapshotStore(backend, { retentionSeconds: 3600, now: () => clock.now });

/** What readers and the next move see of a cluster: latest, listing, every version's summary, the pointer and the order items; the cluster's name left out. */
async function observed(store: SnapshotStore, backend: ItemBackend, cluster: string, versions: readonly string[]): Promise<string> {
  const listing = await store.listVersions(cluster, { limit: 100 });
  const summaries = await Promise.all(versions.map((v) => store.getSummary(cluster, v)));
  const { pk: _pk, ...pointer } = (await backend.getItem(pointerKey(cluster)))!;
  const orders = (await backend.queryPage(clusterPk(cluster), { skPrefix: ORDER_SK_PREFIX, limit: 100, descending: false })).items.map(({ pk: _p, ...rest }) => rest);
  return JSON.stringify({ latest: await store.latestVersion(cluster), listing, summaries, pointer, orders }).replaceAll(cluster, 'CLUSTER');
}

/** Writes that never answer once `armed` (a process stopped): reads still go through. */
function stoppable(backend: ItemBackend): { backend: ItemBackend; stop: () => void } {
  const writes = new Set(['putItems', 'putIfAbsent', 'putIfUnchanged', 'updateIfExists', 'removeIfExists', 'deleteIf']);
  let stopped = false;
  const wrapped = new Proxy(backend, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (stopped && writes.has(String(key)) ? new Promise(() => undefined) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { backend: wrapped, stop: () => (stopped = true) };
}

let clusters = 0;
describe.each(Object.keys(backends))('%s store: settling after the answer', (kind) => {
  it('answers latest at once, and once settled leaves what settling first leaves: expiries, listing, order items, a settled pointer', async () => {
    const backend = backends[kind]!();
    const [first, later] = [`${kind}-settle-${++clusters}`, `${kind}-settle-${++clusters}`];
    const versions = ['1', '2', 'a-sha', '3', '2'];
    const [a, b] = [open(backend), open(backend)];
    for (const [i, v] of versions.entries()) await a.publish(first, v, snap(i === 4 ? 1 : i));
    // Not waited for between publishes: each move waits for this process's previous settling.
    const answers = [];
    for (const [i, v] of versions.entries()) answers.push(await b.publish(later, v, snap(i === 4 ? 1 : i), { settleLater: true }));
    expect(answers.map((r) => [r.status, r.latest])).toEqual([['created', true], ['created', true], ['created', true], ['created', true], ['unchanged', false]]);
    await b.settled();
    const unique = [...new Set(versions)];
    expect(await observed(b, backend, later, unique)).toBe(await observed(a, backend, first, unique));
    const pointer = await backend.getItem(pointerKey(later));
    expect(pointer).toMatchObject({ version: '3', settled: true, retire: '[]' });
  });

  it('a process stopped right after answering: readers already see the version as latest, and the next publish of another process finishes the move', async () => {
    const backend = backends[kind]!();
    const cluster = `${kind}-settle-${++clusters}`;
    const reference = `${kind}-settle-${++clusters}`;
    const gate = stoppable(backend);
    const dying = open(gate.backend);
    await dying.publish(cluster, '1', snap(1));
    const answer = await dying.publish(cluster, '2', snap(2), { settleLater: true });
    gate.stop();
    expect(answer).toMatchObject({ status: 'created', latest: true });
    const other = open(backend);
    // Stopped before its last write: the move is not marked settled.
    await new Promise((r) => setTimeout(r, 50));
    expect((await backend.getItem(pointerKey(cluster)))?.settled).toBeUndefined();
    expect(await other.latestVersion(cluster)).toBe('2');
    expect((await other.listVersions(cluster, { limit: 10 })).versions.map((v) => v.version)).toEqual(['2', '1']);
    // Whether the stopped settling wrote some of its items before the stop or none, the next move ends the same.
    expect(await other.publish(cluster, '3', snap(3))).toMatchObject({ status: 'created', latest: true });
    for (const [i, v] of ['1', '2', '3'].entries()) await other.publish(reference, v, snap(i + 1));
    expect(await observed(other, backend, cluster, ['1', '2', '3'])).toBe(await observed(other, backend, reference, ['1', '2', '3']));
  });

  it('a failed settling is reported, and the next publish finishes it', async () => {
    const backend = backends[kind]!();
    const cluster = `${kind}-settle-${++clusters}`;
    const reported: unknown[] = [];
    let failing = false;
    const flaky = new Proxy(backend, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => (failing && key === 'updateIfExists' ? Promise.reject(new Error('throttled')) : (value as (...a: unknown[]) => unknown).apply(target, args));
      },
    });
    const store = createSnapshotStore(flaky, { retentionSeconds: 3600, now: () => clock.now, reportError: (e) => reported.push(e) });
    await store.publish(cluster, '1', snap(1));
    await store.publish(cluster, '2', snap(2), { settleLater: true });
    await store.settled();
    failing = true;
    await store.publish(cluster, '3', snap(3), { settleLater: true });
    await store.settled();
    expect(reported.map((e) => (e as Error).message)).toEqual(['throttled']);
    failing = false;
    await store.publish(cluster, '4', snap(4));
    expect(await backend.getItem(pointerKey(cluster))).toMatchObject({ version: '4', settled: true, retire: '[]' });
    for (const v of ['1', '2', '3']) expect((await store.getSummary(cluster, v))?.expiresAt, v).not.toBeNull();
    expect((await store.getSummary(cluster, '4'))?.expiresAt).toBeNull();
  });
});
