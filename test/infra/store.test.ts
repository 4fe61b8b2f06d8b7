// The snapshot store against a real in-process dynalite (and the memory backend, which must
// behave the same): round trip, idempotence, 409, pagination, TTL, chunking, pointer order.
// Injected failures, concurrency and retries are in store-faults.test.ts.
import { describe, expect, it } from 'vitest';
import { TTL_ATTRIBUTE, type ItemBackend } from '../../infra/store/backend.js';
import { decodePackIndex } from '../../infra/store/packs.js';
import { headerKey, packIndexPk, packPk, manifestBodyPk, manifestPk, manifestShardPk, nodesPk, objectGroupPk, objectsPk, tablePk } from '../../infra/store/keys.js';
import { decodeGroupIndex, encodeGroup, objectGroupEncoder, objectGroups } from '../../infra/store/objects.js';
import { hashObjects } from '../../core/snapshot/hash.js';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { readBlobs } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { contentHash, encodeManifest, manifestOf, setContentId } from '../../infra/store/codec.js';
import { bucketOf } from '../../infra/store/manifest-hash.js';
import { headerItem } from '../../infra/store/header.js';
import { integerAbove, isCanonicalInteger, unmetCondition } from '../../infra/store/order.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { StoreCorruptionError, StoreInputError, VersionConflictError, type SnapshotStore } from '../../infra/store/types.js';
import { addressSet, exampleSnapshot, realAndMemoryBackends, syntheticSnapshot } from './support.js';
import type { Sha256Hex } from '../../core/compile/table-id.js';
import type { IrSet, RuleTable } from '../../core/sets/index.js';
import { nodeSha256Hex } from '../../functions/node-sha256.js';

const RETENTION = 3600;
const clock = { now: Date.parse('2026-06-01T00:00:00Z') };
const backends = realAndMemoryBackends();

let clusters = 0;

