// A whole publish's stages in one process, as a PUT of a snapshot runs them on a compute thread:
// JSON.parse of the body, validation, the cluster build, the set compile, the snapshot hash, the
// set index, and the store's publish on the embedded store (dynalite, in memory, in this
// process). The body's parsed JSON is dropped after validation, as the server drops it. Run it
// from two checkouts, alternating, with the compute thread's heap settings:
//
//   node --expose-gc --max-old-space-size=4096 --max-semi-space-size=64 --import tsx bench/publish-parts.ts [S|M|L]
import { GENERATORS, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compileSets } from '../core/sets/index.js';
import { SetIndex } from '../core/sets/set-index.js';
import { hashObjects } from '../core/snapshot/hash.js';
import { formerSnapshotHash } from '../core/snapshot/index.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
import { nodeCompression } from '../functions/node-compression.js';
import { startLocalDynamo } from '../infra/dynamodb-local.js';
import { createDynamoDbStore } from '../infra/store/dynamodb.js';
import type { CompiledSnapshot } from '../infra/store/types.js';

const size = (process.argv[2] ?? 'M') as SizeName;
const text = JSON.stringify(GENERATORS[size]());
const local = await startLocalDynamo({});
const store = createDynamoDbStore({ client: local.client, tableName: local.tableName, retentionSeconds: 86_400, sha256Hex: nodeSha256Hex, compression: nodeCompression });
const ms: Record<string, number> = {};
let at = performance.now();
const lap = (stage: string) => {
  const now = performance.now();
  ms[stage] = Math.round(now - at);
  at = now;
};
let raw: unknown = JSON.parse(text);
lap('json');
const parsed = parseSnapshot(raw);
raw = null;
if (!parsed.ok) throw new Error(`the generated ${size} snapshot is invalid: ${JSON.stringify(parsed.issues.slice(0, 3))}`);
lap('validate');
const { snapshot } = parsed;
const cluster = buildCluster(snapshot);
lap('build');
const { ir, stats } = compileSets(cluster, { sha256Hex: nodeSha256Hex });
lap('sets');
// As a PUT does: the object groups encoded from the text the hash writes (null on a store without a synchronous deflate).
const groups = store.objectGroupEncoder?.() ?? null;
const hashed = hashObjects(snapshot.objects, nodeSha256Hex, undefined, undefined, groups?.onTexts);
lap('hash');
SetIndex.of(ir.sets);
lap('setIndex');
const objects: Record<string, number> = {};
for (const o of snapshot.objects) objects[o.kind] = (objects[o.kind] ?? 0) + 1;
const compiled: CompiledSnapshot = { snapshotHash: hashed.hash, hashed, formerSnapshotHash: () => formerSnapshotHash(snapshot.objects, nodeSha256Hex), objects, compile: { ...stats, durationMs: 0 }, ir, items: snapshot.objects, ignored: snapshot.ignored, ...(groups ? { encodedRuns: groups.encoded } : {}) };
const result = await store.publish('bench', '1', compiled, {});
await store.settled();
lap('publish');
// Held after a full collection (with --expose-gc): what the warm state and the store's caches keep.
(globalThis as { gc?: () => void }).gc?.();
console.log(`${size} ${process.cwd()} ms ${JSON.stringify(ms)} ${result.status}; heap after ${Math.round(process.memoryUsage().heapUsed / 2 ** 20)} MiB`);
await local.close();
