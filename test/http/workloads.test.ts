// Workload objects over HTTP: validated like the other kinds (422 with JSON paths), and
// named as endpoints `namespace/kind/name` by verdicts and matrices.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { deployment, namespace } from '../workloads/support.js';

const app = createApp({ logError: () => {} });

async function post(path: string, body: unknown) {
  const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as any };
}

const ITEMS = [namespace('x'), deployment('x', 'a', { app: 'a' }), deployment('x', 'b', { app: 'b' }, [{ name: 'http', containerPort: 8080 }])];
const snapshot = (extra: unknown[] = []) => ({ kind: 'List', apiVersion: 'v1', items: [...ITEMS, ...extra] });

describe('workloads over HTTP', () => {
  it('answers verdicts between workloads, named ports from the template', async () => {
    const r = await post('/v1/verdicts', { snapshot: snapshot(), flows: [{ from: 'x/deploy/a', to: 'x/deployment/b', port: 'http' }] });
    expect(r.status).toBe(200);
    expect(r.json.verdicts[0].flow).toMatchObject({ from: 'x/deployment/a', to: 'x/deployment/b', port: 8080, ipFamily: null });
    expect(r.json.verdicts[0].allowed).toBe(true);
  });

  it('prints a matrix over workloads', async () => {
    const r = await post('/v1/matrix', { snapshot: snapshot(), ports: [{ port: 80, protocol: 'TCP' }] });
    expect(r.status).toBe(200);
    expect(r.json.pods).toEqual(['x/deployment/a', 'x/deployment/b']);
    const named = await post('/v1/matrix', { snapshot: snapshot(), ports: [{ port: 80, protocol: 'TCP' }], pods: { names: ['x/deploy/b'] } });
    expect(named.json.pods).toEqual(['x/deployment/b']);
  });


  const cases: { name: string; object: Record<string, any>; path: string; message: RegExp }[] = [
    { name: 'selector missing', object: { ...deployment('x', 'c', { app: 'c' }), spec: { template: { metadata: { labels: { app: 'c' } } } } }, path: '$.snapshot.items[3].spec.selector', message: /./ },
    { name: 'selector does not match template labels', object: { ...deployment('x', 'c', { app: 'c' }), spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'c' } } } } }, path: '$.snapshot.items[3].spec.template.metadata.labels', message: /selector does not match template labels/ },
    { name: 'empty selector', object: { ...deployment('x', 'c', { app: 'c' }), spec: { selector: {}, template: {} } }, path: '$.snapshot.items[3].spec.selector', message: /empty selector is invalid for Deployment/ },
    { name: 'bad container port', object: deployment('x', 'c', { app: 'c' }, [{ name: 'http', containerPort: 70000 }]), path: '$.snapshot.items[3].spec.template.spec.containers[0].ports[0].containerPort', message: /65535/ },
    { name: 'bad template label', object: { ...deployment('x', 'c', { app: 'c' }), spec: { selector: { matchLabels: { app: 'c' } }, template: { metadata: { labels: { app: 'c', 'bad key!': 'v' } } } } }, path: '$.snapshot.items[3].spec.template.metadata.labels["bad key!"]', message: /invalid label key/ },
    { name: 'CronJob without jobTemplate', object: { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'x' }, spec: { schedule: '* * * * *' } }, path: '$.snapshot.items[3].spec.jobTemplate', message: /./ },
    { name: 'unsupported apiVersion', object: { ...deployment('x', 'c', { app: 'c' }), apiVersion: 'apps/v1alpha1' }, path: '$.snapshot.items[3].apiVersion', message: /supported: apps\/v1, extensions\/v1beta1, apps\/v1beta1, apps\/v1beta2/ },
  ];
  for (const c of cases) {
    it(`422 for a workload: ${c.name}`, async () => {
      const r = await post('/v1/verdicts', { snapshot: snapshot([c.object]), flows: [{ from: 'x/deploy/a', to: 'x/deploy/b', port: 80 }] });
      expect(r.status).toBe(422);
      const issue = r.json.issues.find((i: any) => i.path === c.path);
      expect(issue, JSON.stringify(r.json.issues)).toBeDefined();
      expect(issue.message).toMatch(c.message);
      expect(issue.object).toMatchObject({ kind: c.object.kind, name: 'c' });
    });
  }

  it('tolerates unknown fields of workloads', async () => {
    const d = deployment('x', 'c', { app: 'c' });
    d.spec.strategy = { type: 'RollingUpdate' };
    d.spec.template.spec.affinity = { nodeAffinity: {} };
    const r = await post('/v1/verdicts', { snapshot: snapshot([d]), flows: [{ from: 'x/deploy/c', to: 'x/deploy/b', port: 80 }] });
    expect(r.status).toBe(200);
  });

  it('422 for a snapshot without endpoints, saying what it holds', async () => {
    const policy = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p', namespace: 'x' }, spec: { podSelector: {} } };
    const r = await post('/v1/matrix', { snapshot: { items: [namespace('x'), policy, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }] }, ports: [{ port: 80, protocol: 'TCP' }] });
    expect(r.status).toBe(422);
    expect(r.json.issues).toEqual([{ path: '$.snapshot', message: 'no endpoints: the input has no pods, workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob) or nodes, only Namespace (1), NetworkPolicy (1), ConfigMap (1)' }]);
  });

  it('returns the warnings: other engines\' policies not evaluated', async () => {
    const cilium = { apiVersion: 'cilium.io/v2', kind: 'CiliumNetworkPolicy', metadata: { name: 'l7', namespace: 'x' }, spec: {} };
    const r = await post('/v1/matrix', { snapshot: snapshot([cilium]), ports: [{ port: 80, protocol: 'TCP' }] });
    expect(r.status).toBe(200);
    expect(r.json.warnings).toContain('policies of kinds netpolc does not evaluate: CiliumNetworkPolicy (cilium.io/v2) (1); not evaluated: answers ignore them');
  });
});
