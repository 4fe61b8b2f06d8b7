// Validation, cluster build and set compile of two checkouts alternated in ONE process (each
// checkout's own modules, its own parse of the same JSON, a full GC before each run), wall ms per
// stage, medians and minimums per side and their ratios; stops when the set forms differ (and
// prints their hash). The request path's stages after JSON.parse, as `POST /v1/compile` pays
// them, without HTTP.
//   node --expose-gc --max-old-space-size=16000 --import tsx bench/stages-ab.ts <A dir> <B dir> [S|M|L] [pairs]
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GENERATORS, type SizeName } from './generate.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
const [dirA, dirB, size = 'M', pairsArg = '10'] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error('usage: bench/stages-ab.ts <A dir> <B dir> [S|M|L] [pairs]');
const gc = (globalThis as { gc?: () => void }).gc!;
if (typeof gc !== 'function') throw new Error('run with node --expose-gc');
async function load(dir: string) {
  const at = (p: string) => pathToFileURL(resolve(dir, p)).href;
  return { parse: (await import(at('schemas/snapshot.ts'))).parseSnapshot, build: (await import(at('core/cluster.ts'))).buildCluster, sets: (await import(at('core/sets/index.ts'))).compileSets };
}
const sides = [await load(dirA), await load(dirB)];
const text = JSON.stringify(GENERATORS[size as SizeName]());
const t: Record<string, number[]>[] = [{}, {}];
const hashes = ['', ''];
function run(i: number) {
  const s = sides[i]!; const raw = JSON.parse(text); gc();
  let t0 = performance.now(); const p = s.parse(raw); const v = performance.now() - t0;
  t0 = performance.now(); const c = s.build(p.snapshot); const b = performance.now() - t0;
  t0 = performance.now(); const r = s.sets(c, { sha256Hex: nodeSha256Hex }); const k = performance.now() - t0;
  for (const [n, x] of [['validate', v], ['build', b], ['sets', k], ['total', v + b + k]] as const) (t[i]![n] ??= []).push(x);
  hashes[i] = createHash('sha256').update(JSON.stringify(r.ir)).digest('hex').slice(0, 16);
}
for (let p = 0; p < Number(pairsArg); p++) { if (p % 2) { run(1); run(0); } else { run(0); run(1); } if (hashes[0] !== hashes[1]) throw new Error(`outputs differ ${hashes}`); }
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const k of ['validate', 'build', 'sets', 'total']) console.log(k.padEnd(9), 'A med', med(t[0]![k]!).toFixed(0), 'min', Math.min(...t[0]![k]!).toFixed(0), '| B med', med(t[1]![k]!).toFixed(0), 'min', Math.min(...t[1]![k]!).toFixed(0), '| B/A med', (med(t[1]![k]!) / med(t[0]![k]!)).toFixed(3), 'min', (Math.min(...t[1]![k]!) / Math.min(...t[0]![k]!)).toFixed(3));
console.log('hash', hashes[0]);
