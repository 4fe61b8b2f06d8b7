// Publish order against a real in-process dynalite and the memory backend: latest is the version
// published last, whatever the versions are; the listing follows the pointer's moves; conditions
// hold at the move itself; rollback and delete; clusters stored by the layout that compared versions.
import { describe, expect, it } from 'vitest';
import { TTL_ATTRIBUTE, type ItemBackend } from '../../infra/store/backend.js';
import { headerItem } from '../../infra/store/header.js';
import { headerKey, manifestShardPk, nodesPk, objectsPk, pointerKey, versionKey } from '../../infra/store/keys.js';
import { storeContext } from '../../infra/store/context.js';
import { reconcile } from '../../infra/store/lifecycle.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { LatestConditionError, VersionIncompleteError, VersionIsLatestError, type SnapshotStore } from '../../infra/store/types.js';
import { realAndMemoryBackends, syntheticSnapshot } from './support.js';

const clock = { now: Date.parse('2026-06-01T00:00:00Z') };
const backends = realAndMemoryBackends();
const snap = (variant: number) => syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant });
const listed = async (store: SnapshotStore, cluster: string, limit = 100): Promise<string[]> => {
  const out: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await store.listVersions(cluster, { limit, cursor });
    out.push(...page.versions.map((v) => v.version));
    cursor = page.cursor;
  } while (cursor);
  return out;
};

