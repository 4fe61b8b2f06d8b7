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

/** Lets reads under way answer. */
const settle = () => new Promise((r) => setTimeout(r, 0));

/** The store, with reads of the pointer answered (as read when asked) only when released, in order. */
function gated(store: SnapshotStore) {
  const held: Array<() => void> = [];
  const gate: SnapshotStore = {
    ...store,
    latest: (c) => {
      const answer = store.latest(c);
      return new Promise<void>((r) => held.push(r)).then(() => answer);
    },
  };
  return { store: gate, release: () => held.shift()!(), held };
}

/**
 * A memory store read through `view` (counted or gated), a PollIndex over that view with a clock
 * the test sets, and `put`: a PUT through an app on the store itself, as another process writes.
 */
function pollsOver<V extends { store: SnapshotStore }>(view: (store: SnapshotStore) => V) {
  const shared = createMemoryStore();
  const seen = view(shared);
  const clock = { now: 0 };
  const polls = new PollIndex(seen.store, { ttlMs: 1000, now: () => clock.now });
  const writer = createApp({ store: shared, access: { kind: 'anonymous' } });
  const put = (rv: string, body: unknown) => writer.request(`/v1/clusters/prod/snapshots/${rv}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { ...seen, clock, polls, put };
}

describe('PollIndex', () => {
  it('reads the pointer once per moment and a manifest once per version, however many poll', async () => {
    const { reads, clock, polls, put } = pollsOver(counted);
    expect((await put('1', cluster)).status).toBe(201);

    const poll = async () => {
      const latest = await polls.latest('prod');
      return (await polls.nodeTables('prod', latest!.version, 'node-1', latest))!;
    };
    const first = await Promise.all(Array.from({ length: 100 }, poll));
    expect(new Set(first.map((t) => t.hash)).size).toBe(1);
    expect(reads).toMatchObject({ latest: 1, nodeTables: 1 });

    // Another process publishes version 2: unseen for at most ttlMs, then seen once the read
    // that replaces the pointer answers (polls meanwhile get the pointer read before).
    expect((await put('2', relabelled)).status).toBe(201);
    clock.now = 999;
    expect((await poll()).version).toBe('1');
    clock.now = 1000;
    expect((await poll()).version).toBe('1');
    await settle();
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
    const { reads, clock, polls, put } = pollsOver(counted);
    await put('1', cluster);
    await polls.nodeTables('prod', '1', 'node-1', null);
    await polls.nodeTables('prod', '1', 'node-1', null);
    expect(reads.nodeTables).toBe(1);
    clock.now = 1000;
    await polls.nodeTables('prod', '1', 'node-1', null);
    expect(reads.nodeTables).toBe(2);
  });

  it('serves the pointer read before while a newer one is read, for at most 2 × ttlMs; a write through this process is never hidden by a read started before it', async () => {
    const { release, held, clock, polls, put } = pollsOver(gated);
    expect((await put('1', cluster)).status).toBe(201);
    const first = polls.latest('prod');
    release();
    expect((await first)!.version).toBe('1');

    // Past ttlMs: version 1 answered at once while the read of the pointer is held.
    expect((await put('2', relabelled)).status).toBe(201);
    clock.now = 1500;
    expect((await polls.latest('prod'))!.version).toBe('1');
    expect((await polls.latest('prod'))!.version).toBe('1');
    expect(held.length).toBe(1);
    // A write through this process while that read is under way: forgotten, and the read started
    // before the write does not come back as the pointer.
    expect((await put('3', cluster)).status).toBe(201);
    polls.forget('prod');
    const afterWrite = polls.latest('prod');
    release(); // the read started before the write
    release(); // the read after it
    expect((await afterWrite)!.version).toBe('3');
    await settle();
    expect((await polls.latest('prod'))!.version).toBe('3');

    // At 2 × ttlMs without an answer, polls wait for the read.
    clock.now = 3100;
    expect((await polls.latest('prod'))!.version).toBe('3'); // stale, a read starts
    clock.now = 3600;
    let answered = false;
    const waiting = polls.latest('prod').then((l) => ((answered = true), l));
    await settle();
    expect(answered).toBe(false);
    release(); // the read started at 3,100 ms
    release(); // the one this poll waits for
    expect((await waiting)!.version).toBe('3');
  });

  it('a failed read under way leaves the pointer read before for the next poll to try again', async () => {
    const { reads, clock, polls, put } = pollsOver(counted);
    await put('1', cluster);
    expect((await polls.latest('prod'))!.version).toBe('1');
    clock.now = 1200;
    reads.fail = true;
    expect((await polls.latest('prod'))!.version).toBe('1');
    await settle();
    expect((await polls.latest('prod'))!.version).toBe('1');
    expect(reads.latest).toBe(3);
    // Past 2 × ttlMs the failure reaches the poll.
    clock.now = 2100;
    await expect(polls.latest('prod')).rejects.toThrow('store down');
    reads.fail = false;
    expect((await polls.latest('prod'))!.version).toBe('1');
  });
});
