// Workloads of API versions served before Kubernetes 1.16 (and CronJobs before 1.21), as older
// repositories and vendored charts hold them: read as the API server stores them (apps/v1,
// batch/v1), the selector defaulted from the template's labels where the old version did so.
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { deployment, namespace, table } from './support.js';

type Obj = Record<string, any>;

const policy = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'db-from-web', namespace: 'shop' },
  spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] },
};

/** `w` written in an older version: its apiVersion, and without a selector when `bare`. */
function older(w: Obj, apiVersion: string, bare = false): Obj {
  const spec = { ...w.spec };
  if (bare) delete spec.selector;
  return { ...w, apiVersion, spec };
}

const current = [namespace('shop'), deployment('shop', 'web', { app: 'web' }), deployment('shop', 'db', { app: 'db' }, [], 'StatefulSet'), deployment('shop', 'cache', { app: 'cache' }, [], 'DaemonSet'), policy];

describe('older workload API versions', () => {
  it.each([
    ['extensions/v1beta1', 'apps/v1beta1', 'extensions/v1beta1', true],
    ['apps/v1beta1', 'apps/v1beta1', 'extensions/v1beta1', true],
    ['apps/v1beta2', 'apps/v1beta2', 'apps/v1beta2', false],
  ])('Deployment of %s, StatefulSet of %s, DaemonSet of %s: the same objects and answers as apps/v1 (selector defaulted: %s)', (deploy, sts, ds, bare) => {
    const items = [current[0]!, older(current[1]!, deploy, bare), older(current[2]!, sts, bare), older(current[3]!, ds, bare), policy];
    const [a, b] = [parseSnapshot({ items }), parseSnapshot({ items: current })];
    if (!a.ok || !b.ok) throw new Error(JSON.stringify(a.ok ? b : a));
    expect(a.snapshot.objects).toEqual(b.snapshot.objects);
    expect(a.snapshot.ignored).toEqual({});
    expect(table(buildCluster(a.snapshot), 80)).toBe(table(buildCluster(b.snapshot), 80));
  });

  it('apps/v1beta2 required the selector, as apps/v1 does: refused at spec.selector', () => {
    const r = parseSnapshot({ items: [older(deployment('shop', 'web', { app: 'web' }), 'apps/v1beta2', true)] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues.map((i) => i.path)).toEqual(['$.items[0].spec.selector']);
  });

  it('a defaulted selector needs template labels: none is refused as apps/v1 refuses it', () => {
    const w = older(deployment('shop', 'web', {}), 'extensions/v1beta1', true);
    const r = parseSnapshot({ items: [w] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]!.path).toBe('$.items[0].spec.selector');
  });

  it('CronJobs of batch/v1beta1 and batch/v2alpha1 read as batch/v1', () => {
    const cron = (apiVersion: string) => ({ apiVersion, kind: 'CronJob', metadata: { name: 'report', namespace: 'shop' }, spec: { schedule: '@daily', jobTemplate: { spec: { template: { metadata: { labels: { app: 'report' } }, spec: { containers: [{ name: 'r', image: 'img' }] } } } } } });
    const want = parseSnapshot({ items: [cron('batch/v1')] });
    for (const v of ['batch/v1beta1', 'batch/v2alpha1']) expect(parseSnapshot({ items: [cron(v)] }), v).toEqual(want);
  });

  it('an API version never served says which are read', () => {
    const r = parseSnapshot({ items: [older(deployment('shop', 'web', { app: 'web' }), 'apps/v1alpha1')] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toEqual([expect.objectContaining({ path: '$.items[0].apiVersion', message: 'unsupported apiVersion "apps/v1alpha1" for Deployment; supported: apps/v1, extensions/v1beta1, apps/v1beta1, apps/v1beta2' })]);
  });
});
