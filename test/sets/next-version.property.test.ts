// A version compiled from changes equals a full compile of the same objects, ids and bodies,
// after every step of random change sequences: pod edits (relabel, move, readdress onto
// another pod's address, host network, delete, add) take the incremental path, everything
// else (policies, namespaces, nodes) the full one.
import { snapshotHash } from '../../core/snapshot/hash.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { ipKey, type IpOwner } from '../../core/snapshot/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import type { IrSet, SetDefinition } from '../../core/sets/ir.js';
import { compiledState, nextVersion, type CompiledState } from '../../core/sets/next-version.js';
import { podChangeReuse } from '../../core/sets/incremental.js';
import { SetRegistry } from '../../core/sets/registry.js';
import { SetIndex } from '../../core/sets/set-index.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { assertProperty } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';
import { nextVersionFrom, versionStepArb } from '../support/random-changes.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

/** A cluster's indexes and warnings, as plain data. */
function clusterFacts(c: Cluster) {
  const ownerKey = (o: IpOwner) => (o.kind === 'pod' ? `pod ${o.pod.key}@${o.pod.idx}` : `node ${o.node.name}`);
  return {
    pods: c.pods.map((p) => JSON.stringify(p, Object.keys(p).sort())),
    // Lookups only (a version's indexes may be layers over the earlier one's): asked for every pod and address.
    byKey: c.pods.map((p) => `${p.key}@${c.podByKey.get(p.key)?.idx}`),
    byNamespace: [...c.podsByNamespace].map(([ns, list]) => `${ns}: ${list.map((p) => `${p.key}@${p.idx}`).join(' ')}`).sort(),
    byNode: [...c.podsByNode].map(([node, list]) => `${node}: ${list.map((p) => `${p.key}@${p.idx}`).join(' ')}`).sort(),
    owners: [...c.pods.flatMap((p) => p.ips), ...c.nodes.flatMap((n) => n.ips)].map((ip) => ipKey(ip)).sort().map((k) => `${k} ${c.ipOwners.has(k) ? ownerKey(c.ipOwners.get(k)!) : '-'}`),
    namespaces: JSON.stringify(c.namespaces),
    warnings: c.warnings,
    policies: c.policies.all.map((p) => p.id),
  };
}

function parsed(items: readonly unknown[]): ParsedSnapshot | null {
  const p = parseSnapshot({ items });
  return p.ok ? p.snapshot : null;
}

/** What kind of set a definition is, for counting: ports sets by what they are over. */
function kindOf(d: SetDefinition): string {
  return d.type === 'named-port' ? `ports over ${d.of?.type ?? 'any'}` : d.type;
}

/** How versions from pod changes found their sets' members. */
interface MemberCounts {
  incremental: number;
  full: number;
  /** Sets whose members were edited from the earlier version's, by kind. */
  edited: Record<string, number>;
  /** Sets offered no edit (resolved again). */
  resolvedAgain: number;
}

/** Random change sequences from snapshots of `bases`: every version equals a full compile of its objects. */
function checkSequences(bases: fc.Arbitrary<{ items: unknown[] }>, runs: number, file: string): MemberCounts {
  const counts: MemberCounts = { incremental: 0, full: 0, edited: {}, resolvedAgain: 0 };
  assertProperty(
    fc.property(bases, fc.array(versionStepArb, { minLength: 1, maxLength: 5 }), (base, steps) => {
      const first = parsed(base.items);
      if (!first) return;
      let state: CompiledState = compiledState(first).state;
      steps.forEach((s, i) => {
        const next = nextVersionFrom(state, s, i);
        if (!next) return;
        if (next.incremental) counts.incremental++;
        else counts.full++;
        // The same objects in another order, compiled from scratch.
        const reordered: ParsedSnapshot = { ...next.state.snapshot, objects: [...next.state.snapshot.objects].reverse() };
        const whole = compileSets(buildCluster(reordered));
        const expected = whole.ir;
        expect(JSON.stringify(next.state.ir)).toBe(JSON.stringify(expected));
        // Its counts too (moved by what changed), all but how many groups this run compiled.
        expect({ ...next.stats, groups: 0 }).toEqual({ ...whole.stats, groups: 0 });
        // Its snapshot hash (from the earlier one's lines) as hashed from scratch, in another order.
        expect(next.state.hashed.hash).toBe(snapshotHash(reordered.objects));
        // The cluster too (a pod replaced in place is not built again): what every other stage reads of it.
        expect(clusterFacts(next.state.cluster)).toEqual(clusterFacts(buildCluster(next.state.snapshot)));
        if (next.incremental) {
          // Every edit offered fits the earlier members and gives the full compile's set: none
          // is resolved again for not fitting, which would hide a wrong edit behind a slow path.
          const reuse = podChangeReuse(state, next.state.cluster, next.changed, () => SetIndex.of(state.ir.sets))!;
          for (const { id, edit } of reuse.memberChanges()) {
            if (edit === null) {
              counts.resolvedAgain++;
              continue;
            }
            const set = new SetRegistry(next.state.cluster).edited(id, state.ir.sets.get(id)!, edit);
            expect(set).not.toBeNull();
            if (expected.sets.has(id)) expect(JSON.stringify(set)).toBe(JSON.stringify(expected.sets.get(id)));
          }
          for (const id of next.change?.edited ?? []) {
            const kind = kindOf(next.state.ir.sets.get(id)!.definition);
            counts.edited[kind] = (counts.edited[kind] ?? 0) + 1;
          }
        }
        state = next.state;
      });
    }),
    { numRuns: runs, file },
  );
  return counts;
}

