// A version compiled from changes equals a full compile of the same objects, ids and bodies,
// after every step of random change sequences: pod edits (relabel, move, readdress onto
// another pod's address, host network, delete, add, rolling updates), policy edits (applied,
// replaced, deleted; with pod edits or without), namespace edits (relabelled, annotated,
// added, deleted), node edits (relabelled, readdressed, added, deleted) and workload edits
// take the incremental path from a warm base, every change the full one from a cold base. So does its cluster, made
// from the previous one's when only pods changed (replaced in place, or derived with pods added
// and deleted) or built afresh.
import { snapshotHash, snapshotObjectKey } from '../../core/snapshot/hash.js';
import { applyChanges } from '../../core/preview/changes.js';
import { byText } from '../../core/sorted.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster, POLICY_KINDS, type Cluster } from '../../core/cluster.js';
import { isWorkload } from '../../schemas/k8s/workload.js';
import { ipKey, type IpOwner } from '../../core/snapshot/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import type { IrSet, SetDefinition } from '../../core/sets/ir.js';
import { compiledState, nextVersion, type CompiledState } from '../../core/sets/next-version.js';
import { changeReuse } from '../../core/sets/incremental.js';
import { SetRegistry } from '../../core/sets/registry.js';
import { SetIndex } from '../../core/sets/set-index.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';
import { nextVersionFrom, versionStepArb, workloadSnapshotArb } from '../support/random-changes.js';

const RUNS = propertyRuns(300);

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
  /** Of those, versions whose change held policies. */
  policyIncremental: number;
  /** Of those, versions whose change held namespaces; nodes; workloads. */
  namespaceIncremental: number;
  nodeIncremental: number;
  workloadIncremental: number;
  full: number;
  /** Sets whose members were edited from the earlier version's, by kind. */
  edited: Record<string, number>;
  /** Sets offered no edit (resolved again), by kind. */
  resolvedAgain: Record<string, number>;
  /** How each version's cluster was made. */
  clusterFrom: { replaced: number; derived: number; policies: number; namespaces: number; nodes: number; built: number };
}

