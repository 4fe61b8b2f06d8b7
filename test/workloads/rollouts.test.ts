// Argo Rollouts (argoproj.io/v1alpha1 Rollout) are workloads like Deployments: their own
// template, or a Deployment's through workloadRef; pods followed to them through their
// ReplicaSets; validated as Argo validates them; previews retemplate their pods.
import { describe, expect, it } from 'vitest';
import { snapshotOf, clusterOf } from '../support/cluster-builders.js';
import { preview } from '../../core/preview/preview.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { createApp } from '../../functions/app.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { allowedTcp, API_FROM_FRONT, deployment, FRONT, GRPC, namespace, OTHER } from './support.js';

type Obj = Record<string, any>;

const parsed = snapshotOf;
const cluster = clusterOf;

const ports = GRPC;

function rollout(ns: string, name: string, spec: Obj): Obj {
  return { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name, namespace: ns }, spec };
}
const withTemplate = (labels: Record<string, string>, extra: Obj = {}): Obj => ({
  selector: { matchLabels: labels },
  template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'img', ports }] } },
  strategy: { canary: { steps: [{ setWeight: 20 }, { pause: {} }] } },
  ...extra,
});

const [policy, front, other] = [API_FROM_FRONT, FRONT, OTHER];

const allowed = allowedTcp;

