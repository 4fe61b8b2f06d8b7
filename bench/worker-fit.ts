// The largest full snapshot whose publish fits a Worker's 128 MB isolate. Method: the publish
// path the Worker runs (parse the body, validate, build, compile the set form, write a version
// to a store; the in-memory store, so only the work's own heap counts) in a Node process whose
// V8 heap is capped at 128 MB (--max-old-space-size=128), on snapshots scaled between S and M
// (pods, namespaces, nodes and NetworkPolicies in S's proportions to M's). A size that needs
// more heap dies with V8's out-of-memory error; the largest that completes is reported. Code
// generation from strings is disallowed, as in workerd.
//
//   node --import tsx bench/worker-fit.ts            # scan
//   node --import tsx bench/worker-fit.ts --child N  # one publish of N pods (used by the scan)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const argv = process.argv.slice(2);
const HEAP_MB = 128;

/** A spec between S and M, by pod count (policies and namespaces grow with pods as from S to M). */
async function specFor(pods: number) {
  const { SIZES } = await import('./generate.js');
  const f = (pods - SIZES.S.pods) / (SIZES.M.pods - SIZES.S.pods);
  const lerp = (a: number, b: number) => Math.round(a + (b - a) * f);
  return { ...SIZES.S, pods, namespaces: lerp(SIZES.S.namespaces, SIZES.M.namespaces), nodes: lerp(SIZES.S.nodes, SIZES.M.nodes), networkPolicies: lerp(SIZES.S.networkPolicies, SIZES.M.networkPolicies), adminNetworkPolicies: lerp(5, 20) };
}

async function child(pods: number): Promise<void> {
  const { generateSnapshot } = await import('./generate.js');
  const { createApp } = await import('../functions/app.js');
  const { createMemoryStore } = await import('../infra/store/memory.js');
  const spec = await specFor(pods);
  const text = JSON.stringify(generateSnapshot(spec));
  const bytes = Buffer.byteLength(text);
  // Publish through the app, as the Worker does (portable SHA-256: the Worker has no node:crypto).
  const app = createApp({ store: createMemoryStore({}), maxBodyBytes: 1 << 30, access: { kind: 'anonymous' } });
  const res = await app.request('/v1/clusters/fit/snapshots/1', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
  if (res.status !== 201) throw new Error(`publish answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
  console.log(JSON.stringify({ pods, bytes, heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) }));
}

async function scan(): Promise<void> {
  let best: { pods: number; bytes: number } | null = null;
  for (const pods of [1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 10_000]) {
    // No code generation from strings, as in workerd: zod's object JIT and its compiled schemas
    // fall back to the plain parser there, so the figure is the Worker's.
    const r = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--disallow-code-generation-from-strings', '--import', 'tsx', join(import.meta.dirname, 'worker-fit.ts'), '--child', String(pods)], { encoding: 'utf8' });
    const line = r.stdout.trim().split('\n').pop() ?? '';
    if (r.status === 0 && line.startsWith('{')) {
      const ok = JSON.parse(line) as { pods: number; bytes: number; heapUsedMb: number };
      console.log(`${pods} pods (${(ok.bytes / 2 ** 20).toFixed(1)} MiB JSON): published under a ${HEAP_MB} MB heap`);
      best = ok;
    } else {
      const why = /heap out of memory|Allocation failed/.test(r.stderr) ? 'out of memory' : `exit ${r.status}: ${r.stderr.split('\n').slice(-3).join(' ')}`;
      console.log(`${pods} pods: ${why}`);
      break;
    }
  }
  console.log(best ? `largest publish that fits ${HEAP_MB} MB: ${best.pods} pods, ${(best.bytes / 2 ** 20).toFixed(1)} MiB of JSON` : `none of the sizes fits ${HEAP_MB} MB`);
}

if (argv[0] === '--child') await child(Number(argv[1]));
else await scan();
