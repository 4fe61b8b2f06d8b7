// A version's snapshot objects read back on a fresh store (as a version from changes on a cold
// server reads its base), then hashed (as that version's hash starts from them): wall ms each,
// and whether the hash equals the published one. The version is published first, on the embedded
// store in memory in this process. Run from two checkouts, alternating:
//
//   node --expose-gc [--max-old-space-size=8000] --import tsx bench/objects-read.ts <checkout> [S|M|L] [reads]
const dir = process.argv[2];
if (!dir) throw new Error('usage: bench/objects-read.ts <checkout> [S|M|L] [reads]');
const size = process.argv[3] ?? 'M';
const reads = Number(process.argv[4] ?? 3);
const { GENERATORS } = await import(`${dir}/bench/generate.ts`);
const { parseSnapshot } = await import(`${dir}/schemas/snapshot.ts`);
const { compiledState } = await import(`${dir}/core/sets/index.ts`);
const { hashObjects } = await import(`${dir}/core/snapshot/hash.ts`);
const { nodeSha256Hex } = await import(`${dir}/functions/node-sha256.ts`);
const { nodeCompression } = await import(`${dir}/functions/node-compression.ts`);
const { startLocalDynamo } = await import(`${dir}/infra/dynamodb-local.ts`);
const { createDynamoDbStore } = await import(`${dir}/infra/store/dynamodb.ts`);

const local = await startLocalDynamo({});
const storeOf = () => createDynamoDbStore({ client: local.client, tableName: local.tableName, retentionSeconds: 86_400, sha256Hex: nodeSha256Hex, compression: nodeCompression });
const parsed = parseSnapshot(JSON.parse(JSON.stringify(GENERATORS[size]())));
if (!parsed.ok) throw new Error(`the generated ${size} snapshot is invalid`);
const { state, stats } = compiledState(parsed.snapshot, { sha256Hex: nodeSha256Hex });
const store = storeOf();
await store.publish('bench', '1', { snapshotHash: state.hashed.hash, hashed: state.hashed, formerSnapshotHash: () => '', objects: {}, compile: { ...stats, durationMs: 0 }, ir: state.ir, items: state.snapshot.objects, ignored: {} }, {});
await store.settled();
for (let r = 0; r < reads; r++) {
  (globalThis as { gc?: () => void }).gc?.();
  let at = performance.now();
  // A new store each time: nothing of the publish cached.
  const objects = await storeOf().getSnapshotObjects('bench', '1');
  const readMs = performance.now() - at;
  at = performance.now();
  const hash = hashObjects(objects, nodeSha256Hex).hash;
  const hashMs = performance.now() - at;
  if (hash !== state.hashed.hash) throw new Error(`read ${r}: the objects read back hash to ${hash}, not ${state.hashed.hash}`);
  console.log(JSON.stringify({ size, checkout: dir, read: r, objects: objects.length, readMs: Math.round(readMs), hashMs: Math.round(hashMs), sameHash: true }));
}
await local.close();