describe('Argo Rollouts as workloads', () => {
  it('a Rollout with its own template is an endpoint with its labels and named ports, named rollout/ro/rollouts.argoproj.io', () => {
    const c = cluster([namespace('shop'), front, other, policy, rollout('shop', 'api', withTemplate({ app: 'api' }))]);
    const api = c.podByKey.get('shop/rollout/api')!;
    expect([api.labels, api.namedPorts]).toEqual([{ app: 'api' }, [{ name: 'grpc', protocol: 'TCP', port: 9000 }]]);
    for (const name of ['shop/rollout/api', 'shop/ro/api', 'shop/rollouts/api', 'shop/rollout.argoproj.io/api']) {
      expect(allowed(c, 'shop/deploy/web', name, 'grpc')).toBe(true);
      expect(allowed(c, 'shop/deploy/batch', name, 'grpc')).toBe(false);
    }
  });

  it('replicas: 0 asks for no pods: no endpoint', () => {
    const c = cluster([namespace('shop'), rollout('shop', 'api', withTemplate({ app: 'api' }, { replicas: 0 }))]);
    expect(c.podByKey.has('shop/rollout/api')).toBe(false);
  });

  it("workloadRef: the Rollout's pods are the Deployment's template; the Deployment scaled to 0 is no endpoint", () => {
    const ref = deployment('shop', 'api-ref', { app: 'api' }, ports);
    ref.spec.replicas = 0;
    const c = cluster([namespace('shop'), front, other, policy, ref, rollout('shop', 'api', { replicas: 3, selector: { matchLabels: { app: 'api' } }, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api-ref', scaleDown: 'onsuccess' } })]);
    expect(c.pods.map((p) => p.key).sort()).toEqual(['shop/deployment/batch', 'shop/deployment/web', 'shop/rollout/api']);
    expect(allowed(c, 'shop/deploy/web', 'shop/rollout/api', 'grpc')).toBe(true);
    expect(allowed(c, 'shop/deploy/batch', 'shop/rollout/api', 9000)).toBe(false);
    expect(c.warnings).toEqual([]);
  });

  it('workloadRef to a ReplicaSet: its template too (Argo resolves Deployments, ReplicaSets and PodTemplates)', () => {
    const rs = deployment('shop', 'api-rs', { app: 'api' }, ports, 'ReplicaSet');
    const c = cluster([namespace('shop'), front, policy, rs, rollout('shop', 'api', { workloadRef: { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'api-rs' } })]);
    expect(c.podByKey.get('shop/rollout/api')?.labels).toEqual({ app: 'api' });
    expect(allowed(c, 'shop/deploy/web', 'shop/rollout/api', 'grpc')).toBe(true);
  });

  it('workloadRef to a v1 PodTemplate: its template (a PodTemplate is no endpoint itself)', () => {
    const pt = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'api-template', namespace: 'shop' }, template: { metadata: { labels: { app: 'api' } }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ name: 'grpc', containerPort: 9000 }] }] } } };
    const c = cluster([namespace('shop'), front, policy, pt, rollout('shop', 'api', { selector: { matchLabels: { app: 'api' } }, workloadRef: { apiVersion: 'v1', kind: 'PodTemplate', name: 'api-template' } })]);
    expect(c.podByKey.get('shop/rollout/api')?.labels).toEqual({ app: 'api' });
    expect(allowed(c, 'shop/deploy/web', 'shop/rollout/api', 'grpc')).toBe(true);
    expect(c.pods.map((p) => p.key)).toEqual(['shop/deployment/web', 'shop/rollout/api']);
    expect(c.warnings).toEqual([]);
  });

  it('workloadRef to what the input lacks (a PodTemplate of another namespace, one without a template): no endpoint, and a warning says why', () => {
    const ref = (kind: string, name: string) => ({ selector: { matchLabels: { app: 'api' } }, workloadRef: { apiVersion: kind === 'PodTemplate' ? 'v1' : 'apps/v1', kind, name } });
    const elsewhere = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'api-template', namespace: 'other' }, template: { metadata: { labels: { app: 'api' } } } };
    const empty = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'bare', namespace: 'shop' } };
    const c = cluster([namespace('shop'), namespace('other'), front, elsewhere, empty, rollout('shop', 'api', ref('Deployment', 'gone')), rollout('shop', 'tpl', ref('PodTemplate', 'api-template')), rollout('shop', 'bare', ref('PodTemplate', 'bare'))]);
    expect(['api', 'tpl', 'bare'].some((n) => c.podByKey.has(`shop/rollout/${n}`))).toBe(false);
    expect(c.warnings.map((w) => [w.code, w.message])).toEqual([
      ['rollout-template-missing', '3 Rollouts take their pod template from an object the input does not hold (a Deployment, ReplicaSet or PodTemplate of their namespace), so their pods are unknown and left out: shop/api (workloadRef: Deployment gone), shop/bare (workloadRef: PodTemplate bare), shop/tpl (workloadRef: PodTemplate api-template)'],
    ]);
  });

  it('validated as Argo validates it: one of template and workloadRef, a selector matching the template', () => {
    const issues = (spec: Obj) => {
      const p = parseSnapshot({ items: [rollout('shop', 'api', spec)] });
      return p.ok ? [] : p.issues.map((i) => [i.path, i.message]);
    };
    const ref = { kind: 'Deployment', name: 'api' };
    expect(issues({ selector: { matchLabels: { app: 'api' } } })).toEqual([['$.items[0].spec.template', 'a Rollout needs spec.template or spec.workloadRef']]);
    expect(issues({ ...withTemplate({ app: 'api' }), workloadRef: ref })).toEqual([['$.items[0].spec.template', 'template must be empty for workload reference rollout']]);
    // Without a selector, and of a kind Argo cannot take a template from: valid (the latter warned of when built).
    expect(issues({ workloadRef: ref })).toEqual([]);
    expect(issues({ workloadRef: { kind: 'StatefulSet', name: 'api' } })).toEqual([]);
    expect(issues({ ...withTemplate({ app: 'api' }), selector: undefined })).toEqual([['$.items[0].spec.selector', 'Required value']]);
    expect(issues({ ...withTemplate({ app: 'api' }), selector: { matchLabels: { app: 'other' } } })).toEqual([['$.items[0].spec.template.metadata.labels', 'selector does not match template labels']]);
    const wrongVersion = parseSnapshot({ items: [{ ...rollout('shop', 'api', withTemplate({ app: 'api' })), apiVersion: 'argoproj.io/v1' }] });
    expect(wrongVersion.ok ? [] : wrongVersion.issues.map((i) => i.message)).toEqual(['unsupported apiVersion "argoproj.io/v1" for Rollout; supported: argoproj.io/v1alpha1']);
  });
});

