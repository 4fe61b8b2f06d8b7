// A server's publish answers once latest has moved (afterMove) and finishes the rest — the order
// item, the replaced version's expiry — after. Whether that work runs at once, late, or never
// (a stop in between), latest, the listing and every version's readability are right, and the
// next publish finishes what was left.
import { describe, expect, it } from 'vitest';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { syntheticSnapshot } from './support.js';

const snap = (variant: number) => syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant });

function laterStore() {
  // The work is held until the test runs it.
  const pending: (() => Promise<void>)[] = [];
  const store = createSnapshotStore(new MemoryBackend(), { afterMove: (work) => void pending.push(work) });
  const runPending = () => Promise.all(pending.splice(0).map((w) => w()));
  return { store, pending, runPending };
}

describe('publishes that settle after answering', () => {
  it('latest and the listing are right before the settle runs; the replaced version expires once it has', async () => {
    const { store, pending, runPending } = laterStore();
    await store.publish('c', '1', snap(1));
    await store.publish('c', '2', snap(2));
    // Version 1's settle has not run either: version 2's move carried its order item along.
    expect((await store.latest('c'))?.version).toBe('2');
    const before = (await store.listVersions('c')).versions;
    expect(before.map((v) => v.version)).toEqual(['2', '1']);
    // The publish answered before version 1's expiry was set: that work is still to run.
    expect(pending).toHaveLength(2);
    expect(before[1]!.expiresAt).toBeNull();
    expect(await store.getNodeTables('c', '1', 'node-1')).not.toBeNull();
    await runPending();
    const [v2, v1] = (await store.listVersions('c')).versions;
    expect(v2!.expiresAt).toBeNull();
    expect(v1!.expiresAt).not.toBeNull();
  });

  it('settles that never ran (a stop after each move) are finished by the next publish', async () => {
    const backend = new MemoryBackend();
    const lost = createSnapshotStore(backend, { afterMove: () => undefined });
    for (const v of ['1', '2', '3']) await lost.publish('c', v, snap(Number(v)));
    expect((await lost.listVersions('c')).versions.map((v) => v.version)).toEqual(['3', '2', '1']);
    const waits = createSnapshotStore(backend);
    await waits.publish('c', '4', snap(4));
    const listing = (await waits.listVersions('c')).versions;
    expect(listing.map((v) => v.version)).toEqual(['4', '3', '2', '1']);
    expect(listing.map((v) => v.expiresAt === null)).toEqual([true, false, false, false]);
  });
});