describe.each(Object.keys(backends))('%s store', (kind) => {
  const kit = (o: { chunkBytes?: number } = {}): { backend: ItemBackend; store: SnapshotStore; cluster: string } => {
    const backend = backends[kind]!();
    return { backend, store: createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now, ...o }), cluster: `${kind}-c${++clusters}` };
  };
  /** An item's body as written (deflated bodies inflated, chunks joined). */
  const bodyOf = async (backend: ItemBackend, pk: string) => (await readBlobs({ backend, compression: streamCompression }, [pk])).complete.get(pk)!.bytes;

  it('round-trips the compiler output: header, latest, every node manifest and table', async () => {
    const { store, cluster } = kit();
    const snap = exampleSnapshot();
    const res = await store.publish(cluster, '42', snap);
    expect(res).toMatchObject({ status: 'created', latest: true, header: { cluster, version: '42', snapshotHash: 'example-1', expiresAt: null } });
    expect(res.header.nodes).toEqual(Object.keys(snap.ir.nodes).sort());
    expect(res.header.compile).toEqual(snap.compile);
    const { nodes: _nodes, ...summary } = res.header;
    expect(await store.latest(cluster)).toEqual(summary);
    expect(await store.getHeader(cluster, '42')).toEqual(res.header);
    for (const [node, n] of Object.entries(snap.ir.nodes)) {
      const got = await store.getNodeTables(cluster, '42', node);
      expect(got?.pods).toEqual(n.pods);
      expect(got?.addresses).toEqual(n.addresses);
      expect(got?.tableIds).toEqual(n.tables);
      expect(Object.keys(got!.sets)).toEqual(n.sets);
      const tables = await store.getTables(got!.tableIds, got!.packIndex);
      expect(Object.fromEntries(tables)).toEqual(Object.fromEntries(n.tables.map((id) => [id, snap.ir.tables.get(id)])));
      const sets = await store.getSets(Object.values(got!.sets), got!.packIndex);
      for (const [id, content] of Object.entries(got!.sets)) expect(sets.get(content)).toEqual(snap.ir.sets.get(id));
    }
    expect(await store.getNodeTables(cluster, '42', 'no-such-node')).toBeNull();
    expect(await store.getNodeTables(cluster, '41', Object.keys(snap.ir.nodes)[0]!)).toBeNull();
    expect(await store.latest(`${cluster}-unknown`)).toBeNull();
  });

  it('re-publishing identical content is idempotent; other content for the same version is a conflict', async () => {
    const { store, cluster } = kit();
    const first = await store.publish(cluster, '7', syntheticSnapshot({ nodes: 2, podsPerNode: 3, variant: 1 }));
    const again = await store.publish(cluster, '7', syntheticSnapshot({ nodes: 2, podsPerNode: 3, variant: 1 }));
    expect(again).toEqual({ ...first, status: 'unchanged' });
    const other = syntheticSnapshot({ nodes: 2, podsPerNode: 3, variant: 2 });
    const err = await store.publish(cluster, '7', other).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VersionConflictError);
    expect(err).toMatchObject({ storedSnapshotHash: 'synthetic-1', offeredSnapshotHash: 'synthetic-2' });
    // The stored version is untouched.
    const node0 = await store.getNodeTables(cluster, '7', 'node-0');
    expect(node0?.pods).toEqual(syntheticSnapshot({ nodes: 2, podsPerNode: 3, variant: 1 }).ir.nodes['node-0']!.pods);
  });

  it('lists versions in publish order, the last published first (never by comparing them), page by page', async () => {
    const { store, cluster } = kit();
    const versions = ['9', '10', '100', '2', '11', '1000', '99'];
    for (const [i, v] of versions.entries()) await store.publish(cluster, v, syntheticSnapshot({ nodes: 1, podsPerNode: 1, variant: i }));
    const seen: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await store.listVersions(cluster, { limit: 3, cursor });
      seen.push(page.versions.map((v) => v.version));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual([['99', '1000', '11'], ['2', '100', '10'], ['9']]);
    const all = await store.listVersions(cluster, { limit: 100 });
    expect(all.cursor).toBeNull();
    expect(all.versions[0]).toMatchObject({ version: '99', nodeCount: 1, expiresAt: null, publishedAt: new Date(clock.now).toISOString() });
    expect(all.versions.slice(1).every((v) => v.expiresAt !== null)).toBe(true);
    expect(all.versions[0]).not.toHaveProperty('nodes');
    expect((await store.listVersions(cluster, { limit: 7 })).cursor).toBeNull();
    await expect(store.listVersions(cluster, { cursor: '!!!' })).rejects.toBeInstanceOf(StoreInputError);
    await expect(store.listVersions(cluster, { limit: 0 })).rejects.toBeInstanceOf(StoreInputError);
  });

  it('sets TTLs on a version once the pointer passes it, never on the latest or on tables, and hides expired versions', async () => {
    const { backend, store, cluster } = kit();
    const s1 = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 1 });
    await store.publish(cluster, '1', s1);
    const ttlOf = async (pk: string, sk = '0') => (await backend.getItem({ pk, sk }))?.[TTL_ATTRIBUTE];
    expect(await ttlOf(headerKey(cluster, '1').pk, headerKey(cluster, '1').sk)).toBeUndefined();
    expect(await ttlOf(manifestShardPk(cluster, '1', s1.snapshotHash, 0))).toBeUndefined();

    const publishedAt = clock.now;
    await store.publish(cluster, '2', syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 2 }));
    const expected = Math.floor(publishedAt / 1000) + RETENTION;
    expect(await ttlOf(headerKey(cluster, '1').pk, headerKey(cluster, '1').sk)).toBe(expected);
    expect(await ttlOf(manifestShardPk(cluster, '1', s1.snapshotHash, 0))).toBe(expected);
    expect(await ttlOf(nodesPk(cluster, '1', s1.snapshotHash))).toBe(expected);
    expect(await ttlOf(objectsPk(cluster, '1', s1.snapshotHash))).toBe(expected);
    expect(await ttlOf(objectsPk(cluster, '2', 'synthetic-2'))).toBeUndefined();
    expect(await ttlOf(headerKey(cluster, '2').pk, headerKey(cluster, '2').sk)).toBeUndefined();
    for (const id of s1.ir.nodes['node-0']!.tables) expect(await ttlOf(tablePk(id))).toBeUndefined();
    // Manifests and object groups are shared by content with other versions: they never expire.
    const manifest = (await store.getNodeTables(cluster, '1', 'node-0'))!;
    expect(await ttlOf(manifestBodyPk(manifest.hash))).toBeUndefined();
    expect((await store.getHeader(cluster, '1'))?.expiresAt).toBe(new Date(expected * 1000).toISOString());

    clock.now += (RETENTION + 1) * 1000;
    expect(await store.getHeader(cluster, '1')).toBeNull();
    expect(await store.getNodeTables(cluster, '1', 'node-0')).toBeNull();
    expect((await store.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['2']);
    expect((await store.latest(cluster))?.version).toBe('2'); // the latest never expires, however old
    // An expired version may be published again (DynamoDB deletes expired items only eventually):
    // it is the last published, so latest, and version 2 expires.
    const again = await store.publish(cluster, '1', syntheticSnapshot({ nodes: 1, podsPerNode: 1, variant: 9 }));
    expect(again).toMatchObject({ status: 'created', latest: true });
    expect(again.header.expiresAt).toBeNull();
    expect((await store.getHeader(cluster, '2'))?.expiresAt).not.toBeNull();
    expect((await store.listVersions(cluster)).versions.map((v) => v.version)).toEqual(['1', '2']);
  });


  it('splits sets and manifests over an item into chunks and reassembles them', async () => {
    // Deflated, the big set is ~80 KB and the manifest ~25 KB: chunks of 16 KiB split them as
    // DynamoDB's 400 KB items split larger ones.
    const { backend, store, cluster } = kit({ chunkBytes: 16 * 1024 });
    const snap = syntheticSnapshot({ nodes: 1, podsPerNode: 4000, variant: 1, bigSetMembers: 40_000 });
    const node = snap.ir.nodes['node-0']!;
    const bigId = [...snap.ir.sets.entries()].find(([, s]) => s.kind === 'addresses' && s.v4.length === 40_000)![0];
    expect(JSON.stringify(snap.ir.sets.get(bigId)).length).toBeGreaterThan(500_000);
    await store.publish(cluster, '1', snap);
    const got = await store.getNodeTables(cluster, '1', 'node-0');
    // The big set's body is in the pack the version's index names for it.
    const packOf = decodePackIndex(got!.packIndex!, (await readBlobs({ backend, compression: streamCompression }, [packIndexPk(got!.packIndex!)])).complete.get(packIndexPk(got!.packIndex!))!.bytes, portableSha256Hex);
    const head = await backend.getItem({ pk: packPk(packOf.get(got!.sets[bigId]!)!), sk: '0' });
    expect(head?.chunks).toBeGreaterThan(1);
    const manifestHead = await backend.getItem({ pk: manifestBodyPk(got!.hash), sk: '0' });
    expect(manifestHead?.chunks).toBeGreaterThan(1);
    expect(got?.pods).toEqual(node.pods);
    const sets = await store.getSets([got!.sets[bigId]!], got!.packIndex);
    expect(sets.get(got!.sets[bigId]!)).toEqual(snap.ir.sets.get(bigId));
    const tables = await store.getTables(got!.tableIds, got!.packIndex);
    expect(tables.size).toBe(node.tables.length);
  });

  it('keeps the snapshot objects as groups shared between versions, checked against their ids on read', async () => {
    const { backend, store, cluster } = kit();
    const snap = exampleSnapshot();
    // Enough objects for many groups; one object big enough to need chunks of its group.
    const pad = (i: number, size = 63) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `pad-${i}`, labels: { filler: 'x'.repeat(size) }, annotations: { big: i === 7 ? 'y'.repeat(500_000) : '' } } }) as const;
    const items = [...snap.items, ...Array.from({ length: 5000 }, (_, i) => pad(i))];
    const byKey = (list: readonly { kind: string; metadata: { name: string; namespace?: string } }[]) => [...list].sort((a, b) => (`${a.kind}/${a.metadata.namespace}/${a.metadata.name}` < `${b.kind}/${b.metadata.namespace}/${b.metadata.name}` ? -1 : 1));
    await store.publish(cluster, '1', { ...snap, items });
    const groups = decodeGroupIndex(await bodyOf(backend, objectsPk(cluster, '1', snap.snapshotHash)));
    expect(groups.length).toBeGreaterThan(20);
    expect(await store.getSnapshotObjects(cluster, '1')).toEqual(byKey(items));
    // A version with one object changed writes one new group and shares every other one.
    const changed = items.map((o, i) => (i === snap.items.length + 100 ? pad(100, 10) : o));
    await store.publish(cluster, '2', { ...snap, snapshotHash: 'example-2', items: changed });
    const groups2 = decodeGroupIndex(await bodyOf(backend, objectsPk(cluster, '2', 'example-2')));
    expect(groups2.filter((g) => !groups.includes(g))).toHaveLength(1);
    expect(await store.getSnapshotObjects(cluster, '2')).toEqual(byKey(changed));
    // A group whose stored objects do not hash to its id: refused.
    const [first] = groups;
    const stored = (await backend.getItem({ pk: objectGroupPk(first!), sk: '0' }))!;
    // Rewritten as a body that is not deflated, so the text itself is what was changed.
    const tampered = new TextEncoder().encode(new TextDecoder().decode(await bodyOf(backend, objectGroupPk(first!))).replace('tenant', 'tenanT'));
    const { encoding: _e, rawBytes: _r, ...plain } = stored;
    await backend.putItems([{ ...plain, chunks: 1, body: tampered }]);
    await expect(store.getSnapshotObjects(cluster, '1')).rejects.toBeInstanceOf(StoreCorruptionError);
    await backend.putItems([stored]);
    expect(await store.getSnapshotObjects(cluster, '3')).toBeNull();
    expect(await store.getSnapshotObjects(`${cluster}-other`, '1')).toBeNull();

    // A header that records another hash than the stored bytes have: refused, never answered from.
    const header = (await backend.getItem(headerKey(cluster, '1')))!;
    await backend.putItems([{ ...header, objectsHash: 'h0000' }]);
    await expect(store.getSnapshotObjects(cluster, '1')).rejects.toBeInstanceOf(StoreCorruptionError);
    // A header written before objects were kept has no hash: no objects, not an error.
    const { objectsHash: _, ...older } = header;
    await backend.putItems([older as typeof header]);
    expect(await store.getSnapshotObjects(cluster, '1')).toBeNull();
  });

  it('stores the object groups the snapshot hash encoded as the bytes publish would encode, and encodes only runs it hashed anew', async () => {
    const { backend, store, cluster } = kit();
    const snap = exampleSnapshot();
    // Keys out of canonical order (metadata: name, labels, annotations) and in it (the parsed example).
    const pad = (i: number) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `pad-${i}`, labels: { filler: `x${i}` }, annotations: { a: i === 3 ? 'y'.repeat(300_000) : '' } } });
    const items = [...snap.items, ...Array.from({ length: 1000 }, (_, i) => pad(i))] as unknown as typeof snap.items;
    const encoder = objectGroupEncoder((b) => new Uint8Array(deflateRawSync(b, { level: 1 })));
    const text = (b: Uint8Array) => new TextDecoder().decode(b);
    const hashed = hashObjects(items, nodeSha256Hex, undefined, undefined, encoder.onTexts);
    expect(hashed.hash).toBe(hashObjects(structuredClone(items), nodeSha256Hex).hash);
    expect(encoder.encoded.size).toBe(hashed.runs.length);
    const groups = objectGroups(items, nodeSha256Hex, hashed);
    groups.forEach((g, i) => {
      const body = encoder.encoded.get(hashed.runs[i]!.objects)!;
      const raw = body.encoding.encoding === undefined ? body.stored : new Uint8Array(inflateRawSync(body.stored));
      expect(text(raw)).toBe(text(encodeGroup(g)));
    });
    await store.publish(cluster, '1', { ...snap, items, hashed, encodedRuns: encoder.encoded });
    expect(await store.getSnapshotObjects(cluster, '1')).toEqual(hashed.objects);
    const stored = (await readBlobs({ backend, compression: streamCompression }, groups.map((g) => objectGroupPk(g.id)))).complete;
    for (const g of groups) expect(text(stored.get(objectGroupPk(g.id))!.bytes)).toBe(text(encodeGroup(g)));
    // Objects hashed before (their digests known): no text written, nothing encoded; publish encodes.
    const again = objectGroupEncoder((b) => new Uint8Array(deflateRawSync(b, { level: 1 })));
    const moved = [...items.slice(0, -1), pad(9999)] as unknown as typeof snap.items;
    const rehashed = hashObjects(moved, nodeSha256Hex, undefined, undefined, again.onTexts);
    const fresh = rehashed.runs.filter((r) => !hashed.runs.includes(r));
    expect(fresh.length).toBeGreaterThan(0);
    expect(again.encoded.size).toBe(0);
  });

  it('gives equal node hashes when nothing changed for a node, and another when only members of its sets did', async () => {
    const { store, cluster } = kit();
    const a = syntheticSnapshot({ nodes: 3, podsPerNode: 2, variant: 1 });
    // Version 2: node-1 gets other tables; node-2 keeps its tables but a set it uses gains a member.
    const [extraId, extra] = addressSet('extra', 2);
    const [grownId, grown] = addressSet('extra', 3);
    expect(grownId).toBe(extraId); // members changed, id kept
    const withSet = (snap: ReturnType<typeof syntheticSnapshot>, set: typeof extra) => ({
      ...snap,
      ir: { ...snap.ir, sets: snap.ir.sets.after({ set: new Map([[extraId, set]]), dropped: new Set() }), nodes: { ...snap.ir.nodes, 'node-2': { ...snap.ir.nodes['node-2']!, sets: [...snap.ir.nodes['node-2']!.sets, extraId].sort() } } },
    });
    const v1 = withSet(a, extra);
    const other = syntheticSnapshot({ nodes: 3, podsPerNode: 2, variant: 2 });
    const v2base = withSet(a, grown);
    const v2 = { ...v2base, snapshotHash: 'other', ir: { ...v2base.ir, tables: v2base.ir.tables.after({ set: new Map(other.ir.tables.entries()), dropped: new Set() }), nodes: { ...v2base.ir.nodes, 'node-1': other.ir.nodes['node-1']! } } };
    await store.publish(cluster, '1', v1);
    await store.publish(cluster, '2', v2);
    const hash = async (v: string, n: string) => (await store.getNodeTables(cluster, v, n))?.hash;
    expect(await hash('1', 'node-0')).toBe(await hash('2', 'node-0'));
    expect(await hash('1', 'node-1')).not.toBe(await hash('2', 'node-1'));
    expect(await hash('1', 'node-2')).not.toBe(await hash('2', 'node-2'));
    const [m1, m2] = [await store.getNodeTables(cluster, '1', 'node-2'), await store.getNodeTables(cluster, '2', 'node-2')];
    expect(m2!.tableIds).toEqual(m1!.tableIds);
    expect(m2!.sets[extraId]).not.toBe(m1!.sets[extraId]);
  });

  it('reads and retires versions written in the earlier layout (a manifest per node, one objects blob)', async () => {
    const { backend, store, cluster } = kit();
    const snap = exampleSnapshot();
    await store.publish(cluster, '6', snap); // tables and set bodies, shared by content
    const hash = 'older-layout';
    const contentIds = new Map([...snap.ir.sets.entries()].map(([id, set]) => [id, setContentId(JSON.stringify(set))]));
    const objects = new TextEncoder().encode(JSON.stringify({ format: 'netpolc.parsed-objects/1', items: snap.items }));
    await backend.putItems([
      ...Object.entries(snap.ir.nodes).map(([node, n]) => ({ pk: manifestPk(cluster, '7', hash, node), sk: '0', chunks: 1, body: encodeManifest(manifestOf(n, contentIds)) })),
      { pk: nodesPk(cluster, '7', hash), sk: '0', chunks: 1, body: new TextEncoder().encode(JSON.stringify(Object.keys(snap.ir.nodes).sort())) },
      { pk: objectsPk(cluster, '7', hash), sk: '0', chunks: 1, body: objects },
    ]);
    const { manifestShards: _, ...older } = headerItem(cluster, '7', hash, { nodeCount: 2, objects: {}, compile: snap.compile, tableCount: 4, publishedAt: new Date(clock.now).toISOString() }, { objectsHash: contentHash(objects, portableSha256Hex), manifestShards: 1 });
    await backend.putItems([older as typeof older & { pk: string; sk: string }]);
    for (const [node, n] of Object.entries(snap.ir.nodes)) expect((await store.getNodeTables(cluster, '7', node))?.pods).toEqual(n.pods);
    expect(await store.getSnapshotObjects(cluster, '7')).toEqual(snap.items);
    // Retired like any version once another is published: its own manifests expire with it.
    expect((await store.publish(cluster, '7', { ...snap, snapshotHash: hash })).status).toBe('unchanged'); // the pointer moves to 7
    await store.publish(cluster, '8', { ...snap, snapshotHash: 'example-8' });
    expect((await backend.getItem({ pk: manifestPk(cluster, '7', hash, 'node-1'), sk: '0' }))?.[TTL_ATTRIBUTE]).toBeDefined();
  });

  it('refuses names it cannot key, and tables or sets that do not match their id', async () => {
    const { store, cluster } = kit();
    const snap = syntheticSnapshot({ nodes: 1, podsPerNode: 1, variant: 1 });
    await expect(store.publish('a#b', '1', snap)).rejects.toBeInstanceOf(StoreInputError);
    await expect(store.publish(cluster, '', snap)).rejects.toBeInstanceOf(StoreInputError);
    await expect(store.getTables(['not-an-id'])).rejects.toBeInstanceOf(StoreInputError);
    await expect(store.getSets(['not-an-id'])).rejects.toBeInstanceOf(StoreInputError);
    const [id, table] = [...snap.ir.tables.entries()][0]!;
    const forged = { ...snap, ir: { ...snap.ir, tables: snap.ir.tables.after({ set: new Map([[id, { ...table, admin: [{ action: 'allow' as const, set: null, ports: null }] }]]), dropped: new Set() }) } };
    await expect(store.publish(cluster, '1', forged)).rejects.toThrow(/does not hash to its id/);
    const [setId, set] = [...snap.ir.sets.entries()][0]!;
    const forgedSet = { ...snap, ir: { ...snap.ir, sets: snap.ir.sets.after({ set: new Map([[setId, { ...set, definition: { type: 'cidrs' as const, cidrs: ['0.0.0.0/0'], except: [] } }]]), dropped: new Set() }) } };
    await expect(store.publish(cluster, '1', forgedSet)).rejects.toThrow(/does not hash to its id/);
    expect(await store.getHeader(cluster, '1')).toBeNull();
  });

  it("refuses a compiled table or set filed under another one's id, though the compile hashed its text with the same SHA-256", async () => {
    const { store, cluster } = kit();
    // Compiled with the portable SHA-256, the store's own: the ids the compile hashed are the ones read back.
    const snap = exampleSnapshot();
    const [[idA, tableA], [idB, tableB]] = [...snap.ir.tables.entries()] as [[string, RuleTable], [string, RuleTable]];
    const swapped = { ...snap, ir: { ...snap.ir, tables: snap.ir.tables.after({ set: new Map([[idA, tableB], [idB, tableA]]), dropped: new Set() }) } };
    await expect(store.publish(cluster, '1', swapped)).rejects.toThrow(new RegExp(`table ${idA} does not hash to its id \\(${idB}\\)`));
    const [[setA, bodyA], [setB, bodyB]] = [...snap.ir.sets.entries()] as [[string, IrSet], [string, IrSet]];
    const swappedSets = { ...snap, ir: { ...snap.ir, sets: snap.ir.sets.after({ set: new Map([[setA, bodyB], [setB, bodyA]]), dropped: new Set() }) } };
    await expect(store.publish(cluster, '1', swappedSets)).rejects.toThrow(new RegExp(`set ${setA} does not hash to its id \\(${setB}\\)`));
    expect(await store.getHeader(cluster, '1')).toBeNull();
    expect((await store.publish(cluster, '1', snap)).status).toBe('created');
  });

  it('checks table ids with the SHA-256 it is given, on write and on read', async () => {
    const hashed: number[] = [];
    const sha256Hex: Sha256Hex = (text) => {
      hashed.push(1);
      return nodeSha256Hex(text);
    };
    const backend = backends[kind]!();
    const store = createSnapshotStore(backend, { retentionSeconds: RETENTION, now: () => clock.now, sha256Hex });
    const cluster = `${kind}-c${++clusters}`;
    const snap = syntheticSnapshot({ nodes: 2, podsPerNode: 2, variant: 1 });
    const ids = [...snap.ir.tables.ids()];
    const sets = snap.ir.sets.size;
    await store.publish(cluster, '1', snap);
    const hashedByPublish = hashed.length;
    // A node's manifest hash is made of parts (manifest-hash.ts): its rest, each bucket its sets fill, the whole.
    const manifests = Object.values(snap.ir.nodes).reduce((n, node) => n + 2 + new Set(node.sets.map(bucketOf)).size, 0);
    // Each table once; each set twice (its definition against its id, its body for its content
    // id); each node's manifest parts, each pack of tables and set bodies, the packs' index and
    // the object group index once (their content hashes).
    // (The table may hold other tests' packs: the version's own are those its index names.)
    const index = (await store.getNodeTables(cluster, '1', Object.keys(snap.ir.nodes)[0]!))!.packIndex!;
    const packs = new Set(decodePackIndex(index, (await readBlobs({ backend, compression: streamCompression }, [packIndexPk(index)])).complete.get(packIndexPk(index))!.bytes, nodeSha256Hex).values()).size;
    expect(packs).toBeGreaterThan(0);
    const written = ids.length + 2 * sets + manifests + packs + 1 + 1;
    expect(hashedByPublish).toBe(written);
    // Read back from the packs: the index and each pack checked against its id once.
    const before = hashed.length;
    const read = await store.getTables(ids, index);
    expect(hashed.length).toBe(before + 1 + packs);
    for (const id of ids) expect(read.get(id)).toEqual(snap.ir.tables.get(id));
    const [id, table] = [...snap.ir.tables.entries()][0]!;
    const forged = { ...snap, ir: { ...snap.ir, tables: snap.ir.tables.after({ set: new Map([[id, { ...table, baseline: [{ action: 'deny' as const, set: null, ports: null }] }]]), dropped: new Set() }) } };
    await expect(store.publish(cluster, '2', forged)).rejects.toThrow(/does not hash to its id/);
  });
});

