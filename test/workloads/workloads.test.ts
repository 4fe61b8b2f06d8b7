// Workloads are endpoints: repositories of Deployments, StatefulSets, DaemonSets and CronJobs
// give verdicts and matrices at workload level; pods in the input stand for their owners.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { resolveFlow } from '../../core/evaluate/resolve.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { deployment, fixtureCluster, namespace, ownedPod, table } from './support.js';

const cluster = (items: unknown[]) => {
  const p = parseSnapshot({ items });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return buildCluster(p.snapshot);
};

describe('a repository of workloads', () => {
  it('a rendered kustomize overlay: default deny, web open on http, db only from web on postgres', () => {
    const c = fixtureCluster('kustomize');
    expect(c.pods.map((p) => p.key)).toEqual(['shop-prod/deployment/prod-db', 'shop-prod/deployment/prod-web']);
    expect(c.pods.every((p) => p.ips.length === 0)).toBe(true);
    expect(table(c, 5432)).toBe(['-\tshop-prod/deployment/prod-db\tshop-prod/deployment/prod-web', 'shop-prod/deployment/prod-db\t.\tX', 'shop-prod/deployment/prod-web\t.\t.'].join('\n'));
    expect(table(c, 8080)).toBe(['-\tshop-prod/deployment/prod-db\tshop-prod/deployment/prod-web', 'shop-prod/deployment/prod-db\t.\t.', 'shop-prod/deployment/prod-web\tX\t.'].join('\n'));
  });

  it('a rendered Helm chart: the cache admits only the api on the redis port; the CronJob is an endpoint (namespace default)', () => {
    const c = fixtureCluster('helm');
    expect(c.pods.map((p) => p.key)).toEqual(['default/cronjob/shop-report', 'default/deployment/shop-api', 'default/statefulset/shop-cache']);
    const t = table(c, 6379).split('\n');
    expect(t[0]).toBe('-\tdefault/cronjob/shop-report\tdefault/deployment/shop-api\tdefault/statefulset/shop-cache');
    expect(t[1]).toBe('default/cronjob/shop-report\t.\t.\tX');
    expect(t[2]).toBe('default/deployment/shop-api\t.\t.\t.');
    const v = evaluate(c, resolveFlow(c, { from: { pod: 'default/cj/shop-report' }, to: { pod: 'default/sts/shop-cache' }, port: 'redis', protocol: 'TCP' }));
    expect(v.allowed).toBe(false);
    expect(v.ingress?.trace.at(-1)?.message).toContain('isolated for ingress by shop-cache');
  });

  it('Deployments, a DaemonSet, NetworkPolicies and an AdminNetworkPolicy: tenants isolated, monitoring admitted everywhere', () => {
    const c = fixtureCluster('repo');
    expect(table(c, 5432)).toBe(
      [
        '-\tmonitoring/daemonset/node-exporter\tpayments/deployment/api\tshop/deployment/web\tshop/statefulset/db',
        'monitoring/daemonset/node-exporter\t.\t.\t.\t.',
        'payments/deployment/api\tX\t.\tX\tX',
        'shop/deployment/web\tX\tX\t.\t.',
        'shop/statefulset/db\tX\tX\t.\t.',
      ].join('\n'),
    );
    const v = evaluate(c, resolveFlow(c, { from: { pod: 'payments/deploy/api' }, to: { pod: 'shop/statefulset/db' }, port: 5432, protocol: 'TCP' }));
    expect(v.ingress?.policy?.name).toBe('tenant-isolation');
    expect(v.ingress?.rule?.name).toBe('other-tenants');
  });

  it('ipBlock never matches an address-less workload; selectors do', () => {
    const c = cluster([
      namespace('x'),
      deployment('x', 'a', { app: 'a' }),
      deployment('x', 'b', { app: 'b' }),
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'b-from-all-addresses', namespace: 'x' }, spec: { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }, { ipBlock: { cidr: '::/0' } }] }] } },
    ]);
    expect(evaluate(c, resolveFlow(c, { from: { pod: 'x/deployment/a' }, to: { pod: 'x/deployment/b' }, port: 80, protocol: 'TCP' })).allowed).toBe(false);
  });

  it('names workloads as kubectl does: kind, plural, short name, group suffix; namespace default when left out', () => {
    const c = cluster([deployment('default', 'web', { app: 'web' }), deployment('default', 'db', { app: 'db' }, [], 'StatefulSet')]);
    for (const name of ['default/deployment/web', 'default/deploy/web', 'default/deployments/web', 'default/deployment.apps/web', 'deploy/web', 'deployment/web']) {
      const flow = resolveFlow(c, { from: { pod: name }, to: { pod: 'sts/db' }, port: 80, protocol: 'TCP' });
      expect(flow.from.kind === 'pod' && flow.from.pod.key).toBe('default/deployment/web');
    }
    expect(() => resolveFlow(c, { from: { pod: 'default/ds/web' }, to: { pod: 'sts/db' }, port: 80, protocol: 'TCP' })).toThrow(/no pod "default\/ds\/web"/);
  });

  it('a Job carries the labels its controller adds; finished Jobs and workloads scaled to 0 are no endpoints', () => {
    const job = (name: string, conditions: unknown[] = []) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'x' }, spec: { template: { metadata: { labels: { app: 'm' } }, spec: { containers: [{ name: 'c' }] } } }, status: { conditions } });
    const zero = deployment('x', 'idle', { app: 'idle' });
    zero.spec.replicas = 0;
    const c = cluster([namespace('x'), job('migrate'), job('done', [{ type: 'Complete', status: 'True' }]), zero]);
    expect(c.pods.map((p) => p.key)).toEqual(['x/job/migrate']);
    expect(c.pods[0]!.labels).toEqual({ app: 'm', 'batch.kubernetes.io/job-name': 'migrate', 'job-name': 'migrate' });
  });
});

