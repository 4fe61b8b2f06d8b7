// Two parts of the compile timed alone on a generated snapshot, with a hash of what they answer,
// to compare checkouts (run from each, alternating; the hashes must match):
//   - podsOf: every pods peer of every NetworkPolicy, from the first pod of the policy's
//     namespace (first pass fills the selector answers; the next passes read them);
//   - groupsByIdentity: every pod that can be a subject, both directions, on a new cluster each
//     pass (what the set compiler's first stage does).
//
//   node --import tsx bench/compile-parts.ts [S|M|L]     (L: add --max-old-space-size=6000)
import { createHash } from 'node:crypto';
import { GENERATORS, type SizeName } from './generate.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import { buildCluster } from '../core/cluster.js';
import { podsOf } from '../core/compile/classes.js';
import { groupsByIdentity } from '../core/compile/group.js';
import { rulesFor, type Peer } from '../core/policy/model.js';
import type { PodInfo } from '../core/snapshot/cluster.js';

const size = (process.argv[2] ?? 'M') as SizeName;
const parsed = parseSnapshot(JSON.parse(JSON.stringify(GENERATORS[size]())));
if (!parsed.ok) throw new Error('the generated snapshot does not parse');
const snapshot = parsed.snapshot;
const ms = (t: number) => (performance.now() - t).toFixed(0);

{
  const cluster = buildCluster(snapshot);
  const asks: [Extract<Peer, { type: 'pods' }>, PodInfo][] = [];
  for (const [ns, policies] of cluster.policies.byNamespace) {
    const subject = cluster.podsByNamespace.get(ns)?.[0];
    if (!subject) continue;
    for (const p of policies) for (const dir of ['ingress', 'egress'] as const) for (const r of rulesFor(p, dir) ?? []) for (const peer of r.peers) if (peer.type === 'pods') asks.push([peer, subject]);
  }
  const passes: string[] = [];
  const hash = createHash('sha256');
  for (let pass = 0; pass < 3; pass++) {
    const t = performance.now();
    for (const [peer, subject] of asks) {
      const pods = podsOf(cluster, peer, subject);
      if (pass === 0) hash.update(`${pods.join(',')}\n`);
    }
    passes.push(ms(t));
  }
  console.log(`${size} podsOf: ${asks.length} calls, passes ${passes.join(' / ')} ms, answers ${hash.digest('hex').slice(0, 12)}`);
}

{
  const passes: string[] = [];
  let digest = '';
  for (let pass = 0; pass < 3; pass++) {
    const cluster = buildCluster(snapshot);
    const groupOf = groupsByIdentity(cluster);
    const hash = createHash('sha256');
    const t = performance.now();
    for (const pod of cluster.pods) {
      if (pod.hostNetwork || pod.ips.length === 0) continue;
      for (const dir of ['ingress', 'egress'] as const) {
        const g = groupOf(pod, dir);
        hash.update(`${g.signature}\n${g.policySignature}\n`);
      }
    }
    passes.push(ms(t));
    digest = hash.digest('hex').slice(0, 12);
  }
  console.log(`${size} groupsByIdentity: passes ${passes.join(' / ')} ms, signatures ${digest}`);
}
