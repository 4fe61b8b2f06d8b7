// Versions from changes on hand-written cases the random sequences rarely draw (next-version
// .property.test.ts): an address owner going, a named port renumbered, rolling updates and
// scale changes, the fall-backs to a fresh build, and the errors of bad deletes.
import { snapshotHash, snapshotObjectKey } from '../../core/snapshot/hash.js';
import { applyChanges } from '../../core/preview/changes.js';
import { byText } from '../../core/sorted.js';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import type { IrSet } from '../../core/sets/ir.js';
import { compiledState, nextVersion } from '../../core/sets/next-version.js';
import { clusterFacts, parsed } from '../support/cluster-facts.js';

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

  // A live cluster's rollout: the Deployment's ReplicaSets are objects of the snapshot, and each
  // step of the rollout changes them with the pods.
  const replicaSet = (hash: string, replicas: number, owner: string | null = 'web') => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: `web-${hash}`, namespace: 'shop', ownerReferences: owner ? [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, controller: true }] : [] },
    spec: { replicas, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': hash } }, spec: { containers: [{ name: 'c' }] } } },
  });
  /** next() from a base that holds the ReplicaSet web-aaa too. */
  function nextLive(apply: readonly unknown[], deleted: { kind: string; namespace: string; name: string }[]) {
    const base = compiledState(parsed([...items(true), replicaSet('aaa', 12)])!).state;
    const changes = { apply: parsed(apply)!, delete: deleted };
    const n = nextVersion(base, changes);
    if (!n.ok) throw new Error('no next version');
    const fresh = buildCluster(n.state.snapshot);
    expect(clusterFacts(n.state.cluster)).toEqual(clusterFacts(fresh));
    expect(JSON.stringify(n.state.ir)).toBe(JSON.stringify(compileSets(fresh).ir));
    expect(n.state.hashed.hash).toBe(snapshotHash(n.state.snapshot.objects));
    return n;
  }

  it('a rollout step with its ReplicaSets (new one up, old one down, a pod replaced) keeps the cluster, derived', () => {
    const step = nextLive([replicaSet('bbb', 1), replicaSet('aaa', 11), podOf('web-bbb-0', 'bbb', 0)], del(['web-aaa-0']));
    expect(step.clusterFrom).toBe('workloads');
    expect(step.incremental).toBe(true);
    expect(step.state.cluster.podByKey.get('shop/web-bbb-0')?.workload).toBe('deployment/web');
    // The Deployment's replicas alone, and an old ReplicaSet scaled to 0 deleted: nothing a table or endpoint reads.
    const scaled = nextLive([{ ...items(true).at(-1)!, spec: { ...(items(true).at(-1) as { spec: object }).spec, replicas: 3 } }], []);
    expect(scaled.clusterFrom).toBe('workloads');
    expect(nextLive([], [{ kind: 'ReplicaSet', namespace: 'shop', name: 'web-aaa' }]).clusterFrom).toBe('workloads');
  });

  it('a rollout step that names pods\' workload otherwise, or gives a workload its own endpoint, is built afresh', () => {
    // The ReplicaSet without its Deployment: its pods are its own (replicaset/web-aaa), not the Deployment's.
    const orphaned = nextLive([replicaSet('aaa', 12, null)], []);
    expect(orphaned.clusterFrom).toBe('built');
    expect(orphaned.state.cluster.podByKey.get('shop/web-aaa-0')?.workload).toBe('replicaset/web-aaa');
    // A ReplicaSet of no Deployment and without pods: an endpoint of its own appears.
    expect(nextLive([{ ...replicaSet('ccc', 1, null), metadata: { ...replicaSet('ccc', 1, null).metadata, name: 'other-ccc' } }], []).clusterFrom).toBe('built');
    // A Deployment with no pods changes its template: its own endpoint's labels change.
    const lonely = { ...items(true).at(-1)!, metadata: { name: 'lonely', namespace: 'shop' } };
    const base = compiledState(parsed([...items(true), lonely])!).state;
    const relabelled = { ...lonely, spec: { selector: { matchLabels: { app: 'lonely' } }, template: { metadata: { labels: { app: 'lonely', v: '2' } }, spec: { containers: [{ name: 'c' }] } } } };
    const n = nextVersion(base, { apply: parsed([relabelled])!, delete: [] });
    expect(n.ok && n.clusterFrom).toBe('built');
    // The ReplicaSet moved to another Deployment: its pods are that one's (no endpoint comes or goes with it).
    const moved = nextLive([replicaSet('aaa', 12, 'web2')], []);
    expect(moved.clusterFrom).toBe('built');
    expect(moved.state.cluster.podByKey.get('shop/web-aaa-0')?.workload).toBe('deployment/web2');
    // A Rollout taking its template from a PodTemplate (workloadRef), the PodTemplate edited alone.
    const template = (v: string) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'canary-tpl', namespace: 'shop' }, template: { metadata: { labels: { app: 'canary', v } }, spec: { containers: [{ name: 'c' }] } } });
    const rollout = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'canary', namespace: 'shop' }, spec: { selector: { matchLabels: { app: 'canary' } }, workloadRef: { apiVersion: 'v1', kind: 'PodTemplate', name: 'canary-tpl' } } };
    const withRollout = compiledState(parsed([...items(true), template('1'), rollout])!).state;
    const retemplated = nextVersion(withRollout, { apply: parsed([template('2')])!, delete: [] });
    expect(retemplated.ok && retemplated.clusterFrom).toBe('built');
    if (retemplated.ok) expect(retemplated.state.cluster.podByKey.get('shop/rollout/canary')?.labels).toEqual({ app: 'canary', v: '2' });
    // Deleting a workload that takes its pods with it (applyChanges' cascade).
    const cascade = nextVersion(compiledState(parsed(items(true))!).state, { apply: parsed([])!, delete: [{ kind: 'Deployment', namespace: 'shop', name: 'web' }] });
    expect(cascade.ok && cascade.clusterFrom).toBe('built');
    expect(cascade.ok && cascade.state.cluster.podByKey.has('shop/web-aaa-0')).toBe(false);
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