describe('order.ts', () => {
  it('compares only canonical integers, by value; a move to the latest itself meets every condition', () => {
    expect(['0', '9', '10', '100', '123456789012345678901234567890'].every(isCanonicalInteger)).toBe(true);
    expect(['09', '+1', '1e3', '-1', '', 'abc123', '1.0'].some(isCanonicalInteger)).toBe(false);
    expect(integerAbove('10', '9')).toBe(true);
    expect(integerAbove('9', '10')).toBe(false);
    expect(integerAbove('123456789012345678901234567890', '99')).toBe(true);
    expect(unmetCondition({ numeric: true }, '10', '11')).toBeNull();
    expect(unmetCondition({ numeric: true }, '10', '9')).toBe('numeric');
    expect(unmetCondition({ numeric: true }, 'abc123', '11')).toBe('numeric');
    expect(unmetCondition({ numeric: true }, '10', 'abc124')).toBe('numeric');
    expect(unmetCondition({ numeric: true }, null, '1')).toBeNull();
    expect(unmetCondition({ ifMatch: ['10'] }, '10', 'abc')).toBeNull();
    expect(unmetCondition({ ifMatch: ['10'] }, '11', 'abc')).toBe('if-match');
    expect(unmetCondition({ ifMatch: '*' }, null, 'abc')).toBe('if-match');
    expect(unmetCondition({ ifNoneMatch: '*' }, null, 'abc')).toBeNull();
    expect(unmetCondition({ ifNoneMatch: '*' }, '1', 'abc')).toBe('if-none-match');
    expect(unmetCondition({ ifMatch: ['1'], numeric: true }, '12', '12')).toBeNull();
  });
});
