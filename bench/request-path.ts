// The request path end to end, as a client sees it: the real server (`npm start`'s entry,
// functions/adapters/node.ts) in its own process on loopback, and in this process JSON.parse of
// the very bytes sent, so each figure is a ratio measured in one run.
//
//   node --import tsx bench/request-path.ts [S] [M] [L] [--store embedded|memory] [--heap-mb N]
//
// Per size: once /readyz answers 200 (its compute threads started), POST /v1/compile (format
// ir, the set form) three times, median wall time (and each) and response bytes, then --warm N
// more times (2 by default) for the steady state: the median of the last three, none of them the
// first on its thread (a thread's first requests run code not yet optimized, its heap still
// growing); then PUT /v1/clusters/bench/snapshots/1 (request → stored version, 201) on the
// chosen store. The server runs with --max-old-space-size=N (default 1536) and the same cap on
// its compute threads, where compiles and publishes run (REQUEST_MEMORY_MB; 4096 by default, so
// before session 17 the cap held only for the serving thread): a size that needs more heap fails
// here instead of passing unmeasured. Peak RSS is the server's VmHWM; the PUT's peak V8 heap per
// thread (the compute thread that publishes, and the serving thread, which runs the embedded
// store) comes from the server's --trace-gc lines.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATORS, type SizeName as Size } from './generate.js';

const ROOT = join(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1]! : dflt;
};
const sizes = argv.filter((a): a is Size => a === 'S' || a === 'M' || a === 'L');
const store = opt('--store', 'embedded');
const heapMb = Number(opt('--heap-mb', '1536'));
const warmRequests = Number(opt('--warm', '2'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function startServer(port: number, dataDir: string, heaps: HeapPeaks): Promise<ChildProcess> {
  const child = spawn(process.execPath, [`--max-old-space-size=${heapMb}`, '--trace-gc', '--import', 'tsx', join(ROOT, 'functions', 'adapters', 'node.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', STORE: store, DATA_DIR: dataDir, MAX_BODY_BYTES: String(512 * 1024 * 1024), REQUEST_MEMORY_MB: String(heapMb) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child.stdout!.on('data', (d: Buffer) => heaps.read(d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => (d.toString().includes('listening') ? resolve() : undefined));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return child;
}

/**
 * Peak V8 heap per thread of the server, from its --trace-gc lines (`[pid:isolate] … Scavenge
 * 120.1 (130.2) -> …`): the heap in use when each collection started, the most of them per
 * isolate. The first isolate to collect is the serving thread's (it starts first); the others are
 * compute threads. `since()` starts a new window (the PUT's).
 */
class HeapPeaks {
  private first: string | null = null;
  private window = new Map<string, number>();
  private rest = '';
  read(chunk: string): void {
    const lines = (this.rest + chunk).split('\n');
    this.rest = lines.pop()!;
    for (const line of lines) {
      const m = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: [A-Za-z-]+.*? ([\d.]+) \([\d.]+\) -> /.exec(line);
      if (!m) continue;
      this.first ??= m[1]!;
      this.window.set(m[1]!, Math.max(this.window.get(m[1]!) ?? 0, Number(m[2])));
    }
  }
  since(): void {
    this.window = new Map();
  }
  /** Peaks in the window: the serving thread's and the largest compute thread's, MB. */
  peaks(): { servingMb: number; computeMb: number } {
    let computeMb = 0;
    for (const [isolate, mb] of this.window) if (isolate !== this.first) computeMb = Math.max(computeMb, mb);
    return { servingMb: Math.round(this.window.get(this.first ?? '') ?? 0), computeMb: Math.round(computeMb) };
  }
}
function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: number; bytes: number }> {
  const t = performance.now();
  const res = await fetch(url, init);
  const body = await res.arrayBuffer();
  return { ms: performance.now() - t, status: res.status, bytes: body.byteLength };
}

const rows: Record<string, unknown>[] = [];
for (const [i, size] of sizes.entries()) {
  const list = GENERATORS[size]();
  const snapshotText = JSON.stringify(list);
  const compileBody = `{"snapshot":${snapshotText}}`;
  const parse: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    JSON.parse(compileBody);
    parse.push(performance.now() - t);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'netpolc-bench-'));
  const port = 18787 + i;
  const heaps = new HeapPeaks();
  const server = await startServer(port, dataDir, heaps);
  try {
    const base = `http://127.0.0.1:${port}`;
    // As a readiness probe would: the server listens before its compute threads have loaded the
    // app (~2 s), and a request sent then waits for one.
    const ready = performance.now();
    while ((await fetch(`${base}/readyz`)).status !== 200) await new Promise((r) => setTimeout(r, 50));
    const readyMs = performance.now() - ready;
    const compiles: { ms: number; status: number; bytes: number }[] = [];
    for (let r = 0; r < 3; r++) compiles.push(await timed(`${base}/v1/compile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: compileBody }));
    for (let r = 0; r < warmRequests; r++) compiles.push(await timed(`${base}/v1/compile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: compileBody }));
    if (compiles.some((c) => c.status !== 200)) throw new Error(`${size}: /v1/compile answered ${compiles.map((c) => c.status).join(', ')}`);
    heaps.since();
    const put = await timed(`${base}/v1/clusters/bench/snapshots/1`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: snapshotText });
    if (put.status !== 201) throw new Error(`${size}: PUT answered ${put.status}`);
    // Lines written just before the answer may still be in the pipe.
    await new Promise((r) => setTimeout(r, 200));
    const putHeap = heaps.peaks();
    const compileMs = median(compiles.slice(0, 3).map((c) => c.ms));
    const steadyMs = warmRequests > 0 ? median(compiles.slice(-3).map((c) => c.ms)) : null;
    const parseMs = median(parse);
    rows.push({
      size,
      requestMiB: +(Buffer.byteLength(compileBody) / 2 ** 20).toFixed(1),
      jsonParseMs: Math.round(parseMs),
      compileMs: Math.round(compileMs),
      compileEachMs: compiles.map((c) => Math.round(c.ms)).join(' '),
      readyAfterListenMs: Math.round(readyMs),
      compileOverParse: +(compileMs / parseMs).toFixed(1),
      ...(steadyMs !== null ? { steadyMs: Math.round(steadyMs), steadyOverParse: +(steadyMs / parseMs).toFixed(1) } : {}),
      responseMiB: +(compiles[0]!.bytes / 2 ** 20).toFixed(2),
      putStoredMs: Math.round(put.ms),
      serverPeakRssMb: Math.round(peakRssMb(server.pid!)),
      putComputeHeapMb: putHeap.computeMb,
      putServingHeapMb: putHeap.servingMb,
      heapLimitMb: heapMb,
      store,
    });
    console.log(JSON.stringify(rows[rows.length - 1]));
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
console.table(rows);
