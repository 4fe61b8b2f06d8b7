// One PUT of a generated snapshot to the real server of a checkout, started as
// bench/request-path.ts starts it (--max-old-space-size=1536, compute threads capped at the same
// heap, the embedded store, --trace-gc), and nothing else in that server: request → 201 wall time,
// and the compute thread's peak heap in use and its collections during the PUT, from the trace.
// Run it against two checkouts, alternating, to compare a change's L PUT:
//
//   node --import tsx bench/put-once.ts <checkout dir> [S|M|L]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GENERATORS, type SizeName } from './generate.js';

const dir = resolve(process.argv[2] ?? '.');
const size = (process.argv[3] ?? 'L') as SizeName;
const heapMb = 1536;
const text = JSON.stringify(GENERATORS[size]());
const port = 18991;

/** Per isolate: peak heap in use when a collection started (MB), mark-compacts, other collections. */
const isolates = new Map<string, { peakMb: number; markCompacts: number; minor: number }>();
let serving: string | null = null;
let rest = '';
function readTrace(chunk: string): void {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop()!;
  for (const line of lines) {
    const m = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: ([A-Za-z-]+).*? ([\d.]+) \([\d.]+\) -> /.exec(line);
    if (!m) continue;
    // The serving thread starts first, so it collects first.
    serving ??= m[1]!;
    const s = isolates.get(m[1]!) ?? { peakMb: 0, markCompacts: 0, minor: 0 };
    s.peakMb = Math.max(s.peakMb, Number(m[3]));
    if (m[2] === 'Mark-Compact') s.markCompacts++;
    else s.minor++;
    isolates.set(m[1]!, s);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'netpolc-put-'));
const server = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, '--trace-gc', '--import', 'tsx', join(dir, 'functions', 'adapters', 'node.ts')], {
  cwd: dir,
  env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STORE: 'embedded', DATA_DIR: dataDir, MAX_BODY_BYTES: String(512 * 2 ** 20), REQUEST_MEMORY_MB: String(heapMb) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  await new Promise<void>((ready, failed) => {
    server.stdout!.on('data', (d: Buffer) => {
      const s = d.toString();
      if (s.includes('listening')) ready();
      readTrace(s);
    });
    server.once('exit', (code) => failed(new Error(`server exited with ${code}`)));
  });
  const base = `http://127.0.0.1:${port}`;
  while ((await fetch(`${base}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
  isolates.clear();
  const started = performance.now();
  const res = await fetch(`${base}/v1/clusters/bench/snapshots/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
  await res.arrayBuffer();
  const ms = performance.now() - started;
  // Trace lines written just before the answer may still be in the pipe.
  await new Promise((r) => setTimeout(r, 300));
  if (res.status !== 201) throw new Error(`PUT answered ${res.status}`);
  const compute = [...isolates].filter(([id]) => id !== serving).sort((a, b) => b[1].peakMb - a[1].peakMb)[0]?.[1];
  console.log(JSON.stringify({ dir, size, putMs: Math.round(ms), computePeakHeapMb: Math.round(compute?.peakMb ?? 0), computeMarkCompacts: compute?.markCompacts ?? 0, computeMinorCollections: compute?.minor ?? 0, heapLimitMb: heapMb }));
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
