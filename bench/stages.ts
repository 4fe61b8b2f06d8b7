// Stage times (median of 3; `canonical`: the canonical JSON of every parsed object) and SHA-256 of the compiled forms of a generated snapshot, to compare
// two checkouts: output must stay byte-identical and the stages within noise. Run it from each
// checkout, alternating:   node --expose-gc --import tsx bench/stages.ts [S|M|L]
import { createHash } from 'node:crypto';
import { GENERATORS, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compileSets } from '../core/sets/index.js';
import { compile } from '../core/compile/index.js';
import { canonicalJson } from '../core/snapshot/hash.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';
const size = (process.argv[2] ?? 'M') as SizeName;
const text = JSON.stringify(GENERATORS[size]());
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const t: Record<string, number[]> = { json: [], parse: [], canonical: [], build: [], sets: [], flat: [] };
let hs = '', hf = '';
for (let i = 0; i < 3; i++) {
  let s = performance.now(); const raw = JSON.parse(text); t.json!.push(performance.now() - s);
  s = performance.now(); const p = parseSnapshot(raw) as any; t.parse!.push(performance.now() - s);
  // What the snapshot hash and the stored object groups write of every object.
  s = performance.now(); for (const o of p.snapshot.objects) canonicalJson(o); t.canonical!.push(performance.now() - s);
  s = performance.now(); const c = buildCluster(p.snapshot); t.build!.push(performance.now() - s);
  s = performance.now(); const r = compileSets(c, { sha256Hex: nodeSha256Hex }); t.sets!.push(performance.now() - s);
  hs = createHash('sha256').update(JSON.stringify(r.ir)).digest('hex').slice(0, 16);
  s = performance.now(); const f = compile(c, { sha256Hex: nodeSha256Hex }); t.flat!.push(performance.now() - s);
  hf = createHash('sha256').update(JSON.stringify(f.ir)).digest('hex').slice(0, 16);
  (globalThis as any).gc?.();
}
console.log(size, process.cwd(), Object.entries(t).map(([k, v]) => `${k} ${med(v).toFixed(0)}`).join('  '), ' sets', hs, 'flat', hf);
