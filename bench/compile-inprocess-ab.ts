// The set compile of two checkouts alternated in ONE process: each checkout's own modules
// (imported by path), a fresh cluster per run (per-cluster caches empty, as a request's are),
// a full GC before each, CPU time (user + system) per compile. Between processes this machine
// reads ±20% on the same code; alternating in one process, both sides see the same heap, JIT
// and machine drift, so the paired ratio is what a change moved. Stops if the outputs differ.
//   node --expose-gc --max-old-space-size=14000 --import tsx bench/compile-inprocess-ab.ts <A dir> <B dir> [S|M|L] [pairs]
// Session 21: twelve pairs at M of one checkout against itself read B/A 1.000 (0.691–1.118): use ≥ 12 pairs at M.
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATORS, type SizeName } from './generate.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';

interface Side {
  readonly parse: (raw: unknown) => { ok: boolean; snapshot?: unknown };
  readonly build: (snapshot: unknown) => unknown;
  readonly compileSets: (cluster: unknown, opts: { sha256Hex: typeof nodeSha256Hex }) => { ir: unknown };
}

const [dirA, dirB, sizeArg = 'M', pairsArg = '12'] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error('usage: bench/compile-inprocess-ab.ts <A dir> <B dir> [S|M|L] [pairs]');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

async function load(dir: string): Promise<Side> {
  const at = (path: string) => pathToFileURL(resolve(dir, path)).href;
  return {
    parse: (await import(at('schemas/snapshot.ts'))).parseSnapshot,
    build: (await import(at('core/cluster.ts'))).buildCluster,
    compileSets: (await import(at('core/sets/index.ts'))).compileSets,
  };
}

const sides = [await load(dirA), await load(dirB)] as const;
const text = JSON.stringify(GENERATORS[sizeArg as SizeName]());
const snapshots = sides.map((s) => {
  const parsed = s.parse(JSON.parse(text));
  if (!parsed.ok) throw new Error('the generated snapshot does not parse');
  return parsed.snapshot;
});

function run(i: 0 | 1): { ms: number; ir: unknown } {
  const cluster = sides[i].build(snapshots[i]);
  gc!();
  const before = process.cpuUsage();
  const { ir } = sides[i].compileSets(cluster, { sha256Hex: nodeSha256Hex });
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, ir };
}

const hashOf = (ir: unknown) => createHash('sha256').update(JSON.stringify(ir)).digest('hex').slice(0, 16);
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const a: number[] = [];
const b: number[] = [];
const ratios: number[] = [];
for (let p = 0; p < Number(pairsArg); p++) {
  // A first in even pairs, B first in odd ones.
  const [first, second] = p % 2 === 0 ? [run(0), run(1)] : [run(1), run(0)];
  const [ra, rb] = p % 2 === 0 ? [first, second] : [second, first];
  if (p === 0 && hashOf(ra.ir) !== hashOf(rb.ir)) throw new Error(`outputs differ: A ${hashOf(ra.ir)}, B ${hashOf(rb.ir)}`);
  a.push(ra.ms);
  b.push(rb.ms);
  ratios.push(rb.ms / ra.ms);
  console.log(`pair ${p + 1} (${p % 2 === 0 ? 'A' : 'B'} first): A ${ra.ms.toFixed(0)}  B ${rb.ms.toFixed(0)}  B/A ${(rb.ms / ra.ms).toFixed(3)}`);
}
console.log(`${sizeArg}: CPU ms per compile, median A ${median(a).toFixed(0)}, B ${median(b).toFixed(0)}; B/A median ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) over ${ratios.length} pairs; same output`);
