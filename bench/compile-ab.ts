// Warm compile time of M in one form, median of 7 after a full GC each: a narrower A/B than
// stages.ts when the question is only the compile (run from two checkouts, alternating).
//   node --expose-gc --import tsx bench/compile-ab.ts [sets|flat]
import { GENERATORS } from './generate.js';
import { compile } from '../core/compile/index.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compileSets } from '../core/sets/index.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
const c = buildCluster((parseSnapshot(JSON.parse(JSON.stringify(GENERATORS.M()))) as any).snapshot);
const t: number[] = [];
const form = process.argv[2] === 'flat' ? 'flat' : 'sets';
const run = () => (form === 'flat' ? compile(c, { sha256Hex: nodeSha256Hex }) : compileSets(c, { sha256Hex: nodeSha256Hex }));
for (let i = 0; i < 7; i++) { (globalThis as any).gc(); const s = performance.now(); run(); t.push(performance.now() - s); }
console.log(process.cwd().padEnd(18), `${form} compile, M, median of 7:`, [...t].sort((a, b) => a - b)[3]!.toFixed(0), 'min', Math.min(...t).toFixed(0));