const total = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

describe('versions from changes', () => {
  it(`equal a full compile of the same objects after every step (${RUNS} random sequences)`, () => {
    const counts = checkSequences(snapshotArb, RUNS, import.meta.url);
    // Both paths ran often enough to mean something.
    expect(counts.incremental).toBeGreaterThan(RUNS);
    expect(counts.full).toBeGreaterThan(RUNS / 10);
    // Members are mostly edited, not resolved again.
    expect(total(counts.edited)).toBeGreaterThan(RUNS / 2);
    expect(total(counts.edited)).toBeGreaterThan(4 * counts.resolvedAgain);
  });

  it(`edit ports sets over CIDRs and over every pod too (${RUNS} random sequences)`, () => {
    // Egress named ports to an ipBlock (and its IPv6 twin) and to anywhere, from every pod of
    // each namespace: random snapshots rarely write them.
    const portPolicies = ['a', 'b', 'c'].map((ns) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'named-ports', namespace: ns },
      spec: {
        podSelector: {},
        policyTypes: ['Egress'],
        egress: [
          { to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.1.0/24'] } }, { ipBlock: { cidr: 'fd00::/64', except: ['fd00::1:0/112'] } }], ports: [{ port: 'web' }] },
          { ports: [{ protocol: 'TCP', port: 'db' }] },
        ],
      },
    }));
    const counts = checkSequences(snapshotArb.map((s) => ({ items: [...s.items, ...portPolicies] })), RUNS, import.meta.url);
    // About 45 to 70 of each per 300 sequences.
    expect(counts.edited['ports over cidrs'] ?? 0).toBeGreaterThan(RUNS / 15);
    expect(counts.edited['ports over any'] ?? 0).toBeGreaterThan(RUNS / 15);
  });
});

describe('a pod sharing an address with a changed pod', () => {
  it('takes the address over when the owner goes, though it did not change itself', () => {
    const pod = (name: string, app: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'a', labels: { app } }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }] } });
    const items = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } },
      // p0 comes first, so it owns 10.0.0.5; p1 holds it too.
      pod('p0', 'x'),
      pod('p1', 'y'),
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db', namespace: 'a', labels: { app: 'db' } }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'a' }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'y' } } }] }] } },
    ];
    const base = compiledState(parsed(items)!).state;
    const setOfY = () => [...base.ir.sets.entries()].map(([, v]) => v).find((s) => s.definition.type === 'pods' && JSON.stringify(s.definition).includes('"y"'))!;
    const v4 = (s: IrSet) => (s.kind === 'addresses' ? s.v4 : null);
    expect(v4(setOfY())).toEqual([]);
    const next = nextVersion(base, { apply: parsed([])!, delete: [{ kind: 'Pod', namespace: 'a', name: 'p0' }] });
    expect(next.ok && next.incremental).toBe(true);
    if (!next.ok) return;
    const after = [...next.state.ir.sets.entries()].map(([, v]) => v).find((s) => s.definition.type === 'pods' && JSON.stringify(s.definition).includes('"y"'))!;
    expect(v4(after)).toEqual(['10.0.0.5/32']);
    expect(JSON.stringify(next.state.ir)).toBe(JSON.stringify(compileSets(buildCluster(next.state.snapshot)).ir));
  });

  it('a member pod whose named port is renumbered changes the ports set, though it stays a member', () => {
    const items = (port: number) => [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'db', namespace: 'a', labels: { app: 'db' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', ports: [{ name: 'sql', containerPort: port }] }] }, status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'a', labels: { app: 'web' } }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }] } },
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web', namespace: 'a' }, spec: { podSelector: { matchLabels: { app: 'web' } }, egress: [{ to: [{ podSelector: { matchLabels: { app: 'db' } } }], ports: [{ port: 'sql' }] }] } },
    ];
    const base = compiledState(parsed(items(5432))!).state;
    const renumbered = parsed(items(5433).filter((o) => o.metadata.name === 'db'))!;
    const next = nextVersion(base, { apply: renumbered, delete: [] });
    expect(next.ok && next.incremental).toBe(true);
    if (!next.ok) return;
    const ports = [...next.state.ir.sets.entries()].map(([, v]) => v).find((s) => s.kind === 'ports')!;
    expect(ports.kind === 'ports' && ports.elements).toEqual([['10.0.0.9', 'TCP', 5433]]);
    expect(JSON.stringify(next.state.ir)).toBe(JSON.stringify(compileSets(buildCluster(next.state.snapshot)).ir));
  });
});
