// Node polls answered from memory: one store read of the pointer per moment however many poll,
// manifests kept while their version is the one read, writes through this process seen at
// once, writes elsewhere within the stated time, failed reads never kept.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { PollIndex } from '../../functions/poll-index.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import type { SnapshotStore } from '../../infra/store/types.js';

const ROOT = join(import.meta.dirname, '..', '..');
const cluster = JSON.parse(readFileSync(join(ROOT, 'examples', 'cluster.json'), 'utf8')) as { items: { kind: string; metadata: { name: string; labels?: Record<string, string> } }[] };
const relabelled = structuredClone(cluster);
relabelled.items.find((o) => o.metadata.name === 'web')!.metadata.labels = { app: 'web2' };

/** The store, counting reads of the pointer and of node manifests; `fail` makes the next reads throw. */
function counted(store: SnapshotStore) {
  const reads = { latest: 0, nodeTables: 0, fail: false };
  const counting: SnapshotStore = {
    ...store,
    latest: (c) => (reads.latest++, reads.fail ? Promise.reject(new Error('store down')) : store.latest(c)),
    getNodeTables: (c, v, n) => (reads.nodeTables++, reads.fail ? Promise.reject(new Error('store down')) : store.getNodeTables(c, v, n)),
  };
  return { store: counting, reads };
}

describe('PollIndex', () => {
  it('reads the pointer once per moment and a manifest once per version, however many poll', async () => {
    const shared = createMemoryStore();
    const { store, reads } = counted(shared);
    let now = 0;
    const polls = new PollIndex(store, { ttlMs: 1000, now: () => now });
    const writer = createApp({ store: shared, access: { kind: 'anonymous' } });
    const put = (rv: string, body: unknown) => writer.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put('1', cluster)).status).toBe(201);

    const poll = async () => {
      const latest = await polls.latest('prod');
      return (await polls.nodeTables('prod', latest!.version, 'node-1', latest))!;
    };
    const first = await Promise.all(Array.from({ length: 100 }, poll));
    expect(new Set(first.map((t) => t.hash)).size).toBe(1);
    expect(reads).toMatchObject({ latest: 1, nodeTables: 1 });

    // Another process publishes version 2: unseen for at most ttlMs, then seen.
    expect((await put('2', relabelled)).status).toBe(201);
    now = 999;
    expect((await poll()).version).toBe('1');
    now = 1000;
    expect((await poll()).version).toBe('2');
    expect(reads).toMatchObject({ latest: 2, nodeTables: 2 });

    // A write through this process is seen at once.
    expect((await put('3', cluster)).status).toBe(201);
    polls.forget('prod');
    expect((await poll()).version).toBe('3');

    // A failed read answers its caller with the error and is not kept.
    polls.forget('prod');
    reads.fail = true;
    await expect(poll()).rejects.toThrow('store down');
    reads.fail = false;
    expect((await poll()).version).toBe('3');
  });

  it('an explicit version is read again after ttlMs (it may have been deleted and published again elsewhere)', async () => {
    const shared = createMemoryStore();
    const { store, reads } = counted(shared);
    let now = 0;
    const polls = new PollIndex(store, { ttlMs: 1000, now: () => now });
    await createApp({ store: shared, access: { kind: 'anonymous' } }).request('/v1/clusters/prod/snapshots/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cluster) });
    await polls.nodeTables('prod', '1', 'node-1', null);
    await polls.nodeTables('prod', '1', 'node-1', null);
    expect(reads.nodeTables).toBe(1);
    now = 1000;
    await polls.nodeTables('prod', '1', 'node-1', null);
    expect(reads.nodeTables).toBe(2);
  });
});
