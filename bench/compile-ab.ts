// Compile time in one form, as a request pays it: a new cluster each run (its per-cluster
// caches empty, as every request's are), timed around the compile alone after a full GC; median
// of N (default 11) and a hash of the output, so two checkouts can be compared (run from each,
// alternating; the hashes must match).
//   node --expose-gc --import tsx bench/compile-ab.ts [sets|flat] [S|M|L] [N] [--pod-name-label]
// --pod-name-label gives every pod its own `statefulset.kubernetes.io/pod-name` label, as
// StatefulSet pods carry (no policy selects on it): what a cluster of StatefulSets costs.
import { createHash } from 'node:crypto';
import { GENERATORS, type SizeName } from './generate.js';
import { compile } from '../core/compile/index.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compileSets } from '../core/sets/index.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const form = args[0] === 'flat' ? 'flat' : 'sets';
const size = (args[1] ?? 'M') as SizeName;
const runs = Number(args[2] ?? 11);
const snapshot = GENERATORS[size]();
if (process.argv.includes('--pod-name-label')) for (const o of snapshot.items) if (o.kind === 'Pod') o.metadata.labels = { ...o.metadata.labels, 'statefulset.kubernetes.io/pod-name': o.metadata.name };
const parsed = parseSnapshot(JSON.parse(JSON.stringify(snapshot)));
if (!parsed.ok) throw new Error('the generated snapshot does not parse');
const t: number[] = [];
let hash = '';
for (let i = 0; i < runs; i++) {
  const cluster = buildCluster(parsed.snapshot);
  (globalThis as any).gc();
  const s = performance.now();
  const { ir } = form === 'flat' ? compile(cluster, { sha256Hex: nodeSha256Hex }) : compileSets(cluster, { sha256Hex: nodeSha256Hex });
  t.push(performance.now() - s);
  if (i === 0) hash = createHash('sha256').update(JSON.stringify(ir)).digest('hex').slice(0, 16);
}
t.sort((a, b) => a - b);
console.log(process.cwd().padEnd(18), `${form} compile, ${size}, median of ${runs}:`, t[runs >> 1]!.toFixed(0), 'min', t[0]!.toFixed(0), 'output', hash);