/** Random change sequences from snapshots of `bases`: every version equals a full compile of its objects. */
function checkSequences(bases: fc.Arbitrary<{ items: unknown[] }>, runs: number, file: string): MemberCounts {
  const counts: MemberCounts = { incremental: 0, policyIncremental: 0, namespaceIncremental: 0, nodeIncremental: 0, workloadIncremental: 0, full: 0, edited: {}, resolvedAgain: {}, clusterFrom: { replaced: 0, derived: 0, policies: 0, namespaces: 0, nodes: 0, built: 0 } };
  assertProperty(
    fc.property(bases, fc.array(versionStepArb, { minLength: 1, maxLength: 8 }), (base, steps) => {
      const first = parsed(base.items);
      if (!first) return;
      let state: CompiledState = compiledState(first).state;
      steps.forEach((s, i) => {
        // Every fourth step from a cold base (its objects alone): the full compile's path.
        const next = nextVersionFrom(state, s, i, i % 4 === 3);
        if (!next) return;
        if (next.incremental) counts.incremental++;
        else counts.full++;
        if (next.incremental && next.changed.some((o) => POLICY_KINDS.has(o.kind))) counts.policyIncremental++;
        if (next.incremental && next.changed.some((o) => isWorkload(o))) counts.workloadIncremental++;
        if (next.incremental && next.changed.some((o) => o.kind === 'Node')) counts.nodeIncremental++;
        if (next.incremental && next.changed.some((o) => o.kind === 'Namespace')) counts.namespaceIncremental++;
        counts.clusterFrom[next.clusterFrom]++;
        // Its objects are the base's with the change applied (applyChanges), in key order.
        const head = applyChanges(state.snapshot, next.changes);
        expect(head.ok).toBe(true);
        if (!head.ok) return;
        const inOrder = [...head.snapshot.objects].sort((a, b) => byText(snapshotObjectKey(a), snapshotObjectKey(b)));
        expect(next.state.snapshot.objects.length).toBe(inOrder.length);
        expect(next.state.snapshot.objects.every((o, k) => o === inOrder[k])).toBe(true);
        expect(next.state.snapshot.ignored).toEqual(head.snapshot.ignored);
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
          const reuse = changeReuse(state, next.state.cluster, next.changed, () => SetIndex.of(state.ir.sets))!;
          for (const { id, edit } of reuse.memberChanges()) {
            if (edit === null) {
              const kind = kindOf(state.ir.sets.get(id)!.definition);
              counts.resolvedAgain[kind] = (counts.resolvedAgain[kind] ?? 0) + 1;
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
    const counts = checkSequences(fc.oneof(snapshotArb, workloadSnapshotArb), RUNS, import.meta.url);
    // Both paths ran often enough to mean something.
    expect(counts.incremental).toBeGreaterThan(2 * RUNS);
    expect(counts.full).toBeGreaterThan(RUNS / 5);
    // Policy, namespace, node and workload edits (with pod edits or without) took it too (over
    // six fresh-seed runs of 75: 45–94 versions each, workloads 17–31).
    expect(counts.policyIncremental).toBeGreaterThan(RUNS / 3);
    expect(counts.namespaceIncremental).toBeGreaterThan(RUNS / 3);
    expect(counts.nodeIncremental).toBeGreaterThan(RUNS / 3);
    expect(counts.workloadIncremental).toBeGreaterThan(RUNS / 8);
    // And each way of making the cluster: 7–26 of each over those runs. A threshold near the
    // lowest count fails fresh seeds; RUNS / 16 still fails when a path stops being taken.
    expect(counts.clusterFrom.replaced).toBeGreaterThan(RUNS / 16);
    expect(counts.clusterFrom.derived).toBeGreaterThan(RUNS / 16);
    expect(counts.clusterFrom.policies).toBeGreaterThan(RUNS / 16);
    expect(counts.clusterFrom.namespaces).toBeGreaterThan(RUNS / 16);
    expect(counts.clusterFrom.nodes).toBeGreaterThan(RUNS / 16);
    // Members are mostly edited, not resolved again (node sets are, on every Node change).
    expect(total(counts.edited)).toBeGreaterThan(RUNS / 2);
    expect(total(counts.edited)).toBeGreaterThan(4 * (total(counts.resolvedAgain) - (counts.resolvedAgain.nodes ?? 0)));
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

  it(`resolve sets relative to a relabelled namespace again (${RUNS} random sequences)`, () => {
    // The KEP-2091 draft's relative peers: pods of namespaces sharing (or not) the subject's
    // namespace's label values, and of the other namespaces. Random snapshots do not write them.
    const relative = {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'AdminNetworkPolicy',
      metadata: { name: 'tenancy' },
      spec: {
        priority: 9,
        subject: { namespaces: {} },
        ingress: [
          { action: 'Pass', from: [{ namespaces: { sameLabels: ['app'] } }] },
          { action: 'Deny', from: [{ pods: { namespaces: { notSameLabels: ['constructor'] }, podSelector: { matchLabels: { app: 'x' } } } }] },
        ],
        egress: [{ action: 'Deny', to: [{ namespaces: { related: 'NotSelf' } }], ports: [{ namedPort: 'web' }] }],
      },
    };
    const counts = checkSequences(snapshotArb.map((s) => ({ items: [...s.items, relative] })), RUNS, import.meta.url);
    expect(counts.namespaceIncremental).toBeGreaterThan(RUNS / 8);
    expect(counts.resolvedAgain.pods ?? 0).toBeGreaterThan(RUNS / 8);
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

describe('a rolling update (pods deleted and as many added under new names, in one change)', () => {
  const podOf = (name: string, hash: string, i: number, extra: { namespace?: string; phase?: string } = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: extra.namespace ?? 'shop', labels: { app: name.split('-')[0]!, 'pod-template-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name.split('-')[0]}-${hash}`, controller: true }] },
    spec: { nodeName: `n${i % 3}`, containers: [{ name: 'c', ports: [{ name: 'http', containerPort: 8080 + (i % 2) }] }] },
    status: { phase: extra.phase ?? 'Running', podIP: `10.1.${hash === 'aaa' ? 0 : 1}.${10 + i}`, podIPs: [{ ip: `10.1.${hash === 'aaa' ? 0 : 1}.${10 + i}` }] },
  });
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c' }] } } } };
  const items = (withDeployment: boolean) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'a' } } },
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ops' } },
    ...[0, 1, 2].map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: `n${n}` }, status: { addresses: [{ type: 'InternalIP', address: `172.18.0.${n + 2}` }] } })),
    ...Array.from({ length: 12 }, (_, i) => podOf(`web-aaa-${i}`, 'aaa', i)),
    // Pods before and after the web pods in key order (after them: their positions shift).
    ...Array.from({ length: 3 }, (_, i) => ({ ...podOf(`api-${i}`, 'aaa', i), status: { phase: 'Running', podIP: `10.2.0.${i}`, podIPs: [{ ip: `10.2.0.${i}` }] } })),
    ...Array.from({ length: 3 }, (_, i) => ({ ...podOf(`zz-${i}`, 'aaa', i), status: { phase: 'Running', podIP: `10.2.1.${i}`, podIPs: [{ ip: `10.2.1.${i}` }] } })),
    { ...podOf('db-0', 'aaa', 1, { namespace: 'ops' }), status: { phase: 'Running', podIP: '10.3.0.1', podIPs: [{ ip: '10.3.0.1' }] } },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'web', namespace: 'shop' }, spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'api' } } }], ports: [{ port: 'http' }] }] } },
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'ops' }, spec: { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { 'pod-template-hash': 'bbb' } } }] }] } },
    ...(withDeployment ? [deployment] : []),
  ];
  const del = (names: readonly string[], namespace = 'shop') => names.map((name) => ({ kind: 'Pod', namespace, name }));
  const range = <T,>(n: number, each: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => each(i));

  /** The next version from `items` and a change, checked against a fresh build and compile of its objects. */
  function next(withDeployment: boolean, apply: readonly unknown[], deleted: ReturnType<typeof del>) {
    const base = compiledState(parsed(items(withDeployment))!).state;
    const changes = { apply: parsed(apply)!, delete: deleted };
    const n = nextVersion(base, changes);
    expect(n.ok).toBe(true);
    if (!n.ok) throw new Error('no next version');
    const head = applyChanges(base.snapshot, changes);
    expect(head.ok && [...head.snapshot.objects].sort((a, b) => byText(snapshotObjectKey(a), snapshotObjectKey(b)))).toEqual(n.state.snapshot.objects);
    const fresh = buildCluster(n.state.snapshot);
    expect(clusterFacts(n.state.cluster)).toEqual(clusterFacts(fresh));
    expect(JSON.stringify(n.state.ir)).toBe(JSON.stringify(compileSets(fresh).ir));
    expect(n.state.hashed.hash).toBe(snapshotHash(n.state.snapshot.objects));
    return { base, next: n };
  }

  it.each([false, true])('6 of 12 pods replaced by pods of a new template: derived from the previous cluster (Deployment object: %s)', (withDeployment) => {
    const { base, next: n } = next(withDeployment, range(6, (i) => podOf(`web-bbb-${i}`, 'bbb', i + 1)), del(range(6, (i) => `web-aaa-${i}`)));
    expect(n.clusterFrom).toBe('derived');
    expect(n.incremental).toBe(true);
    // New pods under new keys; the pods after them (web-aaa-6…, zz-*) took new positions where the counts differ before them.
    expect(n.state.cluster.podByKey.get('shop/web-bbb-0')?.workload).toBe('deployment/web');
    expect(n.state.cluster.podByKey.has('shop/web-aaa-0')).toBe(false);
    expect(n.state.cluster.pods.length).toBe(base.cluster.pods.length);
  });

  it('a scale-up and a scale-down shift every later pod, and are derived', () => {
    const up = next(false, range(3, (i) => podOf(`web-aaa-x${i}`, 'aaa', 20 + i)), []);
    expect(up.next.clusterFrom).toBe('derived');
    expect(up.next.state.cluster.podByKey.get('shop/zz-2')!.idx).toBe(up.base.cluster.podByKey.get('shop/zz-2')!.idx + 3);
    const down = next(false, [], del(['api-0', 'web-aaa-3']));
    expect(down.next.clusterFrom).toBe('derived');
    expect(down.next.state.cluster.podByKey.get('shop/zz-2')!.idx).toBe(down.base.cluster.podByKey.get('shop/zz-2')!.idx - 2);
  });

  it('a change of thousands of pods is derived too', () => {
    const many = (hash: string, n: number) => range(n, (i) => ({ ...podOf(`bulk-${hash}-${i}`, hash, i), status: { phase: 'Running', podIP: `10.${hash === 'aaa' ? 5 : 6}.${i >> 8}.${i & 255}`, podIPs: [{ ip: `10.${hash === 'aaa' ? 5 : 6}.${i >> 8}.${i & 255}` }] } }));
    const base = compiledState(parsed([...items(false), ...many('aaa', 3000)])!).state;
    const changes = { apply: parsed(many('bbb', 2500))!, delete: del(range(2500, (i) => `bulk-aaa-${i}`)) };
    const n = nextVersion(base, changes);
    expect(n.ok && n.clusterFrom).toBe('derived');
    if (!n.ok) return;
    const head = applyChanges(base.snapshot, changes);
    expect(head.ok && [...head.snapshot.objects].sort((a, b) => byText(snapshotObjectKey(a), snapshotObjectKey(b)))).toEqual(n.state.snapshot.objects);
    expect(clusterFacts(n.state.cluster)).toEqual(clusterFacts(buildCluster(n.state.snapshot)));
  });

  it('mixes deletes, adds, replacements and a pod deleted and applied again', () => {
    const relabelled = { ...podOf('api-1', 'aaa', 1), metadata: { ...podOf('api-1', 'aaa', 1).metadata, labels: { app: 'api', v: '2' } }, status: { phase: 'Running', podIP: '10.2.0.1', podIPs: [{ ip: '10.2.0.1' }] } };
    const again = { ...podOf('zz-0', 'aaa', 0), status: { phase: 'Running', podIP: '10.2.1.0', podIPs: [{ ip: '10.2.1.0' }] } };
    const { next: n } = next(true, [relabelled, again, podOf('web-bbb-0', 'bbb', 0)], del(['web-aaa-0', 'web-aaa-1', 'zz-0']));
    expect(n.clusterFrom).toBe('derived');
  });

  it('falls back to a fresh build where a workload or namespace endpoint would appear or go, or an address be shared', () => {
    // Every pod of Deployment web gone: the Deployment becomes an endpoint of its own.
    expect(next(true, [], del(range(12, (i) => `web-aaa-${i}`))).next.clusterFrom).toBe('built');
    // Without the object, nothing stands for them.
    expect(next(false, [], del(range(12, (i) => `web-aaa-${i}`))).next.clusterFrom).toBe('derived');
    // A pod in a namespace the snapshot has no Namespace object for.
    expect(next(false, [podOf('web-bbb-0', 'bbb', 0, { namespace: 'elsewhere' })], []).next.clusterFrom).toBe('built');
    // The last pod of a namespace without a Namespace object: the namespace goes (and its warning).
    const lone = { ...podOf('lone-0', 'aaa', 0, { namespace: 'elsewhere' }), status: { phase: 'Running', podIP: '10.4.0.1', podIPs: [{ ip: '10.4.0.1' }] } };
    expect(next(false, [lone], []).next.clusterFrom).toBe('built');
    const base = compiledState(parsed([...items(false), lone])!).state;
    const gone = nextVersion(base, { apply: parsed([])!, delete: del(['lone-0'], 'elsewhere') });
    expect(gone.ok && gone.clusterFrom).toBe('built');
    if (gone.ok) expect(clusterFacts(gone.state.cluster)).toEqual(clusterFacts(buildCluster(gone.state.snapshot)));
    // A new pod with an address another pod has.
    expect(next(false, [{ ...podOf('web-bbb-0', 'bbb', 0), status: { phase: 'Running', podIP: '10.2.0.1', podIPs: [{ ip: '10.2.0.1' }] } }], []).next.clusterFrom).toBe('built');
    // A finished pod added (counted in a warning).
    expect(next(false, [podOf('web-bbb-0', 'bbb', 0, { phase: 'Succeeded' })], del(['web-aaa-0'])).next.clusterFrom).toBe('built');
  });

  it('a change touching a pod finished before and after, with another pod, compiles as a full compile does', () => {
    const base = compiledState(parsed(items(false))!).state;
    const finished = nextVersion(base, { apply: parsed([podOf('web-aaa-0', 'aaa', 0, { phase: 'Succeeded' })])!, delete: [] });
    if (!finished.ok) throw new Error('no next version');
    const n = nextVersion(finished.state, { apply: parsed([{ ...podOf('web-aaa-0', 'aaa', 0, { phase: 'Succeeded' }), metadata: { ...podOf('web-aaa-0', 'aaa', 0).metadata, labels: { app: 'api' } } }, podOf('web-bbb-0', 'bbb', 0)])!, delete: [] });
    expect(n.ok).toBe(true);
    if (!n.ok) return;
    expect(JSON.stringify(n.state.ir)).toBe(JSON.stringify(compileSets(buildCluster(n.state.snapshot)).ir));
  });

  it('deleting a pod the base lacks is the error applyChanges gives, in a mixed change too', () => {
    const base = compiledState(parsed(items(false))!).state;
    const changes = { apply: parsed([podOf('web-bbb-0', 'bbb', 0)])!, delete: del(['web-aaa-0', 'nope', 'web-aaa-0']) };
    const n = nextVersion(base, changes);
    const expected = applyChanges(base.snapshot, changes, '$.changes.delete');
    expect(expected.ok).toBe(false);
    expect(n).toEqual(expected);
  });

  it('deleting a policy the base lacks, or one policy twice, is the error applyChanges gives', () => {
    const base = compiledState(parsed(items(false))!).state;
    const web = { kind: 'NetworkPolicy', namespace: 'shop', name: 'web' };
    for (const deleted of [[{ kind: 'NetworkPolicy', namespace: 'shop', name: 'nope' }], [web, web], [{ ...web, kind: 'AdminNetworkPolicy', namespace: undefined }]]) {
      const changes = { apply: parsed([])!, delete: deleted };
      const expected = applyChanges(base.snapshot, changes, '$.changes.delete');
      expect(expected.ok).toBe(false);
      expect(nextVersion(base, changes)).toEqual(expected);
    }
    // The same policy deleted once: the policies path, equal to a fresh build and compile.
    const once = nextVersion(base, { apply: parsed([])!, delete: [web] });
    expect(once.ok && once.clusterFrom).toBe('policies');
    if (once.ok) expect(JSON.stringify(once.state.ir)).toBe(JSON.stringify(compileSets(buildCluster(once.state.snapshot)).ir));
  });
});
