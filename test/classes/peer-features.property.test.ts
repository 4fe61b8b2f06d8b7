// The compiler's classes are core/classes/peer-features.ts's, and that definition misses nothing
// match.ts reads: on random snapshots, for every group (pod and direction),
//  - the refinement construction (compile/classes.ts: all features in the base classing, or a
//    base refined by the rest) puts two addresses in one class exactly when ownerClasses, which
//    keys owners by match.ts peerMatches itself, puts their owners in one class;
//  - two addresses of one class in the same elementary interval of the group's CIDR cuts get
//    the same side decisions from the group's subject, on every port the generator uses.
// A peer kind, or a pod or node field a matcher reads, that the fast construction or the
// definition misses splits one of these (lookalike pods: alike in selectors, apart in the rest).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressSets, addressSlots } from '../../core/classes/addresses.js';
import { ownerClasses, peerFeatures } from '../../core/classes/peer-features.js';
import type { Cluster } from '../../core/cluster.js';
import { addressIndex } from '../../core/compile/address-index.js';
import { baseClassing, featuresOf, refineClassing, type Classing } from '../../core/compile/classes.js';
import { groupOf, type Group } from '../../core/compile/group.js';
import { CompileScratch } from '../../core/compile/scratch.js';
import { evaluateSide } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow } from '../../core/evaluate/resolve.js';
import { decisionKey } from '../../core/evaluate/side-runs.js';
import { formatIp, type Family } from '../../core/net/ip.js';
import { PROTOCOLS, type Protocol } from '../../core/policy/model.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, lookalikeSnapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);
const FAMILIES: readonly Family[] = [4, 6];
/** Every port the random snapshots' rules and named ports use, and one they never do. */
const PORTS = [53, 80, 81, 443, 5432, 8080, 1];

/** Class of each point per family, read from a Classing's members less its removed points (0: none). */
function pointClasses(cluster: Cluster, c: Classing): Record<Family, Int32Array> {
  const index = addressIndex(cluster);
  const out = { 4: new Int32Array(index.families[4].owner.length), 6: new Int32Array(index.families[6].owner.length) };
  for (const fam of FAMILIES) {
    for (let k = 1; k < c.classCount; k++) {
      const gone = new Set(c.removed[fam].get(k) ?? []);
      for (const pt of Array.from(c.members[fam][k] ?? [])) if (!gone.has(pt)) out[fam][pt] = k;
    }
  }
  return out;
}

/** Whether two labellings of the same points are one partition (0 only where 0). */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if ((x === 0) !== (y === 0)) return false;
    if ((ab.get(x) ?? y) !== y || (ba.get(y) ?? x) !== x) return false;
    ab.set(x, y);
    ba.set(y, x);
  }
  return true;
}

/** The subject's decision towards (egress) or from (ingress) an address; "-" where no flow exists. */
function side(cluster: Cluster, group: Group, ip: string, port: number, protocol: Protocol): string {
  const [from, to] = group.dir === 'egress' ? [{ pod: group.representative.key }, { ip }] : [{ ip }, { pod: group.representative.key }];
  try {
    const flow = resolveFlow(cluster, { from, to, port, protocol });
    return decisionKey(evaluateSide(cluster, group.dir, group.representative, group.dir === 'egress' ? flow.to : flow.from, flow));
  } catch (e) {
    if (e instanceof FlowError) return '-';
    throw e;
  }
}

/** The subject's decisions on every port and protocol. */
const sides = (cluster: Cluster, group: Group, ip: string): string => PORTS.flatMap((port) => PROTOCOLS.map((protocol) => side(cluster, group, ip, port, protocol))).join(' ');

describe('peer classes (core/classes/peer-features.ts)', () => {
  it(`are built alike by refinement and by key, and every member decides alike, on ${RUNS} random snapshots`, () => {
    assertProperty(
      fc.property(lookalikeSnapshotArb, fc.nat(), (snapshot, split) => {
        const cluster = generatedCluster(snapshot);
        const index = addressIndex(cluster);
        const scratch = new CompileScratch();
        for (const pod of cluster.pods) {
          if (pod.hostNetwork || pod.ips.length === 0) continue;
          for (const dir of ['ingress', 'egress'] as const) {
            const group = groupOf(cluster, pod, dir);
            const features = featuresOf(cluster, group);
            const byKey = ownerClasses(cluster, peerFeatures(group.rules, dir, pod), pod);
            // The base classing alone, and a base of some features refined by the others.
            const at = features.length === 0 ? 0 : split % (features.length + 1);
            const whole = pointClasses(cluster, baseClassing(cluster, features, scratch));
            const refined = pointClasses(cluster, refineClassing(cluster, baseClassing(cluster, features.slice(0, at), scratch), features.slice(at), scratch));
            const { slot } = addressSlots(addressSets(group.rules).sets);
            for (const fam of FAMILIES) {
              const owners = index.families[fam].owner;
              const keyed = Int32Array.from(owners, (o) => byKey[o]!);
              const what = `${pod.key} ${dir}, IPv${fam}`;
              expect(samePartition(whole[fam], keyed), `${what}: base classing ≠ classes by key`).toBe(true);
              expect(samePartition(refined[fam], keyed), `${what}: refined classing (base of ${at}/${features.length}) ≠ classes by key`).toBe(true);
              // One member per class and interval decides for the others.
              const first = new Map<string, { ip: string; decision: string }>();
              for (let pt = 0; pt < owners.length; pt++) {
                const value = index.families[fam].values[pt]!;
                const ip = formatIp(fam, value);
                const k = `${keyed[pt]}|${slot({ family: fam, value })}`;
                const decision = sides(cluster, group, ip);
                const rep = first.get(k);
                if (rep === undefined) first.set(k, { ip, decision });
                else expect(decision, `${what}: ${ip} decides unlike ${rep.ip} (class ${keyed[pt]})`).toBe(rep.decision);
              }
            }
          }
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
