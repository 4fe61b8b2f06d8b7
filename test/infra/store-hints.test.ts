// What a process remembers of its own writes (infra/store/hints.ts) is a guess the store checks:
// writers taking turns over one table move the pointer from stale guesses, conditions are
// judged on the pointer as it is, and a version stored again by another writer is retired from
// the table, not from the keys this process once wrote for it. Real dynalite and memory.
import { describe, expect, it } from 'vitest';
import { TTL_ATTRIBUTE } from '../../infra/store/backend.js';
import { nodesPk, objectsPk } from '../../infra/store/keys.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { LatestConditionError } from '../../infra/store/types.js';
import { realAndMemoryBackends, syntheticSnapshot } from './support.js';

const backends = realAndMemoryBackends();
const snap = (variant: number) => syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant });
const RETENTION = 3600;

let clusters = 0;
describe.each(Object.keys(backends))('%s store: guesses from this process', (kind) => {
  const kit = () => {
    const clock = { now: Date.parse('2026-06-01T00:00:00Z') };
    const backend = backends[kind]!();
    const open = () => createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now });
    return { backend, clock, a: open(), b: open(), cluster: `${kind}-hints-${++clusters}` };
  };

  it('two writers taking turns move the pointer from stale guesses; a condition is judged on the pointer as it is', async () => {
    const { a, b, cluster } = kit();
    await a.publish(cluster, '1', snap(1));
    await b.publish(cluster, '2', snap(2));
    // a last saw 1 as latest: If-Match "2" holds on the table, not on that guess.
    expect(await a.publish(cluster, '3', snap(3), { conditions: { ifMatch: ['2'] } })).toMatchObject({ status: 'created', latest: true });
    await expect(b.publish(cluster, '4', snap(4), { conditions: { ifMatch: ['2'] } })).rejects.toBeInstanceOf(LatestConditionError);
    expect(await b.publish(cluster, '5', snap(5))).toMatchObject({ latest: true });
    expect(await a.publish(cluster, '6', snap(6))).toMatchObject({ latest: true });
    expect(await a.latestVersion(cluster)).toBe('6');
    for (const v of ['1', '2', '3', '4', '5']) expect((await b.getHeader(cluster, v))?.expiresAt, v).not.toBeNull();
    expect((await b.getHeader(cluster, '6'))?.expiresAt).toBeNull();
  });

  it('a version stored again by another writer after it expired is retired from the table, not from the keys once written for it', async () => {
    const { backend, clock, a, b, cluster } = kit();
    await a.publish(cluster, '1', snap(1));
    await b.publish(cluster, '2', snap(2));
    clock.now += 2 * RETENTION * 1000;
    // 1 has expired: b stores other content under the same version and makes it latest.
    const again = snap(11);
    expect(await b.publish(cluster, '1', again)).toMatchObject({ status: 'created', latest: true });
    // a still holds the keys of the first 1; retiring the second 1 must reach its own items.
    await a.publish(cluster, '3', snap(3));
    const expiry = (await b.getHeader(cluster, '1'))?.expiresAt;
    expect(expiry).not.toBeNull();
    for (const pk of [nodesPk(cluster, '1', again.snapshotHash), objectsPk(cluster, '1', again.snapshotHash)]) {
      expect((await backend.getItem({ pk, sk: '0' }))?.[TTL_ATTRIBUTE], pk).toBeTypeOf('number');
    }
  });
});
