// Render times (median of 3) and SHA-256 of the output of the vpp-session, vpp-acl and openstack-sg
// renderers on a generated snapshot, to compare two checkouts: output byte-identical, time
// before/after. Run it from each checkout, alternating:
//   node --expose-gc --import tsx bench/render-ab.ts [S|M] [pods] [--formats a,b] [--runs N]
// `pods` keeps that many pods (and everything else), to size a run between S and M. Port ranges
// become their first port: VPPTCP session rules take single ports, and the generated ranges
// expand past the per-node rule limit.
import { createHash } from 'node:crypto';
import { GENERATORS, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { compileSets } from '../core/sets/index.js';
import { compile } from '../core/compile/index.js';
import { DATAPLANES } from '../core/render/index.js';
import { nodeSha256Hex } from '../functions/node-sha256.js';

const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv.splice(argv.indexOf(name), 2)[1] : undefined);
const formats = (option('--formats') ?? 'vpp-session,vpp-acl,openstack-sg').split(',');
const runs = Number(option('--runs') ?? 3);
const size = (argv[0] ?? 'S') as SizeName;
const keepPods = argv[1] === undefined ? Infinity : Number(argv[1]);
const all = GENERATORS[size]();
let pods = 0;
// endPort dropped; an AdminNetworkPolicy portRange becomes the portNumber of its start.
const singlePort = (k: string, v: unknown): unknown => {
  if (k === 'endPort') return undefined;
  const range = v && typeof v === 'object' ? (v as { portRange?: { protocol: string; start: number } }).portRange : undefined;
  return range ? { portNumber: { protocol: range.protocol, port: range.start } } : v;
};
const items = JSON.parse(JSON.stringify(all.items.filter((o) => o.kind !== 'Pod' || ++pods <= keepPods)), singlePort) as typeof all.items;
const parsed = parseSnapshot({ ...all, items });
if (!parsed.ok) throw new Error('generated snapshot does not parse');
const cluster = buildCluster(parsed.snapshot);
const sets = compileSets(cluster, { sha256Hex: nodeSha256Hex }).ir;
const flat = formats.some((f) => f !== 'openstack-sg') ? compile(cluster, { sha256Hex: nodeSha256Hex }).ir : { nodes: {} };
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const out: string[] = [];
for (const [format, input] of [['vpp-session', flat], ['vpp-acl', flat], ['openstack-sg', sets]] as const) {
  if (!formats.includes(format)) continue;
  const d = DATAPLANES[format]!;
  const times: number[] = [];
  let hash = '';
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    const started = performance.now();
    const rendered = d.render(input as never);
    times.push(performance.now() - started);
    const text = JSON.stringify(rendered);
    bytes = text.length;
    hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  }
  out.push(`${format} ${med(times).toFixed(0)} ms ${hash} ${(bytes / 1e6).toFixed(2)} MB`);
}
console.log(size, Math.min(pods, keepPods), 'pods', process.cwd(), out.join('  '));
