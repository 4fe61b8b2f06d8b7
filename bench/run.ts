// `npm run bench [-- S|M|L|all] [options]`: the compile benchmark at sizes S, M and L plus the
// ip-num vs integer-range micro-benchmark. Each size runs in its own child process (its own
// heap, `--trace-gc` for peak heap, a time limit) and reports back line by line, so a size that
// runs out of time still reports the phases it finished. Figures: bench/README.md.
//
// Options:
//   --profile            CPU-profile compile (node:inspector) → bench/results/compile-<size>.cpuprofile
//                        and print the hot spots (timings of a profiled run are inflated)
//   --no-micro           skip the ip-num micro-benchmark
//   --no-naive           skip the naive baseline
//   --repeat N           time JSON.parse/parseSnapshot/buildCluster/compile N times (median); default 1
//   --sample-nodes N     also time compile(cluster, {nodes}) on N nodes and extrapolate (default 3 at M and L, 0 at S)
//   --no-compile         skip the full compile (parse figures, compile sample and naive baseline only)
//   --timeout-min N      per-size time limit (default S 15, M 60, L 60 minutes)
//   --force-l            run the full L compile even when M compile took more than 10 s (otherwise L
//                        runs without the full compile: parse figures, a compile sample, the naive baseline)
//   --heap-mb N          --max-old-space-size of the children (default 12288)
//   --no-http            skip the request path over HTTP (bench/request-path.ts)
//   --no-changes         skip versions from changes (bench/changes.ts, bench/rollout-live.ts)
//   --no-bounded         skip polls during the worst case, crowded-node reads, the largest bodies and a publish (bench/bounded-work.ts)
//   --report             re-print the report of bench/results/latest.json without running anything
import type { SetCompileStats } from '../core/sets/compile.js';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import { formatMicro, runMicro, type MicroCase } from './ipnum-vs-ranges.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..');
const RESULTS = join(HERE, 'results');
const SIZE_ORDER = ['S', 'M', 'L'] as const;
type Size = (typeof SIZE_ORDER)[number];
const M_LIMIT_FOR_L_MS = 10_000;

// ---------------------------------------------------------------------------------------
// Figures a child reports.

interface Phase {
  readonly name: string;
  /** Median wall-clock ms over the repetitions. */
  readonly ms: number;
  /** Process CPU time (user + system) of the median repetition, ms. */
  readonly cpuMs: number;
  readonly runs: number[];
  /** performance.now() at the start of the first and the end of the last repetition (GC attribution). */
  readonly t0: number;
  readonly t1: number;
  /** process.memoryUsage().heapUsed right at the end of the phase (before any forced GC), MB. */
  readonly heapUsedEndMb: number;
  /** heapUsed after a forced full GC once the phase's inputs that are no longer needed are dropped, MB. */
  readonly liveAfterMb: number;
}

interface Quantiles {
  readonly median: number;
  readonly p99: number;
  readonly max: number;
}

/** The set form (format ir): core/sets/compile.ts stats plus sizes. */
interface SetFigures extends SetCompileStats {
  /** JSON.stringify(ir).length: every set and table once, every node's manifest. */
  readonly bytes: number;
  readonly maxRulesPerTable: number;
  /** Per node with pods: its manifest plus the sets and tables it needs, as JSON bytes. */
  readonly nodeBytes: Quantiles;
}

interface IrFigures {
  readonly subjects: number;
  readonly podDirections: number;
  /** Distinct table ids over the whole IR (content addresses). */
  readonly distinctTables: number;
  /** Σ over nodes of the tables each node holds (a table shared by two nodes counts twice). */
  readonly nodeTables: number;
  readonly groups: number;
  /** Σ over nodes of the rules of the tables the node holds (= stats.rules). */
  readonly rules: number;
  /** Σ over pod × direction of the length of its table (no sharing: what a per-pod dataplane installs). */
  readonly rulesUnshared: number;
  readonly rulesPerNode: Quantiles;
  /** Σ over nodes of the node-global table's rules (Contiv's single-direction table), part of `rules`. */
  readonly globalRules: number;
  readonly rulesPerNodeExclGlobal: Quantiles;
  readonly rulesPerTable: Quantiles;
  /** Bytes of JSON.stringify(ir). */
  readonly bytes: number;
  readonly bytesCheckedAgainstStringify: boolean;
  readonly nodesWithPods: number;
}

interface NaiveFigures {
  readonly expandRanges: boolean;
  readonly rules: number;
  readonly rulesPerNode: Quantiles;
  readonly bytes: number;
  readonly nonEmptyTables: number;
  readonly ms: number;
  /** Pod × direction tables materialised and compared with the counter (rules and bytes). */
  readonly verified: { readonly checked: number; readonly mismatches: number; readonly wholeIrBytesChecked: boolean };
}

interface SizeResult {
  size: Size;
  status: 'ok' | 'failed' | 'timeout' | 'skipped';
  reason?: string;
  /** Set when the size ran without compile (L after a slow M): parse figures and the naive baseline only. */
  compileSkipped?: string;
  spec?: unknown;
  summary?: unknown;
  objects?: number;
  jsonBytes?: number;
  phases: Record<string, Phase>;
  ir?: IrFigures;
  sets?: SetFigures;
  naive?: NaiveFigures;
  naiveExpanded?: NaiveFigures;
  /** compile(cluster, {nodes: sample}) on a few nodes, extrapolated to all nodes hosting pods. */
  compileSample?: { nodes: string[]; ms: number; cpuMs: number; msPerNode: number; hostingNodes: number; extrapolatedMs: number; extrapolatedCpuMs: number; rules: number; tables: number };
  gc?: Record<string, { peakUsedMb: number; peakCommittedMb: number; collections: number; gcMs: number }>;
  maxRssMb?: number;
  warnings?: string[];
  profile?: { file: string; totalMs: number; self: HotSpot[]; inclusive: HotSpot[] };
  wallMs?: number;
}

