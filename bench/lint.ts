// The lint of generated snapshots: time of one lintRun, findings, the questions left unchecked
// within the budgets, and a hash of both, so two checkouts can show a change keeps every answer.
//
//   node --max-old-space-size=8000 --import tsx bench/lint.ts [S] [M] [L]
import { createHash } from 'node:crypto';
import { buildCluster } from '../core/cluster.js';
import { lintRun } from '../core/lint/index.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { GENERATORS, type SizeName } from './generate.js';

const sizes = process.argv.slice(2).filter((a): a is SizeName => a === 'S' || a === 'M' || a === 'L');
for (const size of sizes.length > 0 ? sizes : (['S', 'M'] as const)) {
  const parsed = parseSnapshot(JSON.parse(JSON.stringify(GENERATORS[size]())));
  if (!parsed.ok) throw new Error(`${size}: ${JSON.stringify(parsed.issues.slice(0, 3))}`);
  const cluster = buildCluster(parsed.snapshot);
  const start = performance.now();
  const run = lintRun(cluster);
  const ms = performance.now() - start;
  const hash = createHash('sha256').update(JSON.stringify([run.findings, run.unchecked])).digest('hex').slice(0, 16);
  const unchecked = run.unchecked.map((u) => `${u.questions} ${u.code}`).join(', ') || 'none';
  console.log(`${size}: lint ${Math.round(ms)} ms, ${run.findings.length} findings, unchecked: ${unchecked}, answers ${hash}`);
}
