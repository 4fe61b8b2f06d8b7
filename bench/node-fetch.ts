// Full nftables fetches of every node of one stored version, twice, through the app and the
// embedded store (in process), with the store's content cache off and on (64 MiB): what a fleet
// of node agents costs right after a version whose changes reach every node.
//
//   node --import tsx bench/node-fetch.ts [S|M]
import { createApp } from '../functions/app.js';
import { startLocalDynamo } from '../infra/dynamodb-local.js';
import { createDynamoDbStore } from '../infra/store/dynamodb.js';
import { nodeCompression } from '../functions/node-compression.js';
import { GENERATORS } from './generate.js';
const size = (process.argv[2] ?? 'S') as 'S' | 'M';
const local = await startLocalDynamo();
const list = GENERATORS[size]();
for (const cacheBytes of [0, 64 * 1024 * 1024]) {
  const cluster = `c${cacheBytes}`;
  const app = createApp({ store: createDynamoDbStore({ client: local.client, tableName: local.tableName, contentCacheBytes: cacheBytes, compression: nodeCompression }), access: { kind: 'anonymous' } });
  const put = await app.request(`/v1/clusters/${cluster}/snapshots/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(list) });
  const nodes = ((await put.json()) as { header: { nodes: string[] } }).header.nodes;
  for (const round of [1, 2]) {
    const t0 = performance.now();
    for (const n of nodes) await (await app.request(`/v1/clusters/${cluster}/nodes/${n}/tables?format=nftables`)).text();
    console.log(size, `cache ${cacheBytes ? '64 MiB' : 'off'}`, `round ${round}: ${nodes.length} nodes' nftables in ${Math.round(performance.now() - t0)} ms`);
  }
}
await local.close();
