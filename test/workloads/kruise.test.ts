// OpenKruise's workloads: a CloneSet is a workload as a Deployment is (its own pods, no
// ReplicaSet between); Advanced StatefulSet and DaemonSet are read as the apps/v1 kinds they
// extend.
import { describe, expect, it } from 'vitest';
import { snapshotOf, clusterOf } from '../support/cluster-builders.js';
import { buildCluster } from '../../core/cluster.js';
import { ask } from '../../core/ask/answer.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { allowedTcp, API_FROM_FRONT, deployment, FRONT, GRPC, namespace, OTHER, table } from './support.js';

type Obj = Record<string, any>;

const parsed = snapshotOf;
const cluster = clusterOf;
const allowed = allowedTcp;

const ports = GRPC;
const [policy, front, other] = [API_FROM_FRONT, FRONT, OTHER];
const kruise = (w: Obj, apiVersion: string, kind = w.kind): Obj => ({ ...w, apiVersion, kind });

describe('OpenKruise workloads', () => {
  it('a CloneSet is an endpoint with its template\'s labels and named ports, named cloneset/clone/clonesets.apps.kruise.io', () => {
    const c = cluster([namespace('shop'), front, other, policy, kruise(deployment('shop', 'api', { app: 'api' }, ports), 'apps.kruise.io/v1alpha1', 'CloneSet')]);
    expect(c.podByKey.get('shop/cloneset/api')?.labels).toEqual({ app: 'api' });
    for (const name of ['shop/cloneset/api', 'shop/clone/api', 'shop/clonesets/api', 'shop/cloneset.apps.kruise.io/api']) {
      expect(allowed(c, 'shop/deploy/web', name, 'grpc')).toBe(true);
      expect(allowed(c, 'shop/deploy/batch', name, 'grpc')).toBe(false);
    }
    // The same answers as the Deployment it stands in for.
    const asDeployment = cluster([namespace('shop'), front, other, policy, deployment('shop', 'api', { app: 'api' }, ports)]);
    expect(table(c, 9000).replaceAll('cloneset/api', 'deployment/api')).toBe(table(asDeployment, 9000));
  });

  it("a CloneSet's live pods are followed to it (owned directly, instance-id label per pod)", () => {
    const pod = (id: string, ip: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `api-${id}`, namespace: 'shop', labels: { app: 'api', 'apps.kruise.io/cloneset-instance-id': id, 'controller-revision-hash': 'api-7d9f' }, ownerReferences: [{ apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', name: 'api', uid: 'u', controller: true }] },
      spec: { nodeName: 'node-1', containers: [{ name: 'main', ports }] },
      status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
    });
    const c = cluster([namespace('shop'), front, policy, kruise(deployment('shop', 'api', { app: 'api' }, ports), 'apps.kruise.io/v1alpha1', 'CloneSet'), pod('x7k2p', '10.0.0.5'), pod('m3q9z', '10.0.0.6')]);
    expect(c.pods.filter((p) => p.workload === 'cloneset/api').map((p) => p.key).sort()).toEqual(['shop/api-m3q9z', 'shop/api-x7k2p']);
    // The CloneSet is represented by its pods, not by an address-less endpoint of its own.
    expect(c.podByKey.has('shop/cloneset/api')).toBe(false);
    for (const p of ['shop/api-x7k2p', 'shop/api-m3q9z']) expect(allowed(c, 'shop/deploy/web', p, 'grpc')).toBe(true);
    // Asked by the CloneSet's name: each of its pods.
    expect((ask(c, 'can shop/deploy/web reach shop/clone/api on grpc') as { text: string }).text).toMatch(/^Yes: .*shop\/cloneset\/api .*2 pods/);
  });

  it('a CloneSet is validated as a Deployment is: selector required and matching its template', () => {
    const bad = kruise({ ...deployment('shop', 'api', { app: 'api' }), spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'api' } } } } }, 'apps.kruise.io/v1alpha1', 'CloneSet');
    const r = parseSnapshot({ items: [bad] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => [i.path, i.message])).toEqual([['$.items[0].spec.template.metadata.labels', 'selector does not match template labels']]);
  });

  it.each([
    ['apps.kruise.io/v1beta1', 'StatefulSet'],
    ['apps.kruise.io/v1alpha1', 'StatefulSet'],
    ['apps.kruise.io/v1alpha1', 'DaemonSet'],
  ])('Advanced %s %s: the same objects and answers as the apps/v1 kind', (apiVersion, kind) => {
    const upstream = deployment('shop', 'api', { app: 'api' }, ports, kind);
    const advanced = { ...kruise(upstream, apiVersion), spec: { ...upstream.spec, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { podUpdatePolicy: 'InPlaceIfPossible' } } } };
    const [a, b] = [parsed([namespace('shop'), front, policy, advanced]), parsed([namespace('shop'), front, policy, upstream])];
    expect(a.objects).toEqual(b.objects);
    expect(a.ignored).toEqual({});
    expect(table(buildCluster(a), 9000)).toBe(table(buildCluster(b), 9000));
  });
});
