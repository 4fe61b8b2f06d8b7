// `node --import tsx bench/profile-sample.ts [S|M|L] [nodes] [repeat]`: compile alone, repeated on
// freshly built clusters (no warm caches), reporting the fastest run — a quick figure while
// changing the compiler; `npm run bench` is the reference harness.
import { GENERATORS } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compile } from '../core/compile/compile.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';

const size = (process.argv[2] ?? 'M') as 'S' | 'M' | 'L';
const nodes = Number(process.argv[3] ?? 1000);
const repeat = Number(process.argv[4] ?? 3);
const parsed = parseSnapshot(JSON.parse(JSON.stringify(GENERATORS[size]())));
if (!parsed.ok) throw new Error('generated snapshot rejected');
const runs: number[] = [];
let stats: ReturnType<typeof compile>['stats'] | null = null;
for (let i = 0; i < repeat; i++) {
  const cluster = buildCluster(parsed.snapshot);
  const names = [...new Set(cluster.pods.flatMap((p) => (p.nodeName?.startsWith('worker') ? [p.nodeName] : [])))].sort();
  const sample = nodes >= names.length ? undefined : names.slice(0, nodes);
  const t = performance.now();
  stats = compile(cluster, { ...(sample ? { nodes: sample } : {}), sha256Hex: nodeSha256Hex }).stats;
  runs.push(performance.now() - t);
}
console.log(JSON.stringify({ size, minMs: Math.round(Math.min(...runs)), runsMs: runs.map(Math.round), ...stats, heapMb: Math.round(process.memoryUsage().heapUsed / 1e6) }));
