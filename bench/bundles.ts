// The two deploy bundles against their platforms' limits: size (raw and gzip) and the time to
// load them (parse and run the module's global scope, which a Worker must do within 1 s and a
// Lambda's init phase within 10 s). The Worker's is what `wrangler deploy --dry-run` writes, the
// Lambda's what `npm run build:lambda` writes (infra/build-lambda.ts). Load time is measured in
// fresh Node processes (median of 5), the Worker's with code generation from strings disallowed
// as workerd disallows it: Node's V8, not workerd's or Lambda's machine, so a figure to read
// against the limit with room, not a prediction.
//
//   node --import tsx bench/bundles.ts
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildLambda } from '../infra/build-lambda.js';

const ROOT = join(import.meta.dirname, '..');
const RUNS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** ms to import the file in a fresh process (its parse and global scope), median of RUNS. */
function loadMs(file: string, flags: string[]): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(`file://${file}`)}); console.log(performance.now() - t);`;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    if (r.status !== 0) throw new Error(`loading ${file} failed:\n${r.stderr}`);
    times.push(Number(r.stdout.trim().split('\n').pop()));
  }
  return median(times);
}

function report(name: string, file: string, flags: string[], limits: string): Record<string, unknown> {
  const bytes = readFileSync(file);
  const row = { bundle: name, kib: Math.round(bytes.length / 1024), gzipKib: Math.round(gzipSync(bytes).length / 1024), loadMs: Math.round(loadMs(file, flags)), limits };
  console.log(JSON.stringify(row));
  return row;
}

const dir = mkdtempSync(join(tmpdir(), 'netpolc-bundles-'));
try {
  const wrangler = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'wrangler', 'bin', 'wrangler.js'), 'deploy', '--dry-run', '--outdir', join(dir, 'worker')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, WRANGLER_SEND_METRICS: 'false' } });
  if (wrangler.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${wrangler.stderr}`);
  // As .mjs: a .js file outside a package with "type": "module" is parsed twice by Node (to tell
  // ESM from CommonJS), which workerd never does.
  copyFileSync(join(dir, 'worker', 'worker.js'), join(dir, 'worker', 'worker.mjs'));
  const rows = [
    report('worker', join(dir, 'worker', 'worker.mjs'), ['--disallow-code-generation-from-strings'], 'startup (parse + global scope) 1 s; 3 MiB gzip (Free), 10 MiB (Paid)'),
    report('lambda', await buildLambda(join(dir, 'lambda')), [], 'init phase 10 s; 250 MB unzipped'),
  ];
  console.table(rows);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