describe('owners', () => {
  it('a Deployment whose pods are in the input is represented by its pods (ReplicaSet by the pod-template-hash convention)', () => {
    const c = cluster([namespace('x'), deployment('x', 'web', { app: 'web' }), deployment('x', 'db', { app: 'db' }), ownedPod('x', 'web', 'abcde', { app: 'web' }, '10.0.0.1'), ownedPod('x', 'web', 'fghij', { app: 'web' }, '10.0.0.2')]);
    expect(c.pods.map((p) => [p.key, p.workload])).toEqual([
      ['x/deployment/db', 'deployment/db'],
      ['x/web-5d8f7c9b6-abcde', 'deployment/web'],
      ['x/web-5d8f7c9b6-fghij', 'deployment/web'],
    ]);
  });

  it('follows a ReplicaSet in the input to its Deployment, and StatefulSet pods directly', () => {
    const rs = { ...deployment('x', 'web-77', { app: 'web' }, [], 'ReplicaSet') };
    rs.metadata.ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'u', controller: true }];
    const pod = ownedPod('x', 'web', 'a', { app: 'web' }, '10.0.0.1');
    pod.metadata.ownerReferences[0].name = 'web-77';
    const sts = { ...ownedPod('x', 'db', 'x', { app: 'db' }, '10.0.0.2'), metadata: { name: 'db-0', namespace: 'x', labels: { app: 'db' }, ownerReferences: [{ kind: 'StatefulSet', name: 'db', controller: true }] } };
    const c = cluster([namespace('x'), deployment('x', 'web', { app: 'web' }), rs, pod, deployment('x', 'db', { app: 'db' }, [], 'StatefulSet'), sts]);
    expect(c.pods.map((p) => [p.key, p.workload])).toEqual([
      ['x/db-0', 'statefulset/db'],
      ['x/web-5d8f7c9b6-a', 'deployment/web'],
    ]);
  });
});
