// The DynamoDB store when things go wrong: a failure at every write of a publish, concurrent
// publishes, throttling and partial batches. Real dynalite and a real SDK client; only `send`
// is wrapped to fail or to hold back part of a batch the way DynamoDB may.
import { describe, expect, it } from 'vitest';
import { useLocalDynamo } from '../support/local-dynamo.js';
import { TTL_ATTRIBUTE } from '../../infra/store/backend.js';
import { DynamoDbBackend, createDynamoDbStore } from '../../infra/store/dynamodb.js';
import { headerKey, manifestShardPk, nodesPk, objectsPk } from '../../infra/store/keys.js';
import { VersionConflictError, type CompiledSnapshot, type SnapshotStore } from '../../infra/store/types.js';
import { WRITES, awsError, rebuild, failAfterWrites, syntheticSnapshot, wrappedClient, type SendWrapper } from './support.js';

const BACKOFF = { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: 6 };
const dynamo = useLocalDynamo();

// Small chunks: the chunking path (tails before heads) is exercised without 400 KB tables, which
// store.test.ts covers at the real size.
const storeWith = (wrap?: SendWrapper): SnapshotStore =>
  createDynamoDbStore({ client: wrap ? wrappedClient(dynamo().endpoint, wrap) : dynamo().client, tableName: dynamo().tableName, backoff: BACKOFF, retentionSeconds: 3600, chunkBytes: 256 });

async function expectVersion(store: SnapshotStore, cluster: string, version: string, snap: CompiledSnapshot): Promise<void> {
  for (const [node, n] of Object.entries(snap.ir.nodes)) {
    const got = await store.getNodeTables(cluster, version, node);
    expect(got?.pods).toEqual(n.pods);
    expect(Object.fromEntries(await store.getTables(got!.tableIds, got!.packIndex))).toEqual(Object.fromEntries(n.tables.map((id) => [id, snap.ir.tables.get(id)])));
    const sets = await store.getSets(Object.values(got!.sets), got!.packIndex);
    expect(Object.fromEntries(Object.entries(got!.sets).map(([id, content]) => [id, sets.get(content)]))).toEqual(Object.fromEntries(n.sets.map((id) => [id, snap.ir.sets.get(id)])));
  }
}

async function hasTtl(cluster: string, version: string, snap: CompiledSnapshot): Promise<boolean[]> {
  const backend = new DynamoDbBackend({ client: dynamo().client, tableName: dynamo().tableName });
  // The version's own items; its manifests and object groups are shared by content and never expire.
  const keys = [headerKey(cluster, version), { pk: nodesPk(cluster, version, snap.snapshotHash), sk: '0' }, { pk: objectsPk(cluster, version, snap.snapshotHash), sk: '0' }, { pk: manifestShardPk(cluster, version, snap.snapshotHash, 0), sk: '0' }];
  return Promise.all(keys.map(async (k) => (await backend.getItem(k))?.[TTL_ATTRIBUTE] !== undefined));
}