/** A running pod of Rollout `owner`, as Argo Rollouts makes it: ReplicaSet `<owner>-<hash>`, label rollouts-pod-template-hash. */
function rolloutPod(owner: string, hash: string, suffix: string, labels: Record<string, string>, ip: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${owner}-${hash}-${suffix}`, namespace: 'shop', labels: { ...labels, 'rollouts-pod-template-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${owner}-${hash}`, uid: 'u', controller: true }] },
    spec: { nodeName: 'node-1', containers: [{ name: 'main', ports }] },
    status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
  };
}

describe("a Rollout's pods in a live snapshot", () => {
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } };
  const stable = rolloutPod('api', '6d4f5b7c9', 'aaaaa', { app: 'api' }, '10.0.0.1');
  const canary = rolloutPod('api', '7f8c9d0e1', 'bbbbb', { app: 'api' }, '10.0.0.2');

  it('stand for it (followed through the ReplicaSet name and rollouts-pod-template-hash): the Rollout is its pods', () => {
    const c = cluster([namespace('shop'), node, rollout('shop', 'api', withTemplate({ app: 'api' })), stable, canary]);
    expect(c.pods.map((p) => [p.key, p.workload])).toEqual([
      ['shop/api-6d4f5b7c9-aaaaa', 'rollout/api'],
      ['shop/api-7f8c9d0e1-bbbbb', 'rollout/api'],
    ]);
  });

  it('a preview whose head changes the Rollout template relabels them, as a new Deployment template does', () => {
    const base = parsed([namespace('shop'), node, front, policy, rollout('shop', 'api', withTemplate({ app: 'api' })), stable, canary, { ...rolloutPod('web', '1a2b3c4d5', 'ccccc', { app: 'web', tier: 'front' }, '10.0.0.3'), metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web', tier: 'front' } } }]);
    // The head: the repository, where the Rollout's pods lose the label the policy selects.
    const head = parsed([namespace('shop'), front, policy, rollout('shop', 'api', withTemplate({ app: 'api-v2' }))]);
    const p = preview({ base, head }, { tables: false, lint: false });
    expect(p.workloads.retemplated).toEqual(['shop/rollout/api']);
    expect(p.workloads.deleted).toEqual([]);
  });

  it('a head that changes the PodTemplate a Rollout refers to relabels its pods too', () => {
    const template = (app: string) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'api-template', namespace: 'shop' }, template: withTemplate({ app }).template });
    const byRef = { selector: { matchLabels: { app: 'api' } }, workloadRef: { apiVersion: 'v1', kind: 'PodTemplate', name: 'api-template' } };
    const base = parsed([namespace('shop'), node, front, policy, template('api'), rollout('shop', 'api', byRef), stable, canary]);
    const head = parsed([namespace('shop'), front, policy, template('api-v2'), rollout('shop', 'api', byRef)]);
    const p = preview({ base, head }, { tables: false, lint: false });
    expect(p.workloads.retemplated).toEqual(['shop/rollout/api']);
    expect(p.workloads.deleted).toEqual([]);
  });
});