let clusters = 0;
describe.each(Object.keys(backends))('%s store: publish order', (kind) => {
  const kit = (wrap?: (b: ItemBackend) => ItemBackend) => {
    const backend = backends[kind]!();
    const store = createSnapshotStore(wrap ? wrap(backend) : backend, { retentionSeconds: 3600, now: () => clock.now });
    return { backend, store, plain: createSnapshotStore(backend, { retentionSeconds: 3600, now: () => clock.now }), cluster: `${kind}-order-${++clusters}` };
  };

  it('makes every published version latest in turn: 10, a SHA, 11, 9; the listing is that order reversed', async () => {
    const { store, cluster } = kit();
    const order = ['10', 'abc123', '11', '9'];
    for (const [i, v] of order.entries()) {
      const res = await store.publish(cluster, v, snap(i));
      expect(res).toMatchObject({ status: 'created', latest: true, header: { expiresAt: null } });
      expect((await store.latest(cluster))?.version).toBe(v);
    }
    expect(await listed(store, cluster)).toEqual(['9', '11', 'abc123', '10']);
    expect(await listed(store, cluster, 1)).toEqual(['9', '11', 'abc123', '10']);
    for (const v of ['10', 'abc123', '11']) expect((await store.getHeader(cluster, v))?.expiresAt).not.toBeNull();
  });

  it('a retry of a version the pointer has passed is unchanged and not latest; the pointer stays', async () => {
    const { store, cluster } = kit();
    await store.publish(cluster, '1', snap(1));
    await store.publish(cluster, '2', snap(2));
    expect(await store.publish(cluster, '1', snap(1))).toMatchObject({ status: 'unchanged', latest: false });
    expect((await store.latest(cluster))?.version).toBe('2');
    expect(await listed(store, cluster)).toEqual(['2', '1']);
  });

  it('conditions: If-Match, If-None-Match and numeric order hold at the move, and a refused version is stored, not latest', async () => {
    const { store, cluster } = kit();
    await store.publish(cluster, '5', snap(5), { conditions: { ifNoneMatch: '*' } });
    const refused = await store.publish(cluster, '6', snap(6), { conditions: { ifNoneMatch: '*' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LatestConditionError);
    expect(refused).toMatchObject({ unmet: 'if-none-match', latest: '5', stored: true });
    expect((await store.getHeader(cluster, '6'))?.expiresAt).not.toBeNull();
    expect((await store.publish(cluster, '7', snap(7), { conditions: { ifMatch: ['5'] } })).latest).toBe(true);
    await expect(store.publish(cluster, '4', snap(4), { conditions: { numeric: true } })).rejects.toMatchObject({ unmet: 'numeric', latest: '7' });
    // A refused version published again once its condition holds: made latest, its expiry removed.
    const retried = await store.publish(cluster, '6', snap(6), { conditions: { ifMatch: '*' } });
    expect(retried).toMatchObject({ status: 'unchanged', latest: true, header: { expiresAt: null } });
    expect(await listed(store, cluster)).toEqual(['6', '7', '5']);
  });

  it('checks the condition again at the pointer swap: a version published between the check and the swap wins, and this one is refused', async () => {
    let other: SnapshotStore | null = null;
    const { store, plain, cluster } = kit((b) => {
      let armed = true;
      const wrapped: ItemBackend = Object.create(b) as ItemBackend;
      // Just before the pointer write, another writer publishes version 8.
      wrapped.putIfUnchanged = async (item, expect) => {
        if (armed && item.sk === pointerKey(cluster).sk && item.version === '9') [armed] = [false, await other!.publish(cluster, '8', snap(8))];
        return b.putIfUnchanged(item, expect);
      };
      return wrapped;
    });
    other = plain;
    await plain.publish(cluster, '7', snap(7));
    const err = await store.publish(cluster, '9', snap(9), { conditions: { ifMatch: ['7'] } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LatestConditionError);
    expect(err).toMatchObject({ unmet: 'if-match', latest: '8', stored: true });
    expect((await plain.latest(cluster))?.version).toBe('8');
    expect((await plain.getHeader(cluster, '9'))?.expiresAt).not.toBeNull();
    expect(await listed(plain, cluster)).toEqual(['8', '7']);
  });

  it('a publish that waited at the swap while another writer made its version latest and moved on leaves latest where it is', async () => {
    let plainStore: SnapshotStore | null = null;
    const { store, plain, cluster } = kit((b) => {
      let armed = true;
      const wrapped: ItemBackend = Object.create(b) as ItemBackend;
      wrapped.putIfUnchanged = async (item, expect) => {
        if (armed && item.sk === pointerKey(cluster).sk) {
          armed = false;
          await plainStore!.publish(cluster, '5', snap(5)); // the same version, retried by another writer: it moves the pointer
          await plainStore!.publish(cluster, '6', snap(6));
        }
        return b.putIfUnchanged(item, expect);
      };
      return wrapped;
    });
    plainStore = plain;
    await plain.publish(cluster, '4', snap(4));
    expect(await store.publish(cluster, '5', snap(5))).toMatchObject({ status: 'created', latest: false });
    expect((await plain.latest(cluster))?.version).toBe('6');
    expect(await listed(plain, cluster)).toEqual(['6', '5', '4']);
  });

  it('rolls back to a passed version: its expiry removed, the replaced version expires; no version listed twice', async () => {
    const { backend, store, cluster } = kit();
    for (const v of ['1', '2', '3']) await store.publish(cluster, v, snap(Number(v)));
    const s1 = snap(1);
    expect(await store.setLatest(cluster, '1')).toEqual({ cluster, latest: '1', previous: '3', moved: true });
    expect((await store.latest(cluster))?.version).toBe('1');
    for (const pk of [nodesPk(cluster, '1', s1.snapshotHash), objectsPk(cluster, '1', s1.snapshotHash), manifestShardPk(cluster, '1', s1.snapshotHash, 0)]) {
      expect((await backend.getItem({ pk, sk: '0' }))?.[TTL_ATTRIBUTE]).toBeUndefined();
    }
    expect((await store.getHeader(cluster, '1'))?.expiresAt).toBeNull();
    expect((await store.getHeader(cluster, '3'))?.expiresAt).not.toBeNull();
    expect(await listed(store, cluster)).toEqual(['1', '3', '2']);
    expect(await store.setLatest(cluster, '1')).toEqual({ cluster, latest: '1', previous: '1', moved: false });
    await store.publish(cluster, '4', snap(4));
    expect(await listed(store, cluster, 2)).toEqual(['4', '1', '3', '2']);
    expect(await store.setLatest(cluster, 'nope')).toBeNull();
  });

  it('a retirement that read the pointer before a rollback to its version undoes itself: the latest never keeps an expiry', async () => {
    const { backend, plain, cluster } = kit();
    for (const v of ['1', '2', '3']) await plain.publish(cluster, v, snap(Number(v)));
    await plain.setLatest(cluster, '2');
    // A late finisher still retiring version 1 (it read the pointer at 3); on its first write a rollback to 1 lands.
    let armed = true;
    const late: ItemBackend = Object.create(backend) as ItemBackend;
    late.updateIfExists = async (key, set, onlyIf) => {
      if (armed && TTL_ATTRIBUTE in set) [armed] = [false, await plain.setLatest(cluster, '1')];
      return backend.updateIfExists(key, set, onlyIf);
    };
    expect(await reconcile(storeContext(late, { retentionSeconds: 3600, now: () => clock.now }), cluster, '1', Math.floor(clock.now / 1000) + 3600, '3')).toBe(true);
    expect(armed).toBe(false);
    const s1 = snap(1);
    expect((await plain.getHeader(cluster, '1'))?.expiresAt).toBeNull();
    for (const pk of [nodesPk(cluster, '1', s1.snapshotHash), objectsPk(cluster, '1', s1.snapshotHash), manifestShardPk(cluster, '1', s1.snapshotHash, 0)]) {
      expect((await backend.getItem({ pk, sk: '0' }))?.[TTL_ATTRIBUTE]).toBeUndefined();
    }
  });

  it('refuses a rollback to a version whose items do not read back, naming them', async () => {
    const { backend, store, cluster } = kit();
    const s1 = snap(1);
    await store.publish(cluster, '1', s1);
    await store.publish(cluster, '2', snap(2));
    const shard = { pk: manifestShardPk(cluster, '1', s1.snapshotHash, 0), sk: '0' };
    const item = (await backend.getItem(shard))!;
    await backend.updateIfExists(shard, { [TTL_ATTRIBUTE]: Math.floor(clock.now / 1000) - 1 });
    const err = await store.setLatest(cluster, '1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VersionIncompleteError);
    expect((err as VersionIncompleteError).missing).toEqual([shard.pk]);
    expect((await store.latest(cluster))?.version).toBe('2');
    await backend.putItems([item]);
  });

  it('deletes a version that is not latest: gone from reads and the listing; the latest cannot be deleted', async () => {
    const { store, cluster } = kit();
    for (const v of ['1', '2', '3']) await store.publish(cluster, v, snap(Number(v)));
    await expect(store.deleteVersion(cluster, '3')).rejects.toBeInstanceOf(VersionIsLatestError);
    expect(await store.deleteVersion(cluster, '2')).toBe(true);
    expect(await store.getHeader(cluster, '2')).toBeNull();
    expect(await store.getNodeTables(cluster, '2', 'node-0')).toBeNull();
    expect(await listed(store, cluster)).toEqual(['3', '1']);
    expect(await store.deleteVersion(cluster, '2')).toBe(false);
    expect(await store.setLatest(cluster, '2')).toBeNull();
    // Published again later: a new version under the same name.
    expect(await store.publish(cluster, '2', snap(2))).toMatchObject({ status: 'created', latest: true });
    expect(await listed(store, cluster)).toEqual(['2', '3', '1']);
  });

  it('keeps reading a cluster stored by the layout that compared versions, and lists its versions after the published ones', async () => {
    const { backend, store, cluster } = kit();
    // An earlier netpolc's items: headers with their sort key form as `vkey`, a pointer without a move number.
    for (const v of ['1', '2', '3']) await store.publish(`${cluster}-src`, v, snap(Number(v)));
    const at = Math.floor(clock.now / 1000) + 3600;
    for (const v of ['1', '2', '3']) {
      const s = snap(Number(v));
      const { seq: _, ...h } = (await backend.getItem(headerKey(`${cluster}-src`, v)))!;
      const body = headerItem(cluster, v, s.snapshotHash, { nodeCount: 2, objects: {}, compile: s.compile, tableCount: 1, publishedAt: new Date(clock.now).toISOString() }, { objectsHash: String(h.objectsHash), manifestShards: 1 });
      await backend.putItems([{ ...body, vkey: versionKey(v), ...(v === '3' ? {} : { [TTL_ATTRIBUTE]: at }) }]);
      for (const pk of [nodesPk, objectsPk].map((f) => f(`${cluster}-src`, v, s.snapshotHash))) {
        const item = (await backend.getItem({ pk, sk: '0' }))!;
        await backend.putItems([{ ...item, pk: pk.replace(`${cluster}-src`, cluster) }]);
      }
      const shard = (await backend.getItem({ pk: manifestShardPk(`${cluster}-src`, v, s.snapshotHash, 0), sk: '0' }))!;
      await backend.putItems([{ ...shard, pk: manifestShardPk(cluster, v, s.snapshotHash, 0) }]);
    }
    await backend.putItems([{ ...pointerKey(cluster), version: '3', vkey: versionKey('3'), retire: '[]' }]);
    expect((await store.latest(cluster))?.version).toBe('3');
    expect(await listed(store, cluster)).toEqual(['3', '2', '1']);
    // An expiring version of that layout is one the pointer passed: unchanged, not latest.
    expect(await store.publish(cluster, '1', snap(1))).toMatchObject({ status: 'unchanged', latest: false });
    await store.publish(cluster, 'f00d', snap(9));
    expect(await listed(store, cluster, 2)).toEqual(['f00d', '3', '2', '1']);
    expect((await store.getHeader(cluster, '3'))?.expiresAt).not.toBeNull();
    expect((await store.getNodeTables(cluster, '3', 'node-0'))?.pods).toEqual(snap(3).ir.nodes['node-0']!.pods);
  });
});