interface HotSpot {
  readonly fn: string;
  readonly ms: number;
  readonly share: number;
}

// ---------------------------------------------------------------------------------------
// Small helpers.

const mb = (bytes: number) => bytes / (1024 * 1024);
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

function quantiles(values: readonly number[]): Quantiles {
  if (values.length === 0) return { median: 0, p99: 0, max: 0 };
  const s = [...values].sort((a, b) => a - b);
  // Nearest-rank percentiles.
  const rank = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { median: rank(0.5), p99: rank(0.99), max: s[s.length - 1]! };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[(s.length - 1) >> 1]!;
}

function emit(tag: string, value: unknown): void {
  process.stdout.write(`@@${tag} ${JSON.stringify(value)}\n`);
}

const gcNow = () => (globalThis as { gc?: () => void }).gc?.();

// ---------------------------------------------------------------------------------------
// Child: one size.

async function child(size: Size, opts: { repeat: number; profile: boolean; naive: boolean; compile: boolean; sampleNodes: number }): Promise<void> {
  const { GENERATORS, SIZES, summaryOf } = await import('./generate.js');
  const { parseSnapshot } = await import('../schemas/snapshot.js');
  const { buildCluster } = await import('../core/cluster.js');
  const { warningMessages } = await import('../core/warnings.js');
  const { compile } = await import('../core/compile/compile.js');
  const { compileSets } = await import('../core/sets/compile.js');
  const { nodeSha256Hex } = await import('../functions/node-sha256.js');
  const { naiveCounts, naiveRulesOf, naiveIrJson, isSubject } = await import('./naive.js');

  // Calibrate --trace-gc timestamps (ms since isolate start) against performance.now().
  emit('calibrate', { before: performance.now() });
  gcNow();
  emit('calibrate-end', { after: performance.now() });

  const phases: Record<string, Phase> = {};
  const time = <T>(name: string, fn: () => T, runs = 1, drop?: () => void): T => {
    let out!: T;
    const walls: number[] = [];
    const cpus: number[] = [];
    let t0 = 0;
    let t1 = 0;
    for (let i = 0; i < runs; i++) {
      if (i > 0) gcNow();
      const c = cpuMs();
      const start = performance.now();
      if (i === 0) t0 = start;
      out = fn();
      t1 = performance.now();
      walls.push(t1 - start);
      cpus.push(cpuMs() - c);
    }
    const heapUsedEndMb = mb(process.memoryUsage().heapUsed);
    drop?.();
    gcNow();
    const mid = walls.indexOf(median(walls));
    const p: Phase = { name, ms: walls[mid]!, cpuMs: cpus[mid]!, runs: walls, t0, t1, heapUsedEndMb, liveAfterMb: mb(process.memoryUsage().heapUsed) };
    phases[name] = p;
    emit('phase', p);
    return out;
  };

  const spec = SIZES[size];
  emit('spec', spec);
  let snapshot: ReturnType<typeof GENERATORS.S> | null = time('generate', () => GENERATORS[size]());
  emit('summary', summaryOf(snapshot));
  emit('objects', snapshot.items.length);
  let text: string | null = time('stringify', () => JSON.stringify(snapshot), 1, () => (snapshot = null));
  emit('jsonBytes', Buffer.byteLength(text));

  let raw: unknown = time('jsonParse', () => JSON.parse(text!), opts.repeat, () => (text = null));
  let parsed: ReturnType<typeof parseSnapshot> | null = time('parseSnapshot', () => parseSnapshot(raw), opts.repeat, () => (raw = null));
  if (!parsed.ok) {
    emit('error', `snapshot rejected: ${JSON.stringify(parsed.issues.slice(0, 5))}`);
    process.exit(2);
  }
  const snap = parsed.snapshot;
  const cluster = time('buildCluster', () => buildCluster(snap), opts.repeat, () => (parsed = null));
  emit('warnings', warningMessages(cluster.warnings.slice(0, 20)));

  // The node list compile uses: every node object plus every node a pod names, sorted.
  const nodeNames = [...new Set([...cluster.nodes.map((n) => n.name), ...cluster.pods.flatMap((p) => (p.nodeName ? [p.nodeName] : []))])].sort();
  const subjectsOn = new Map<string, number>();
  for (const p of cluster.pods) if (p.nodeName && isSubject(p)) subjectsOn.set(p.nodeName, (subjectsOn.get(p.nodeName) ?? 0) + 1);

  // A compile restricted to a few nodes, spread over the node list, run before the full one
  // (cold caches either way) and extrapolated linearly to every node that hosts pods. Egress
  // tables are shared across nodes, so the first nodes pay for them and the extrapolation
  // errs high on that part; M measures both, so the error is visible there.
  if (opts.sampleNodes > 0) {
    const hosting = nodeNames.filter((n) => (subjectsOn.get(n) ?? 0) > 0);
    const k = Math.min(opts.sampleNodes, hosting.length);
    const sample = Array.from({ length: k }, (_, i) => hosting[Math.floor(((i + 0.5) * hosting.length) / k)]!);
    const c = cpuMs();
    const t = performance.now();
    const r = compile(cluster, { nodes: sample, sha256Hex: nodeSha256Hex });
    const ms = performance.now() - t;
    const cpu = cpuMs() - c;
    const sampled = { nodes: sample, ms, cpuMs: cpu, msPerNode: ms / k, hostingNodes: hosting.length, extrapolatedMs: (ms / k) * hosting.length, extrapolatedCpuMs: (cpu / k) * hosting.length, rules: r.stats.rules, tables: r.stats.tables };
    emit('compileSample', sampled);
    gcNow();
  }

  let podsOnNode: (name: string) => number = () => 0;
  if (opts.compile) {
    // The set form (format ir): tiered tables over shared sets, each once for the whole cluster.
    const sets = time('compileSets', () => compileSets(cluster, { sha256Hex: nodeSha256Hex }), opts.repeat);
    const perNodeBytes: number[] = [];
    for (const node of Object.values(sets.ir.nodes)) {
      let b = JSON.stringify(node).length;
      for (const id of node.sets) b += JSON.stringify(sets.ir.sets.get(id)).length;
      for (const id of node.tables) b += JSON.stringify(sets.ir.tables.get(id)).length;
      if (Object.keys(node.pods).length > 0) perNodeBytes.push(b);
    }
    const tableRules = [...sets.ir.tables.entries()].map(([, t]) => t.admin.length + t.networkPolicy.rules.length + t.baseline.length);
    const setFigures: SetFigures = { ...sets.stats, bytes: JSON.stringify(sets.ir).length, maxRulesPerTable: Math.max(0, ...tableRules), nodeBytes: quantiles(perNodeBytes) };
    emit('sets', setFigures);
    gcNow();
    podsOnNode = await compileAndMeasure();
  }
  else podsOnNode = (name) => subjectsOn.get(name) ?? 0;

  async function compileAndMeasure(): Promise<(name: string) => number> {
    let session: Session | null = null;
    if (opts.profile) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 1000 });
      await session.post('Profiler.start');
    }
    const { ir, stats } = time('compile', () => compile(cluster, { sha256Hex: nodeSha256Hex }), opts.repeat);
    if (session) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(RESULTS, { recursive: true });
      const file = join(RESULTS, `compile-${size}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      emit('profile', { file: relative(ROOT, file), ...hotSpots(profile as CpuProfile) });
      session.disconnect();
    }

    // --- IR figures -------------------------------------------------------------------------
    if (Object.keys(ir.nodes).join('\n') !== nodeNames.join('\n')) emit('error', 'compile returned a different node list than the bench computes');
    const perNode: number[] = [];
    const perNodeLocal: number[] = [];
    let globalRules = 0;
    const perTable: number[] = [];
    const ids = new Set<string>();
    let nodeTables = 0;
    let rulesUnshared = 0;
    let subjects = 0;
    let bytes = '{"nodes":{}}'.length;
    nodeNames.forEach((name, i) => {
      const node = ir.nodes[name]!;
      const podKeys = Object.keys(node.pods);
      let n = 0;
      for (const [id, t] of Object.entries(node.tables)) {
        n += t.length;
        nodeTables++;
        if (!ids.has(id)) {
          ids.add(id);
          perTable.push(t.length);
        }
      }
      for (const k of podKeys) {
        const p = node.pods[k]!;
        rulesUnshared += (node.tables[p.ingress]?.length ?? 0) + (node.tables[p.egress]?.length ?? 0);
        subjects++;
      }
      const global = node.global ? node.tables[node.global]?.length ?? 0 : 0;
      globalRules += global;
      if (podKeys.length > 0) {
        perNode.push(n);
        perNodeLocal.push(n - global);
      }
      // JSON.stringify(ir) without building one string (L can pass V8's string limit).
      bytes += (i > 0 ? 1 : 0) + JSON.stringify(name).length + 1 + JSON.stringify(node).length;
    });
    let checked = false;
    if (size === 'S') {
      checked = JSON.stringify(ir).length === bytes;
      if (!checked) emit('error', 'IR byte count differs from JSON.stringify(ir).length');
    }
    const irFigures: IrFigures = {
      subjects,
      podDirections: subjects * 2,
      distinctTables: ids.size,
      nodeTables,
      groups: stats.groups,
      rules: stats.rules,
      rulesUnshared,
      rulesPerNode: quantiles(perNode),
      globalRules,
      rulesPerNodeExclGlobal: quantiles(perNodeLocal),
      rulesPerTable: quantiles(perTable),
      bytes,
      bytesCheckedAgainstStringify: checked,
      nodesWithPods: perNode.length,
    };
    emit('ir', irFigures);
    return (name) => Object.keys(ir.nodes[name]?.pods ?? {}).length;
  }

  // --- naive baseline ---------------------------------------------------------------------
  if (opts.naive) {
    for (const expandRanges of [false, true]) {
      const t = performance.now();
      const r = naiveCounts(cluster, nodeNames, { expandRanges });
      const ms = performance.now() - t;
      // Spot-check the counter against materialised tables: up to 150 pod × direction tables
      // small enough to build (≤ 200k rules), spread over the cluster.
      const subjectsList = cluster.pods.filter((p) => isSubject(p) && p.nodeName !== null);
      let checkedTables = 0;
      let mismatches = 0;
      const want = 150;
      const step = Math.max(1, Math.floor((subjectsList.length * 2) / want));
      for (let k = 0; k < subjectsList.length * 2 && checkedTables < want; k += step) {
        const pod = subjectsList[k >> 1]!;
        const dir = k % 2 === 0 ? 'ingress' : 'egress';
        const tally = r.perPodDir.get(`${pod.key}|${dir}`)!;
        if (tally.rules > 200_000) continue;
        const rules = naiveRulesOf(cluster, pod, dir, { expandRanges });
        const json = JSON.stringify(rules).length;
        const expected = tally.bytes + Math.max(0, tally.rules - 1) + 2;
        if (rules.length !== tally.rules || json !== expected) mismatches++;
        checkedTables++;
      }
      // Whole naive IR, materialised, when it is small enough to hold as one string.
      let whole = false;
      if (r.bytes < 200 * 1024 * 1024) {
        const s = naiveIrJson(cluster, nodeNames, { expandRanges });
        whole = s.length === r.bytes;
        if (!whole) mismatches++;
      }
      const f: NaiveFigures = {
        expandRanges,
        rules: r.rules,
        rulesPerNode: quantiles(nodeNames.filter((n) => podsOnNode(n) > 0).map((n) => r.rulesPerNode.get(n) ?? 0)),
        bytes: r.bytes,
        nonEmptyTables: r.nonEmptyTables,
        ms,
        verified: { checked: checkedTables, mismatches, wholeIrBytesChecked: whole },
      };
      emit(expandRanges ? 'naiveExpanded' : 'naive', f);
      gcNow();
    }
  }
  emit('maxRssMb', process.resourceUsage().maxRSS / 1024);
  emit('done', true);
}

// ---------------------------------------------------------------------------------------
// CPU profile → hot spots.

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; hitCount?: number; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

function hotSpots(profile: CpuProfile): { totalMs: number; self: HotSpot[]; inclusive: HotSpot[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // tsx serves transpiled code; map positions back to the TypeScript source lines.
  const original = (url: string, line: number, column: number): number => {
    try {
      const e = findSourceMap(url)?.findEntry(line, column) as { originalLine?: number } | undefined;
      return e?.originalLine !== undefined ? e.originalLine + 1 : line + 1;
    } catch {
      return line + 1;
    }
  };
  const keys = new Map<number, string>();
  const key = (n: CpuProfile['nodes'][number]) => {
    let k = keys.get(n.id);
    if (k === undefined) {
      const cf = n.callFrame;
      const url = cf.url.replace(/^file:\/\//, '');
      const file = url.startsWith(ROOT) ? relative(ROOT, url) : url.replace(/.*node_modules\//, 'node_modules/') || '(native)';
      const line = cf.url.startsWith('file://') && cf.lineNumber >= 0 ? original(cf.url, cf.lineNumber, cf.columnNumber) : cf.lineNumber + 1;
      k = `${file}:${cf.functionName || '(anonymous)'}:${line}`;
      keys.set(n.id, k);
    }
    return k;
  };
  const totalHits = profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msPerHit = totalHits > 0 ? totalMs / totalHits : 0;
  const self = new Map<string, number>();
  for (const n of profile.nodes) self.set(key(n), (self.get(key(n)) ?? 0) + (n.hitCount ?? 0));
  // Inclusive: a node's subtree hits, counted once per function even under recursion.
  const subtree = new Map<number, number>();
  const sum = (id: number): number => {
    const n = byId.get(id)!;
    let s = n.hitCount ?? 0;
    for (const c of n.children ?? []) s += sum(c);
    subtree.set(id, s);
    return s;
  };
  const root = profile.nodes[0]!;
  sum(root.id);
  const inclusive = new Map<string, number>();
  const onPath = new Map<string, number>();
  const walk = (id: number) => {
    const n = byId.get(id)!;
    const k = key(n);
    const depth = onPath.get(k) ?? 0;
    if (depth === 0) inclusive.set(k, (inclusive.get(k) ?? 0) + subtree.get(id)!);
    onPath.set(k, depth + 1);
    for (const c of n.children ?? []) walk(c);
    onPath.set(k, depth);
  };
  walk(root.id);
  const top = (m: Map<string, number>, filter: (k: string) => boolean, count: number): HotSpot[] =>
    [...m]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([fn, hits]) => ({ fn, ms: hits * msPerHit, share: totalHits > 0 ? hits / totalHits : 0 }));
  return {
    totalMs,
    self: top(self, (k) => !k.startsWith('(root)') && !k.includes(':(root):') && !k.includes(':(program):') && !k.includes(':(idle):'), 25),
    inclusive: top(inclusive, (k) => k.startsWith('core/') || k.startsWith('node_modules/') || k.includes('(garbage collector)'), 25),
  };
}

// ---------------------------------------------------------------------------------------
// Parent: spawn children, collect, print, save.

const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: (.+?) ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB, ([\d.]+) \/ ([\d.]+) ms/;

interface GcEvent {
  readonly at: number;
  readonly kind: string;
  readonly beforeMb: number;
  readonly beforeCommittedMb: number;
  readonly afterMb: number;
  readonly ms: number;
  readonly testing: boolean;
}

function runSize(size: Size, args: { repeat: number; profile: boolean; naive: boolean; compile: boolean; sampleNodes: number; timeoutMin: number; heapMb: number }): Promise<SizeResult> {
  return new Promise((resolvePromise) => {
    const started = performance.now();
    const result: SizeResult = { size, status: 'failed', phases: {} };
    const gcs: GcEvent[] = [];
    let calibrateBefore: number | null = null;
    const childArgs = [
      '--import', 'tsx',
      '--expose-gc', '--trace-gc',
      `--max-old-space-size=${args.heapMb}`,
      fileURLToPath(import.meta.url),
      '--child', size, '--repeat', String(args.repeat),
      ...(args.profile ? ['--profile'] : []),
      ...(args.naive ? [] : ['--no-naive']),
      ...(args.compile ? [] : ['--no-compile']),
      '--sample-nodes', String(args.sampleNodes),
    ];
    const proc = spawn(process.execPath, childArgs, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    const errors: string[] = [];
    const handle = (line: string) => {
      const gc = GC_LINE.exec(line);
      if (gc) {
        gcs.push({ at: Number(gc[1]), kind: gc[2]!, beforeMb: Number(gc[3]), beforeCommittedMb: Number(gc[4]), afterMb: Number(gc[5]), ms: Number(gc[7]), testing: line.includes(' testing') });
        return;
      }
      if (!line.startsWith('@@')) {
        if (line.trim()) process.stderr.write(`  [${size}] ${line}\n`);
        return;
      }
      const sp = line.indexOf(' ');
      const tag = line.slice(2, sp);
      const value = JSON.parse(line.slice(sp + 1)) as unknown;
      switch (tag) {
        case 'calibrate':
          calibrateBefore = (value as { before: number }).before;
          break;
        case 'phase': {
          const p = value as Phase;
          result.phases[p.name] = p;
          process.stderr.write(`  [${size}] ${p.name.padEnd(14)} ${p.ms.toFixed(0).padStart(9)} ms wall ${p.cpuMs.toFixed(0).padStart(9)} ms cpu   heap at end ${p.heapUsedEndMb.toFixed(0)} MB, live after ${p.liveAfterMb.toFixed(0)} MB\n`);
          break;
        }
        case 'spec': result.spec = value; break;
        case 'summary': result.summary = value; break;
        case 'objects': result.objects = value as number; break;
        case 'jsonBytes': result.jsonBytes = value as number; break;
        case 'warnings': result.warnings = value as string[]; break;
        case 'sets': result.sets = value as SetFigures; process.stderr.write(`  [${size}] set form: ${JSON.stringify(value)}\n`); break;
        case 'ir': result.ir = value as IrFigures; process.stderr.write(`  [${size}] IR: ${JSON.stringify(value)}\n`); break;
        case 'naive': result.naive = value as NaiveFigures; process.stderr.write(`  [${size}] naive: ${JSON.stringify(value)}\n`); break;
        case 'naiveExpanded': result.naiveExpanded = value as NaiveFigures; process.stderr.write(`  [${size}] naive (per port): ${JSON.stringify(value)}\n`); break;
        case 'compileSample': result.compileSample = value as SizeResult['compileSample']; process.stderr.write(`  [${size}] compile sample: ${JSON.stringify(value)}\n`); break;
        case 'profile': result.profile = value as SizeResult['profile']; break;
        case 'maxRssMb': result.maxRssMb = value as number; break;
        case 'error': errors.push(String(value)); break;
        case 'done': result.status = 'ok'; break;
      }
    };
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        handle(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
    });
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (chunk: string) => {
      for (const l of chunk.split('\n')) if (l.trim()) process.stderr.write(`  [${size}] ${l}\n`);
    });
    const timer = setTimeout(() => {
      result.status = 'timeout';
      result.reason = `did not finish within ${args.timeoutMin} min`;
      proc.kill('SIGKILL');
    }, args.timeoutMin * 60_000);
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (buf) handle(buf);
      result.wallMs = performance.now() - started;
      if (result.status === 'failed') result.reason = [`child exited with ${signal ?? `code ${code}`}`, ...errors].join('; ');
      else if (errors.length) result.reason = errors.join('; ');
      // Attribute GC events to phases: trace times are ms since isolate start; the forced GC
      // right after the 'calibrate' line gives the offset to performance.now().
      const cal = gcs.find((g) => g.testing);
      if (cal && calibrateBefore !== null) {
        const offset = cal.at - calibrateBefore;
        const gc: NonNullable<SizeResult['gc']> = {};
        for (const p of Object.values(result.phases)) {
          // The whole phase window, all repetitions (forced GCs between them are excluded).
          const inside = gcs.filter((g) => !g.testing && g.at - offset >= p.t0 - 1 && g.at - offset <= p.t1 + 1);
          gc[p.name] = {
            peakUsedMb: Math.max(p.heapUsedEndMb, ...inside.map((g) => g.beforeMb)),
            peakCommittedMb: Math.max(0, ...inside.map((g) => g.beforeCommittedMb)),
            collections: inside.length,
            gcMs: inside.reduce((s, g) => s + g.ms, 0),
          };
        }
        result.gc = gc;
      }
      resolvePromise(result);
    });
  });
}

// ---------------------------------------------------------------------------------------
// Report.

const fmtInt = (n: number | undefined) => (n === undefined ? '—' : Math.round(n).toLocaleString('en-US'));
const fmtMs = (n: number | undefined) => (n === undefined ? '—' : n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const fmtMb = (n: number | undefined) => (n === undefined ? '—' : n >= 100 ? n.toFixed(0) : n.toFixed(1));
const fmtBytes = (n: number | undefined) => (n === undefined ? '—' : n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GiB` : `${mb(n).toFixed(1)} MiB`);
const fmtRatio = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? '—' : n >= 100 ? `${Math.round(n).toLocaleString('en-US')}×` : `${n.toFixed(n >= 10 ? 1 : 2)}×`);
const fmtDur = (ms: number) => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`);
const fmtQ = (q: Quantiles | undefined) => (q ? `${fmtInt(q.median)} / ${fmtInt(q.p99)} / ${fmtInt(q.max)}` : '—');

function table(results: readonly SizeResult[]): string {
  const rows: [string, (r: SizeResult) => string][] = [
    ['status', (r) => (r.status === 'ok' ? (r.compileSkipped ? 'ok (no full compile)' : 'ok') : `${r.status}`)],
    ['objects (pods/NPs/ANPs)', (r) => {
      const s = r.summary as { pods: number; networkPolicies: number; adminNetworkPolicies: number; baselineAdminNetworkPolicies: number } | undefined;
      return s ? `${fmtInt(r.objects)} (${fmtInt(s.pods)}/${fmtInt(s.networkPolicies)}/${s.adminNetworkPolicies}+${s.baselineAdminNetworkPolicies})` : fmtInt(r.objects);
    }],
    ['snapshot JSON', (r) => fmtBytes(r.jsonBytes)],
    ['JSON.parse ms (floor)', (r) => fmtMs(r.phases.jsonParse?.ms)],
    ['parseSnapshot ms', (r) => fmtMs(r.phases.parseSnapshot?.ms)],
    ['buildCluster ms', (r) => fmtMs(r.phases.buildCluster?.ms)],
    ['set form: compile ms wall', (r) => fmtMs(r.phases.compileSets?.ms)],
    ['set form: peak heap in compile MB', (r) => fmtMb(r.gc?.compileSets?.peakUsedMb)],
    ['set form: tables / rules / max per table', (r) => (r.sets ? `${fmtInt(r.sets.tables)} / ${fmtInt(r.sets.rules)} / ${r.sets.maxRulesPerTable}` : '—')],
    ['set form: sets / members', (r) => (r.sets ? `${fmtInt(r.sets.sets)} / ${fmtInt(r.sets.members)}` : '—')],
    ['set form: JSON (ir)', (r) => fmtBytes(r.sets?.bytes)],
    ['set form: per node med/p99/max bytes', (r) => fmtQ(r.sets?.nodeBytes)],
    ['RATIO ir-flat / ir bytes', (r) => fmtRatio(ratio(r.ir?.bytes, r.sets?.bytes))],
    ['RATIO set form compile / JSON.parse', (r) => fmtRatio(ratio(r.phases.compileSets?.ms, r.phases.jsonParse?.ms))],
    ['flat (ir-flat): compile ms wall', (r) => (r.phases.compile ? fmtMs(r.phases.compile.ms) : r.compileSkipped ? 'not run' : r.status === 'timeout' ? `> ${r.reason?.match(/\d+ min/)?.[0] ?? '?'}` : '—')],
    ['compile ms cpu', (r) => fmtMs(r.phases.compile?.cpuMs)],
    ['compile sample: per node', (r) => (r.compileSample ? `${fmtDur(r.compileSample.msPerNode)} (${r.compileSample.nodes.length} nodes)` : '—')],
    ['  × nodes with pods (upper bound)', (r) => (r.compileSample ? `~${fmtDur(r.compileSample.extrapolatedMs)} (×${r.compileSample.hostingNodes})` : '—')],
    ['peak heap parse+build MB', (r) => fmtMb(Math.max(r.gc?.jsonParse?.peakUsedMb ?? 0, r.gc?.parseSnapshot?.peakUsedMb ?? 0, r.gc?.buildCluster?.peakUsedMb ?? 0) || undefined)],
    ['heap before compile MB', (r) => fmtMb(r.phases.buildCluster?.liveAfterMb)],
    ['peak heap in compile MB', (r) => fmtMb(r.gc?.compile?.peakUsedMb)],
    ['live heap after compile MB', (r) => fmtMb(r.phases.compile?.liveAfterMb)],
    ['max RSS of the run MB', (r) => fmtMb(r.maxRssMb)],
    ['pod × direction', (r) => fmtInt(r.ir?.podDirections)],
    ['distinct tables (global)', (r) => fmtInt(r.ir?.distinctTables)],
    ['Σ tables per node', (r) => fmtInt(r.ir?.nodeTables)],
    ['rules (Σ per node)', (r) => fmtInt(r.ir?.rules)],
    ['rules/node med/p99/max', (r) => fmtQ(r.ir?.rulesPerNode)],
    ['  of which global tables (Σ)', (r) => fmtInt(r.ir?.globalRules)],
    ['  per node w/o global m/p99/max', (r) => fmtQ(r.ir?.rulesPerNodeExclGlobal)],
    ['rules/table med/p99/max', (r) => fmtQ(r.ir?.rulesPerTable)],
    ['rules unshared (Σ pod×dir)', (r) => fmtInt(r.ir?.rulesUnshared)],
    ['IR JSON', (r) => fmtBytes(r.ir?.bytes)],
    ['naive rules (range = 1)', (r) => fmtInt(r.naive?.rules)],
    ['naive rules/node m/p99/max', (r) => fmtQ(r.naive?.rulesPerNode)],
    ['naive JSON (range = 1)', (r) => fmtBytes(r.naive?.bytes)],
    ['naive rules (1 per port)', (r) => fmtInt(r.naiveExpanded?.rules)],
    ['naive JSON (1 per port)', (r) => fmtBytes(r.naiveExpanded?.bytes)],
    ['naive check (tables/bad)', (r) => (r.naive ? `${r.naive.verified.checked + (r.naiveExpanded?.verified.checked ?? 0)}/${r.naive.verified.mismatches + (r.naiveExpanded?.verified.mismatches ?? 0)}${r.naive.verified.wholeIrBytesChecked ? ' +whole' : ''}` : '—')],
    ['RATIO compile / JSON.parse', (r) => fmtRatio(ratio(r.phases.compile?.ms, r.phases.jsonParse?.ms))],
    ['RATIO naive/ours rules (r=1)', (r) => fmtRatio(ratio(r.naive?.rules, r.ir?.rules))],
    ['RATIO naive/ours rules (r=1, w/o global)', (r) => fmtRatio(ratio(r.naive?.rules, r.ir ? r.ir.rules - r.ir.globalRules : undefined))],
    ['RATIO naive/ours rules (port)', (r) => fmtRatio(ratio(r.naiveExpanded?.rules, r.ir?.rules))],
    ['RATIO naive/ours bytes (r=1)', (r) => fmtRatio(ratio(r.naive?.bytes, r.ir?.bytes))],
    ['RATIO naive/ours bytes (port)', (r) => fmtRatio(ratio(r.naiveExpanded?.bytes, r.ir?.bytes))],
  ];
  const w0 = Math.max(...rows.map(([l]) => l.length));
  const cols = results.map((r) => Math.max(r.size.length, ...rows.map(([, f]) => f(r).length)));
  const line = (label: string, cells: string[]) => `${label.padEnd(w0)} | ${cells.map((c, i) => c.padStart(cols[i]!)).join(' | ')}`;
  const out = [line('', results.map((r) => r.size)), `${'-'.repeat(w0)}-+-${cols.map((c) => '-'.repeat(c)).join('-+-')}`];
  for (const [label, f] of rows) out.push(line(label, results.map(f)));
  return out.join('\n');
}

function ratio(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || b === 0 ? undefined : a / b;
}

function growth(results: readonly SizeResult[]): string {
  const parsedOk = results.filter((r) => r.phases.jsonParse);
  if (parsedOk.length < 2) return '';
  const figures: [string, (r: SizeResult) => number | undefined][] = [
    ['pods', (r) => (r.summary as { pods?: number } | undefined)?.pods],
    ['snapshot JSON bytes', (r) => r.jsonBytes],
    ['JSON.parse', (r) => r.phases.jsonParse?.ms],
    ['parseSnapshot', (r) => r.phases.parseSnapshot?.ms],
    ['buildCluster', (r) => r.phases.buildCluster?.ms],
    ['compile (set form)', (r) => r.phases.compileSets?.ms],
    ['set form JSON bytes', (r) => r.sets?.bytes],
    ['compile (flat)', (r) => r.phases.compile?.ms],
    ['compile (sample-extrapolated)', (r) => r.compileSample?.extrapolatedMs],
    ['peak heap in compile', (r) => r.gc?.compile?.peakUsedMb],
    ['distinct tables', (r) => r.ir?.distinctTables],
    ['rules', (r) => r.ir?.rules],
    ['IR JSON bytes', (r) => r.ir?.bytes],
    ['naive rules (range = 1)', (r) => r.naive?.rules],
  ];
  const pairs: [SizeResult, SizeResult][] = [];
  for (let i = 1; i < parsedOk.length; i++) pairs.push([parsedOk[i - 1]!, parsedOk[i]!]);
  const lines = [`growth (×) ${pairs.map(([a, b]) => `${a.size}→${b.size}`).join('   ')}`];
  for (const [label, f] of figures) lines.push(`  ${label.padEnd(24)} ${pairs.map(([a, b]) => fmtRatio(ratio(f(b), f(a))).padStart(10)).join(' ')}`);
  return lines.join('\n');
}

function environment(): Record<string, unknown> {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  };
  // What was measured: HEAD plus a digest of core/ and schemas/ as they were (others edit them).
  const h = createHash('sha256');
  const walk = (dir: string) => {
    for (const f of readdirSync(dir).sort()) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.ts')) h.update(relative(ROOT, p)).update('\0').update(readFileSync(p)).update('\0');
    }
  };
  walk(join(ROOT, 'core'));
  walk(join(ROOT, 'schemas'));
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    loadAverageAtStart: loadavg(),
    gitHead: git(['rev-parse', 'HEAD']),
    gitDirty: git(['status', '--porcelain', '--', 'core', 'schemas'])?.split('\n').filter(Boolean) ?? null,
    coreDigest: h.digest('hex').slice(0, 16),
  };
}

async function parent(argv: string[]): Promise<void> {
  const flag = (name: string) => argv.includes(name);
  const value = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const which = argv.find((a) => /^(S|M|L|all)$/i.test(a))?.toUpperCase() ?? 'ALL';
  const sizes: Size[] = which === 'ALL' ? [...SIZE_ORDER] : [which as Size];
  const repeat = Number(value('--repeat') ?? 1);
  const heapMb = Number(value('--heap-mb') ?? 12288);
  const timeoutFor = (s: Size) => Number(value('--timeout-min') ?? (s === 'S' ? 15 : 60));
  if (flag('--report')) {
    // Re-print the last run's report from bench/results/latest.json.
    const saved = JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8')) as { environment: Record<string, unknown>; results: SizeResult[]; micro: MicroCase[] | null };
    report(saved.results, saved.micro);
    console.log(`\nmeasured ${String(saved.environment.date)} on ${String(saved.environment.cpus)} CPUs, core ${String(saved.environment.coreDigest)} (HEAD ${String(saved.environment.gitHead).slice(0, 7)})`);
    return;
  }
  const env = environment();
  console.log(`netpolc bench: sizes ${sizes.join(', ')}; node ${process.version}, ${env.cpus} CPUs (${String(env.cpuModel)}), load ${loadavg().map((x) => x.toFixed(1)).join(' ')}; core ${String(env.coreDigest)}${(env.gitDirty as string[] | null)?.length ? ' (uncommitted core/schemas changes)' : ''}`);

  const results: SizeResult[] = [];
  for (const size of sizes) {
    const m = results.find((r) => r.size === 'M');
    let compileSkipped: string | undefined;
    if (size === 'L' && !flag('--force-l') && m) {
      const mCompile = m.phases.compile?.ms;
      if (mCompile === undefined || mCompile > M_LIMIT_FOR_L_MS) {
        compileSkipped = `M compile ${mCompile === undefined ? `did not finish (${m.reason ?? m.status})` : `took ${(mCompile / 1000).toFixed(1)} s`} > ${M_LIMIT_FOR_L_MS / 1000} s, and L has 10× the pods, 10× the nodes and 7.5× the policies (--force-l runs it anyway)`;
        console.log(`\n[L] compile skipped: ${compileSkipped}; measuring parse and the naive baseline only`);
      }
    }
    console.log(`\n[${size}] running (time limit ${timeoutFor(size)} min, heap cap ${heapMb} MB)…`);
    const sampleNodes = Number(value('--sample-nodes') ?? (size === 'S' ? 0 : 3));
    const r = await runSize(size, { repeat, profile: flag('--profile'), naive: !flag('--no-naive'), compile: compileSkipped === undefined && !flag('--no-compile'), sampleNodes, timeoutMin: timeoutFor(size), heapMb });
    if (compileSkipped) r.compileSkipped = compileSkipped;
    console.log(`[${size}] ${r.status}${r.reason ? ` (${r.reason})` : ''} in ${((r.wallMs ?? 0) / 1000).toFixed(1)} s`);
    if (r.profile) printProfile(r);
    results.push(r);
  }

  let micro: MicroCase[] | null = null;
  if (!flag('--no-micro')) {
    console.log('\n[micro] ip-num vs integer ranges (about a minute: ip-num is slow)…');
    micro = runMicro();
  }

  report(results, micro);

  // The request path over HTTP, each size against JSON.parse of its own request body.
  if (!flag('--no-http')) {
    console.log(`\n[http] POST /v1/compile and PUT …/snapshots through the real server on loopback (bench/request-path.ts ${sizes.join(' ')})…`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'request-path.ts'), ...sizes], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) process.exitCode = 1;
  }

  // Versions from changes on the embedded store: warm and cold publishes, store writes, bytes per node.
  if (!flag('--no-changes')) {
    for (const size of sizes) {
      console.log(`\n[changes] one-pod, rolling-update and policy-edit versions from changes (bench/changes.ts ${size})…`);
      // At L, fetching a node's tables reads thousands of set bodies from the embedded store:
      // one node's deltas are fetched, and the poll of every node after the rolling update and
      // the AdminNetworkPolicy edit (over an hour each) is skipped.
      const limits = size === 'L' ? ['--sample', '1', '--no-rolling-fetch'] : [];
      const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', join(ROOT, 'bench', 'changes.ts'), size, ...limits], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) process.exitCode = 1;
      // A live snapshot's rollout step (its ReplicaSets change with the pods), against the same pods alone.
      // At L the Deployments would take the snapshot past the 250,000-object limit: ReplicaSets only.
      console.log(`\n[changes] a rollout step on a live snapshot, its workloads held (bench/rollout-live.ts ${size})…`);
      const rollout = spawnSync(process.execPath, ['--expose-gc', `--max-old-space-size=${heapMb}`, '--import', 'tsx', join(ROOT, 'bench', 'rollout-live.ts'), size, ...(size === 'L' ? ['--no-deployments'] : [])], { cwd: ROOT, stdio: 'inherit' });
      if (rollout.status !== 0) process.exitCode = 1;
    }
  }

  // Node polls while the worst case computes, and the largest bodies the default budgets take.
  if (!flag('--no-bounded')) {
    console.log('\n[bounded] polls during the worst case, crowded-node reads, the largest bodies and a publish (bench/bounded-work.ts)…');
    const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--import', 'tsx', join(ROOT, 'bench', 'bounded-work.ts')], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) process.exitCode = 1;
  }

  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, 'latest.json');
  writeFileSync(file, JSON.stringify({ environment: { ...env, loadAverageAtEnd: loadavg() }, argv, results, micro }, null, 2) + '\n');
  console.log(`\nraw figures: ${relative(ROOT, file)}`);
  if (results.some((r) => r.naive && (r.naive.verified.mismatches > 0 || (r.naiveExpanded?.verified.mismatches ?? 0) > 0)) || micro?.some((c) => !c.sameSet)) process.exitCode = 1;
}

function report(results: readonly SizeResult[], micro: readonly MicroCase[] | null): void {
  console.log('\n' + table(results));
  console.log('\nheap: V8 --trace-gc, the largest heap-used figure before any GC inside the phase (or at its end); live = heapUsed after a forced full GC.');
  const g = growth(results);
  if (g) console.log('\n' + g);
  if (micro) console.log('\n' + formatMicro(micro));
  const m = results.find((r) => r.size === 'M' && r.phases.compile);
  if (m) {
    const compileS = m.phases.compile!.ms / 1000;
    const heap = m.gc?.compile?.peakUsedMb;
    const r = ratio(m.naive?.rules, m.ir?.rules);
    console.log(`\ntargets for M: compile ≤ 2 s: ${compileS.toFixed(1)} s ${compileS <= 2 ? 'MET' : 'NOT MET'}; heap ≤ 512 MB: ${heap === undefined ? '?' : `${heap.toFixed(0)} MB`} ${heap !== undefined && heap <= 512 ? 'MET' : 'NOT MET'}; ≥ 10× fewer rules than naive: ${fmtRatio(r)} ${r !== undefined && r >= 10 ? 'MET' : 'NOT MET'}`);
  }
}

function printProfile(r: SizeResult): void {
  const p = r.profile!;
  console.log(`[${r.size}] compile CPU profile (${p.file}, ${fmtMs(p.totalMs)} ms profiled); self time:`);
  for (const h of p.self.slice(0, 15)) console.log(`    ${(h.share * 100).toFixed(1).padStart(5)}%  ${fmtMs(h.ms).padStart(8)} ms  ${h.fn}`);
  console.log('  inclusive (core/ and libraries):');
  for (const h of p.inclusive.slice(0, 20)) console.log(`    ${(h.share * 100).toFixed(1).padStart(5)}%  ${fmtMs(h.ms).padStart(8)} ms  ${h.fn}`);
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  const num = (name: string, dflt: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  await child(argv[1] as Size, { repeat: num('--repeat', 1), profile: argv.includes('--profile'), naive: !argv.includes('--no-naive'), compile: !argv.includes('--no-compile'), sampleNodes: num('--sample-nodes', 0) });
} else {
  await parent(argv);
}