describe('versions from changes with Rollouts equal the same objects sent whole', () => {
  const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
  const put = async (cluster: string, version: string, body: unknown) => {
    const res = await app.request(`/v1/clusters/${cluster}/snapshots/${version}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBe(201);
  };
  /** A stored version's answer about every pod's reach, with the warnings its snapshot gave. */
  const said = async (cluster: string, version: string) => {
    const res = await app.request(`/v1/clusters/${cluster}/ask?q=${encodeURIComponent('what can shop/web-1 reach')}&version=${version}`);
    const { text, warnings } = (await res.json()) as { text: string; warnings: string[] };
    return { text, warnings };
  };
  const slice = async (cluster: string, version: string) => ((await (await app.request(`/v1/clusters/${cluster}/nodes/node-1/tables?version=${version}`)).json()) as { ir: unknown }).ir;
  type Step = { changes: { apply?: unknown[]; delete?: unknown[] }; items: unknown[] };
  /**
   * Each step stored as a version from changes of `cluster` and as the same objects sent whole
   * (to a cluster of its own): their node tables and answers are equal. The answers, in order.
   */
  const stepsEqualWhole = async (cluster: string, first: unknown[], steps: readonly Step[]): Promise<string[]> => {
    await put(cluster, '1', { items: first });
    const answers: string[] = [];
    for (const [i, step] of steps.entries()) {
      const version = String(i + 2);
      await put(cluster, version, { base: String(i + 1), changes: step.changes });
      await put(`${cluster}-whole-${version}`, version, { items: step.items });
      expect(await slice(cluster, version), `version ${version}`).toEqual(await slice(`${cluster}-whole-${version}`, version));
      const [fromChanges, whole] = [await said(cluster, version), await said(`${cluster}-whole-${version}`, version)];
      expect(fromChanges).toEqual(whole);
      answers.push(whole.text);
    }
    return answers;
  };
  const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } };
  const ref = deployment('shop', 'api-ref', { app: 'api' }, ports);
  ref.spec.replicas = 0;
  const api = rollout('shop', 'api', { selector: { matchLabels: { app: 'api' } }, workloadRef: { kind: 'Deployment', name: 'api-ref' } });
  const web = { ...rolloutPod('web', '1a2b3c4d5', 'ccccc', { app: 'web', tier: 'front' }, '10.0.0.3'), metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web', tier: 'front' } } };
  const stable = rolloutPod('api', '6d4f5b7c9', 'aaaaa', { app: 'api' }, '10.0.0.1');
  const base = [namespace('shop'), node, policy, ref, api, web, stable];

  it('a Rollout pod relabelled, its Deployment deleted, a Rollout added without pods', async () => {
    const relabelled = { ...stable, metadata: { ...stable.metadata, labels: { ...stable.metadata.labels, tier: 'front' } } };
    const added = rollout('shop', 'new', withTemplate({ app: 'new' }));
    const answers = await stepsEqualWhole('rollouts', base, [
      { changes: { apply: [relabelled] }, items: [namespace('shop'), node, policy, ref, api, web, relabelled] },
      { changes: { delete: [{ kind: 'Deployment', namespace: 'shop', name: 'api-ref' }] }, items: [namespace('shop'), node, policy, api, web, relabelled] },
      { changes: { apply: [added] }, items: [namespace('shop'), node, policy, api, web, relabelled, added] },
    ]);
    for (const text of answers) expect(text).toMatch(/^shop\/web-1 can reach/);
    for (const version of ['2', '3', '4']) {
      const pods = ((await slice('rollouts', version)) as { nodes: Record<string, { pods: Record<string, unknown> }> }).nodes['node-1']!.pods;
      expect(Object.keys(pods).sort()).toEqual(['shop/api-6d4f5b7c9-aaaaa', 'shop/web-1']);
    }
  });

  it('the PodTemplate a Rollout refers to added, changed and deleted', async () => {
    const template = (app: string) => ({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl', namespace: 'shop' }, template: withTemplate({ app }).template });
    const byRef = rollout('shop', 'by-ref', { selector: { matchLabels: { app: 'api' } }, workloadRef: { apiVersion: 'v1', kind: 'PodTemplate', name: 'tpl' } });
    const first = [namespace('shop'), node, policy, web, byRef];
    const answers = await stepsEqualWhole('templates', first, [
      { changes: { apply: [template('api')] }, items: [...first, template('api')] },
      { changes: { apply: [template('other')] }, items: [...first, template('other')] },
      { changes: { delete: [{ kind: 'PodTemplate', namespace: 'shop', name: 'tpl' }] }, items: first },
    ]);
    // The policy isolates app=api, admitting grpc (9000) alone; an app=other template is not isolated; no template, no endpoint.
    expect(answers).toEqual([
      'shop/web-1 can reach 1 of 1 other pod: shop/rollout/by-ref (TCP 9000).',
      'shop/web-1 can reach 1 of 1 other pod: shop/rollout/by-ref (all ports).',
      'shop/web-1 can reach no pod (0 of 0 other pods).',
    ]);
  });
});
