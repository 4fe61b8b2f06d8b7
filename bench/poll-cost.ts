// In-process cost of one node poll answered 304 (the agents hot path): a memory store, version 1 of S,
// then 5 × 10,000 polls with the ETag; prints the median µs per poll. Run from two checkouts to compare.
//   npx tsx bench/poll-cost.ts
import { createApp } from '../functions/app.js';
import { createMemoryStore } from '../infra/store/memory.js';
import { GENERATORS } from './generate.js';
const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logAccess: null });
const put = await app.request('/v1/clusters/c/snapshots/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(GENERATORS.S()) });
if (put.status !== 201) throw new Error(String(put.status));
const first = await app.request('/v1/clusters/c/nodes/worker-0000/tables?format=nftables');
const etag = first.headers.get('etag')!;
const once = async () => { const r = await app.request('/v1/clusters/c/nodes/worker-0000/tables?format=nftables', { headers: { 'if-none-match': etag } }); if (r.status !== 304) throw new Error(String(r.status)); };
for (let i = 0; i < 5000; i++) await once();
const rounds: number[] = [];
for (let k = 0; k < 5; k++) { const s = performance.now(); for (let i = 0; i < 10000; i++) await once(); rounds.push((performance.now() - s) / 10000 * 1000); }
console.log(process.cwd(), 'µs per 304 poll, median of 5 × 10,000:', rounds.sort((a, b) => a - b)[2]!.toFixed(1));
