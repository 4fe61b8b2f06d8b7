// groupsByIdentity (compile/group.ts) answers groupOf once per identity: a pod's namespace, the
// labels subject selectors read and (ingress) its named ports. On random snapshots, every subject
// pod's cached group must say what groupOf says of the pod itself (same tables, same policies),
// and pods whose other labels differ must share groups, as must (ingress) pods whose named ports
// differ only in names no ingress rule uses, or the projections are never exercised.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupOf, groupsByIdentity, subjectLabelKeys } from '../../core/compile/group.js';
import { compileSets } from '../../core/sets/index.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { generatedCluster, snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);

describe('groups by pod identity', () => {
  it(`equal groupOf of each pod, on ${RUNS} random snapshots`, () => {
    let sharedDespiteLabels = 0;
    let sharedDespitePorts = 0;
    assertProperty(
      fc.property(snapshotArb, (snapshot) => {
        const cluster = generatedCluster(snapshot);
        const cached = groupsByIdentity(cluster);
        for (const pod of cluster.pods) {
          if (pod.hostNetwork || pod.ips.length === 0) continue;
          for (const dir of ['ingress', 'egress'] as const) {
            const got = cached(pod, dir);
            const want = groupOf(cluster, pod, dir);
            expect(got.signature, `${dir} of ${pod.key}`).toBe(want.signature);
            expect(got.policySignature, `${dir} of ${pod.key}`).toBe(want.policySignature);
            const rep = got.representative;
            if (rep !== pod && JSON.stringify(rep.labels) !== JSON.stringify(pod.labels)) sharedDespiteLabels++;
            if (dir === 'ingress' && rep !== pod && JSON.stringify(rep.namedPorts) !== JSON.stringify(pod.namedPorts)) sharedDespitePorts++;
          }
        }
      }),
      { file: import.meta.url, env: ['PROPERTY_RUNS', 'PROPERTY_DEPTH'], numRuns: RUNS },
    );
    expect(sharedDespiteLabels).toBeGreaterThan(0);
    expect(sharedDespitePorts).toBeGreaterThan(0);
  });

  it(`labels no selector names change nothing compiled (${RUNS} random snapshots, a label of its own on every pod)`, () => {
    assertProperty(
      fc.property(snapshotArb, (snapshot) => {
        const tagged = {
          ...snapshot,
          items: snapshot.items.map((o) => (o.kind === 'Pod' ? { ...o, metadata: { ...o.metadata, labels: { ...(o.metadata as { labels?: object }).labels, 'statefulset.kubernetes.io/pod-name': o.metadata.name } } } : o)),
        };
        const [plain, own] = [compileSets(generatedCluster(snapshot)), compileSets(generatedCluster(tagged))];
        expect(JSON.stringify(own.ir)).toBe(JSON.stringify(plain.ir));
        expect(own.stats).toEqual(plain.stats);
      }),
      { file: import.meta.url, env: ['PROPERTY_RUNS', 'PROPERTY_DEPTH'], numRuns: RUNS },
    );
  });

  it('reads the keys of subject selectors only, cluster-scoped ones in every namespace', async () => {
    const { buildCluster } = await import('../../core/cluster.js');
    const { parseSnapshot } = await import('../../schemas/snapshot.js');
    const pod = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'a', labels }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] }, status: { podIP: `10.0.0.${name.length}`, phase: 'Running' } });
    const parsed = parseSnapshot({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } },
        pod('web-0', { app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-0' }),
        { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'a' }, spec: { podSelector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, ingress: [{ from: [{ podSelector: { matchLabels: { peer: 'x' } } }] }] } },
        { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'anp' }, spec: { priority: 1, subject: { pods: { namespaceSelector: {}, podSelector: { matchLabels: { role: 'db' } } } }, ingress: [{ action: 'Allow', from: [{ namespaces: {} }] }] } },
      ],
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const cluster = buildCluster(parsed.snapshot);
    // Peer selectors (`peer`) and labels no selector names (`statefulset…/pod-name`) are left out.
    expect(subjectLabelKeys(cluster, cluster.nsByName.get('a')!.idx)).toEqual(['app', 'role', 'tier']);
    expect(subjectLabelKeys(cluster, cluster.nsByName.get('b')!.idx)).toEqual(['role']);
  });
});