describe('DynamoDB store under failures', () => {
  const s1 = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 1 });
  // A set of several chunks, so the publish also has chunk tails to write before the heads.
  const s2 = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 2, bigSetMembers: 200 });
  // Tables and set bodies are shared by content across clusters: a fresh variant per run keeps every write in play.
  const fresh = (variant: number) => syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant, bigSetMembers: 200 });

  it('a failure at any write keeps the previous version intact and the new one invisible until complete; a retry completes it', async () => {
    const healthy = storeWith();
    let points = 0;
    for (let n = 0; ; n++) {
      const cluster = `crash-${n}`;
      const s2 = fresh(100 + n);
      await healthy.publish(cluster, '1', s1);
      const failing = failAfterWrites(n);
      const outcome = await storeWith(failing).publish(cluster, '2', s2).then(
        () => 'ok',
        (e: unknown) => e,
      );
      if (!failing.fired()) {
        expect(outcome).toBe('ok'); // n is past the last write: every failure point was tried
        break;
      }
      points++;
      expect(outcome).toBeInstanceOf(Error);
      // Version 1 stays fully readable whatever happened.
      await expectVersion(healthy, cluster, '1', s1);
      const header2 = await healthy.getHeader(cluster, '2');
      const latest = (await healthy.latest(cluster))?.version;
      if (header2 === null) {
        // Before the header: nothing of version 2 is reachable.
        expect(latest).toBe('1');
        expect((await healthy.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['1']);
        expect(await healthy.getNodeTables(cluster, '2', 'node-0')).toBeNull();
        expect(await hasTtl(cluster, '1', s1)).toEqual([false, false, false, false]);
      } else {
        // After the header: version 2 is complete (latest or not yet).
        await expectVersion(healthy, cluster, '2', s2);
      }
      const retried = await healthy.publish(cluster, '2', s2);
      expect(retried).toMatchObject({ status: header2 === null ? 'created' : 'unchanged', latest: true });
      await expectVersion(healthy, cluster, '2', s2);
      // The retry also finishes what the pointer move left: version 1 expires, version 2 does not,
      // and both are listed in publish order.
      expect(await hasTtl(cluster, '1', s1)).toEqual([true, true, true, true]);
      expect(await hasTtl(cluster, '2', s2)).toEqual([false, false, false, false]);
      expect((await healthy.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['2', '1']);
    }
    // tables (tails, heads), manifests, header, pointer, order item, header's seq, version 1's TTLs, pointer settled
    expect(points).toBeGreaterThanOrEqual(12);
  });

  it('a failure at any write of a publish, then another version published instead of a retry: every version the pointer reached is listed, in order', async () => {
    const healthy = storeWith();
    for (let n = 0; ; n++) {
      const cluster = `crash-next-${n}`;
      await healthy.publish(cluster, '1', s1);
      const failing = failAfterWrites(n);
      const outcome = await storeWith(failing).publish(cluster, '2', fresh(300 + n)).catch((e: unknown) => e);
      if (!failing.fired()) break;
      expect(outcome).toBeInstanceOf(Error);
      const reached = (await healthy.latest(cluster))!.version;
      await healthy.publish(cluster, '3', fresh(400 + n));
      // A crash before the pointer moved leaves 2 stored, never latest, and not listed.
      expect((await healthy.listVersions(cluster)).versions.map((v) => v.version)).toEqual(reached === '2' ? ['3', '2', '1'] : ['3', '1']);
      expect(await hasTtl(cluster, '1', s1)).toEqual([true, true, true, true]);
    }
  });

  it('a failure at any write of a rollback or a delete leaves every version readable and latest on one of them; a retry completes it', async () => {
    const healthy = storeWith();
    const a = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 1 });
    for (const op of ['rollback', 'delete'] as const) {
      let points = 0;
      for (let n = 0; ; n++) {
        const cluster = `crash-${op}-${n}`;
        const b = fresh(500 + n);
        const c = fresh(600 + n);
        await healthy.publish(cluster, '1', a);
        await healthy.publish(cluster, '2', b);
        await healthy.publish(cluster, '3', c);
        const failing = failAfterWrites(n);
        const store = storeWith(failing);
        const outcome = await (op === 'rollback' ? store.setLatest(cluster, '1') : store.deleteVersion(cluster, '2')).then(() => 'ok', (e: unknown) => e);
        if (!failing.fired()) {
          expect(outcome).toBe('ok');
          break;
        }
        points++;
        expect(outcome).toBeInstanceOf(Error);
        expect(['1', '3']).toContain((await healthy.latest(cluster))?.version);
        await expectVersion(healthy, cluster, '1', a);
        await expectVersion(healthy, cluster, '3', c);
        if (op === 'rollback') {
          expect(await healthy.setLatest(cluster, '1')).toMatchObject({ latest: '1' });
          expect((await healthy.latest(cluster))?.version).toBe('1');
          expect(await hasTtl(cluster, '1', a)).toEqual([false, false, false, false]);
          expect(await hasTtl(cluster, '3', c)).toEqual([true, true, true, true]);
          expect((await healthy.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['1', '3', '2']);
        } else {
          expect(await healthy.deleteVersion(cluster, '2')).toBe(true);
          expect(await healthy.getHeader(cluster, '2')).toBeNull();
          expect((await healthy.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['3', '1']);
        }
      }
      // rollback: TTLs removed (items, header), pointer, order item, header's seq, 3's TTLs, settled; delete: TTLs
      expect(points).toBeGreaterThanOrEqual(op === 'rollback' ? 8 : 4);
    }
  });

  it('concurrent publishes of one version: one creates, the others see it unchanged, nothing is mixed', async () => {
    const stores = Array.from({ length: 6 }, () => storeWith());
    const results = await Promise.all(stores.map((s) => s.publish('same', '5', s2)));
    expect(results.filter((r) => r.status === 'created')).toHaveLength(1);
    expect(new Set(results.map((r) => JSON.stringify(r.header))).size).toBe(1);
    expect(results.every((r) => r.latest)).toBe(true);
    await expectVersion(stores[0]!, 'same', '5', s2);
  });

  it('concurrent publishes of one version with different content: one wins, the rest get conflicts, the winner is intact', async () => {
    const snaps = [1, 2, 3, 4].map((variant) => syntheticSnapshot({ nodes: 3, podsPerNode: 2, variant }));
    const settled = await Promise.allSettled(snaps.map((s) => storeWith().publish('race', '5', s)));
    const won = settled.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of settled) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(VersionConflictError);
    const winner = snaps[won[0]!]!;
    expect((await storeWith().getHeader('race', '5'))?.snapshotHash).toBe(winner.snapshotHash);
    await expectVersion(storeWith(), 'race', '5', winner);
  });

  it('concurrent publishes of many versions: latest is one of them, every other one is listed and expiring, none lost', async () => {
    const versions = ['3', '8', '1', '12', '5', '10', '2', '9'];
    const snaps = new Map(versions.map((v) => [v, syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: Number(v) })]));
    const results = await Promise.all(versions.map((v) => storeWith().publish('many', v, snaps.get(v)!)));
    // Every publish moved the pointer to its version once: each was latest when it answered.
    expect(results.every((r) => r.status === 'created' && r.latest)).toBe(true);
    const store = storeWith();
    const latest = (await store.latest('many'))!.version;
    expect(versions).toContain(latest);
    const listed = (await store.listVersions('many', { limit: 100 })).versions.map((v) => v.version);
    expect(listed[0]).toBe(latest);
    expect([...listed].sort()).toEqual([...versions].sort());
    for (const v of versions) {
      expect((await store.getHeader('many', v))?.expiresAt === null).toBe(v === latest);
      await expectVersion(store, 'many', v, snaps.get(v)!);
    }
  });

  it('retries throttling and writes or reads that DynamoDB left unprocessed', async () => {
    let calls = 0;
    const flaky: SendWrapper = async (command, send) => {
      // Every third request is throttled outright.
      if (++calls % 3 === 0) throw awsError('ProvisionedThroughputExceededException');
      const input = command.input as { RequestItems?: Record<string, unknown[] | { Keys: unknown[] }> };
      const [table, request] = Object.entries(input.RequestItems ?? {})[0] ?? [];
      // Batches: only the first half goes through, the rest comes back unprocessed.
      if (command.constructor.name === 'BatchWriteItemCommand' && Array.isArray(request) && request.length > 1) {
        const half = Math.ceil(request.length / 2);
        await send(rebuild(command, { RequestItems: { [table!]: request.slice(0, half) } }));
        return { UnprocessedItems: { [table!]: request.slice(half) } };
      }
      if (command.constructor.name === 'BatchGetItemCommand' && request && !Array.isArray(request) && request.Keys.length > 1) {
        const half = Math.ceil(request.Keys.length / 2);
        const res = (await send(rebuild(command, { RequestItems: { [table!]: { ...request, Keys: request.Keys.slice(0, half) } } }))) as object;
        return { ...res, UnprocessedKeys: { [table!]: { ...request, Keys: request.Keys.slice(half) } } };
      }
      return send(command);
    };
    const store = storeWith(flaky);
    const res = await store.publish('flaky', '1', s2);
    expect(res.status).toBe('created');
    await expectVersion(store, 'flaky', '1', s2);
    await expectVersion(storeWith(), 'flaky', '1', s2);
  });

  it('gives up on throttling that does not end, with the throttling error', async () => {
    const store = storeWith(async () => {
      throw awsError('ThrottlingException');
    });
    await expect(store.publish('throttled', '1', s1)).rejects.toThrow(/ThrottlingException/);
  });

  it('re-publishing a stored version writes nothing', async () => {
    await storeWith().publish('quiet', '1', s2);
    let writes = 0;
    const counting = storeWith(async (command, send) => {
      if (WRITES.has(command.constructor.name)) writes++;
      return send(command);
    });
    expect((await counting.publish('quiet', '1', s2)).status).toBe('unchanged');
    expect(writes).toBe(0);
  });
});
