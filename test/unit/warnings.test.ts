// Cluster warnings are structured where they are made: each code with the object and path it
// is about (where there is one), and the text outputs show as `message`.
import { afterAll, describe, expect, it } from 'vitest';
import { buildCluster, withPodsDerived, type Cluster } from '../../core/cluster.js';
import { WARNING_CODES, warningMessages, type ClusterWarning, type WarningCode } from '../../core/warnings.js';
import type { Pod } from '../../schemas/k8s/core.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { adminNetworkPolicy, clusterNetworkPolicy, clusterOf, namespace, node, pod, smallCluster, verdict, type K8sObject } from '../support/cluster-builders.js';

const seen = new Set<WarningCode>();
/** The warnings of one code, with every code seen noted for the registry check below. */
function ofCode(cluster: Cluster, code: WarningCode): ClusterWarning[] {
  for (const w of cluster.warnings) seen.add(w.code);
  return cluster.warnings.filter((w) => w.code === code);
}
const all = { namespaces: {} };

/** x/a (10.0.1.10) and y/c (10.0.2.12) name port http (8080); x/b (10.0.1.11) names none. */
function withHttpPods(policy: K8sObject): Cluster {
  const web = [{ name: 'http', containerPort: 8080 }];
  return clusterOf([namespace('x'), namespace('y'), node('n1', '172.18.0.2'), pod('x/a', { ip: '10.0.1.10', node: 'n1', ports: web }), pod('x/b', { ip: '10.0.1.11', node: 'n1' }), pod('y/c', { ip: '10.0.2.12', node: 'n1', ports: web }), policy]);
}

describe('cluster warnings', () => {
  it('namespace-assumed: the namespace without a Namespace object', () => {
    const [w, ...rest] = ofCode(clusterOf([...smallCluster(), pod('z/d', { ip: '10.0.3.1', node: 'n1' })]), 'namespace-assumed');
    expect(rest).toEqual([]);
    expect(w).toEqual({ code: 'namespace-assumed', object: { kind: 'Namespace', name: 'z' }, message: expect.stringMatching(/^namespace "z" has pods or workloads but no Namespace object/) });
  });

  it('rollout-template-missing: Rollouts whose workloadRef the input does not give a template for, one warning for all', () => {
    const ro = (name: string, deployment: string) => ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name, namespace: 'x' }, spec: { selector: { matchLabels: { app: name } }, workloadRef: { kind: 'Deployment', name: deployment } } });
    expect(ofCode(clusterOf([...smallCluster(), ro('b', 'gone-b'), ro('a', 'gone-a')]), 'rollout-template-missing')).toEqual([
      { code: 'rollout-template-missing', message: '2 Rollouts take their pod template from an object the input does not hold (a Deployment, ReplicaSet or PodTemplate of their namespace), so their pods are unknown and left out: x/a (workloadRef: Deployment gone-a), x/b (workloadRef: Deployment gone-b)' },
    ]);
  });

  it('address-shared: the pod that does not get the address', () => {
    const ws = ofCode(clusterOf([...smallCluster(), pod('y/dup', { ip: '10.0.1.10', node: 'n1' }), pod('y/on-node', { ip: '172.18.0.2', node: 'n1' })]), 'address-shared');
    expect(ws.map((w) => w.object)).toEqual([{ kind: 'Pod', namespace: 'y', name: 'dup' }, { kind: 'Pod', namespace: 'y', name: 'on-node' }]);
    // The address as written (it once showed the index's integer key).
    expect(ws[0]!.message).toBe('address 10.0.1.10 belongs to both pod x/a and pod y/dup; the first one is used');
    expect(ws[1]!.message).toBe('address 172.18.0.2 belongs to both node n1 and pod y/on-node; the first one is used');
    expect(ws[1]!.path).toBeUndefined();
  });

  it('finished-pods-left-out and host-network-pods: one warning for all of them, about no single object', () => {
    const finished = { ...pod('x/done', { ip: '10.0.1.20', node: 'n1' }), status: { phase: 'Succeeded', podIP: '10.0.1.20' } };
    const cluster = clusterOf([...smallCluster(), finished, pod('y/agent', { ip: '172.18.0.2', node: 'n1', hostNetwork: true })]);
    expect(ofCode(cluster, 'finished-pods-left-out')).toEqual([{ code: 'finished-pods-left-out', message: '1 finished pod (Succeeded or Failed) left out, as they neither send nor receive: x/done' }]);
    expect(ofCode(cluster, 'host-network-pods')).toEqual([{ code: 'host-network-pods', message: "1 host-network pod treated as its node (no policy selects them; their address is the node's): y/agent" }]);
  });

  it('pod-on-missing-node: the pod, at spec.nodeName', () => {
    expect(ofCode(clusterOf([...smallCluster(), pod('x/lost', { ip: '10.0.1.40', node: 'gone' })]), 'pod-on-missing-node')).toEqual([
      { code: 'pod-on-missing-node', object: { kind: 'Pod', namespace: 'x', name: 'lost' }, path: 'spec.nodeName', message: 'pod x/lost runs on node "gone", which is not in the snapshot' },
    ]);
  });

  it('domain-names-not-evaluated and unknown-peer-fail-closed: the policy, at the peer', () => {
    const cluster = clusterOf([
      ...smallCluster(),
      clusterNetworkPolicy('dns', 'Admin', 3, { subject: all, egress: [{ action: 'Accept', to: [all] }, { action: 'Accept', to: [all, { domainNames: ['example.com'] }] }, { action: 'Deny', to: [{ domainNames: ['evil.example'] }] }] }),
      adminNetworkPolicy('future', 4, { subject: all, ingress: [{ action: 'Deny', from: [all, { sameNamespaceOf: {} }] }] }),
    ]);
    expect(ofCode(cluster, 'domain-names-not-evaluated')).toEqual([
      {
        code: 'domain-names-not-evaluated',
        object: { kind: 'ClusterNetworkPolicy', name: 'dns' },
        path: 'spec.egress[1].to[1]',
        message: 'ClusterNetworkPolicy dns egress rule 1 peer 1: domainNames peers are not evaluated (a snapshot has no DNS answers); the peer matches no flow',
      },
      {
        code: 'domain-names-not-evaluated',
        object: { kind: 'ClusterNetworkPolicy', name: 'dns' },
        path: 'spec.egress[2].to[0]',
        message: 'ClusterNetworkPolicy dns egress rule 2 peer 0: domainNames peers are not evaluated (a snapshot has no DNS answers); the peer matches no flow (upstream supports domainNames in Accept rules only)',
      },
    ]);
    expect(ofCode(cluster, 'unknown-peer-fail-closed')).toEqual([
      {
        code: 'unknown-peer-fail-closed',
        object: { kind: 'AdminNetworkPolicy', name: 'future' },
        path: 'spec.ingress[0].from[1]',
        message: 'AdminNetworkPolicy future ingress rule 0 peer 1: peer has no field this version knows (sameNamespaceOf); failing closed (matches everything)',
      },
    ]);
  });

  it('draft-spelling: each KEP-2091 draft spelling in a v1alpha2 object, at the draft field; none in v1alpha1', () => {
    const sel = { matchLabels: { team: 'x' } };
    const cluster = clusterOf([
      ...smallCluster(),
      clusterNetworkPolicy('draft', 'Admin', 3, {
        subject: { namespaceSelector: sel },
        egress: [{ action: 'Deny', to: [{ namespaces: { related: 'NotSelf' } }, { namespaces: { notSameLabels: ['team'] } }, { pods: { namespaces: { namespaceSelector: sel }, podSelector: {} } }, { namespaces: sel }] }],
      }),
      adminNetworkPolicy('draft-a1', 4, { subject: { namespaceSelector: sel }, ingress: [{ action: 'Deny', from: [{ namespaces: { sameLabels: ['team'] } }] }] }),
    ]);
    const ws = ofCode(cluster, 'draft-spelling');
    expect(ws.map(({ object, path }) => ({ object, path }))).toEqual([
      { object: { kind: 'ClusterNetworkPolicy', name: 'draft' }, path: 'spec.subject.namespaceSelector' },
      { object: { kind: 'ClusterNetworkPolicy', name: 'draft' }, path: 'spec.egress[0].to[0].namespaces.related' },
      { object: { kind: 'ClusterNetworkPolicy', name: 'draft' }, path: 'spec.egress[0].to[1].namespaces.notSameLabels' },
      { object: { kind: 'ClusterNetworkPolicy', name: 'draft' }, path: 'spec.egress[0].to[2].pods.namespaces' },
    ]);
    expect(ws[0]!.message).toBe(
      'ClusterNetworkPolicy draft subject: `namespaceSelector` is a KEP-2091 draft spelling, not a v1alpha2 field: the v1alpha2 API server rejects it (strict field validation) or prunes it; netpolc reads it as `subject.namespaces` with that selector',
    );
    expect(ws[1]!.message).toMatch(/^ClusterNetworkPolicy draft egress rule 0 peer 0: `namespaces\.related` is a KEP-2091 draft spelling.*reads it as every namespace except the subject pod's$/);
    expect(ws[2]!.message).toMatch(/reads it as the namespaces not sharing the subject pod's namespace's values for \[team\]/);
    expect(ws[3]!.message).toMatch(/reads it as `pods\.namespaceSelector` with that selector$/);
  });

  it('named-port-with-networks: a v1alpha2 egress rule, at its protocols; the named port resolves on the pods in those networks', () => {
    const cluster = withHttpPods(clusterNetworkPolicy('np-net', 'Admin', 3, { subject: all, egress: [{ action: 'Deny', to: [all, { networks: ['10.0.1.0/24'] }], protocols: [{ destinationNamedPort: 'http' }] }] }));
    expect(ofCode(cluster, 'named-port-with-networks')).toEqual([
      {
        code: 'named-port-with-networks',
        object: { kind: 'ClusterNetworkPolicy', name: 'np-net' },
        path: 'spec.egress[0].protocols',
        message: expect.stringMatching(/^ClusterNetworkPolicy np-net egress rule 0: destinationNamedPort with a networks peer \(to\[1\]\): the standard-channel CRD admits it, the experimental one refuses it .*resolves the named port on the pods whose addresses are in those networks/),
      },
    ]);
    // The rule's namespaces peer and its networks peer both reach x/a's http; x/b names no http port.
    expect(verdict(cluster, 'y/c', 'x/a', 8080).allowed).toBe(false);
    expect(verdict(cluster, 'y/c', 'x/b', 8080).allowed).toBe(true);
    // An ANP (v1alpha1: its CRD refuses the combination) is still a 422 issue.
    const anp = adminNetworkPolicy('np-net-a1', 4, { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['10.0.1.0/24'] }], ports: [{ namedPort: 'http' }] }] });
    const parsed = parseSnapshot({ items: [...smallCluster(), anp] });
    expect(!parsed.ok && parsed.issues.map((i) => i.message)).toEqual([expect.stringMatching(/cannot be set with named ports/)]);
  });

  it('a named port with a networks peer alone reaches only the pods in the networks that name it', () => {
    const cluster = withHttpPods(clusterNetworkPolicy('only-net', 'Admin', 3, { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['10.0.1.0/24'] }], protocols: [{ destinationNamedPort: 'http' }] }] }));
    expect(verdict(cluster, 'y/c', 'x/a', 8080).allowed).toBe(false);
    expect(verdict(cluster, 'y/c', 'x/b', 8080).allowed).toBe(true);
    expect(verdict(cluster, 'x/a', 'y/c', 8080).allowed).toBe(true);
    expect(verdict(cluster, 'y/c', '10.0.1.99', 8080).allowed).toBe(true);
  });

  it('field-ignored: a BaselineAdminNetworkPolicy priority and a tier matching the kind, at the field', () => {
    const banp = { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec: { priority: 5, tier: 'Baseline', subject: all, egress: [{ action: 'Deny', to: [all] }] } };
    const cluster = clusterOf([...smallCluster(), banp, adminNetworkPolicy('tiered', 4, { tier: 'Admin', subject: all })]);
    expect(ofCode(cluster, 'field-ignored')).toEqual([
      {
        code: 'field-ignored',
        object: { kind: 'BaselineAdminNetworkPolicy', name: 'default' },
        path: 'spec.priority',
        message: 'BaselineAdminNetworkPolicy default: spec.priority ignored: a BaselineAdminNetworkPolicy has no priority (KEP-2091: "There is no Priority field associated with BaselineAdminNetworkPolicy"); it is evaluated after every Baseline-tier ClusterNetworkPolicy',
      },
      expect.objectContaining({ code: 'field-ignored', path: 'spec.tier', object: { kind: 'BaselineAdminNetworkPolicy', name: 'default' } }),
      {
        code: 'field-ignored',
        object: { kind: 'AdminNetworkPolicy', name: 'tiered' },
        path: 'spec.tier',
        message: 'AdminNetworkPolicy tiered: spec.tier ignored: v1alpha1 has no tier field; the kind decides the tier, and this one names the same tier',
      },
    ]);
  });

  it('same-priority-order: the policy evaluated second, at spec.priority', () => {
    const cluster = clusterOf([...smallCluster(), adminNetworkPolicy('b-allow', 5, { subject: all, ingress: [] }), adminNetworkPolicy('a-deny', 5, { subject: all, ingress: [] })]);
    expect(ofCode(cluster, 'same-priority-order')).toEqual([
      {
        code: 'same-priority-order',
        object: { kind: 'AdminNetworkPolicy', name: 'b-allow' },
        path: 'spec.priority',
        message: 'AdminNetworkPolicy a-deny and AdminNetworkPolicy b-allow have the same priority (5) and both select pod x/a; a-deny is evaluated first (name order)',
      },
    ]);
  });

  it('policy-kinds-not-evaluated and kinds-ignored: counts by kind, about no single object', () => {
    const cluster = clusterOf([
      ...smallCluster(),
      { apiVersion: 'cilium.io/v2', kind: 'CiliumNetworkPolicy', metadata: { name: 'c', namespace: 'x' }, spec: {} },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'x' } },
      // Knative's Service is not the core kind: named with its apiVersion.
      { apiVersion: 'serving.knative.dev/v1', kind: 'Service', metadata: { name: 'hello', namespace: 'x' }, spec: { template: { spec: { containers: [{ image: 'x' }] } } } },
    ]);
    expect(ofCode(cluster, 'policy-kinds-not-evaluated')).toEqual([{ code: 'policy-kinds-not-evaluated', message: 'policies of kinds netpolc does not evaluate: CiliumNetworkPolicy (cilium.io/v2) (1); not evaluated: answers ignore them' }]);
    expect(ofCode(cluster, 'kinds-ignored')).toEqual([{ code: 'kinds-ignored', message: 'ignored objects of kinds policy evaluation does not read: ConfigMap (1), Service of serving.knative.dev/v1 (1)' }]);
  });

  it('object-left-out: the object when it could be read, and where in the input', () => {
    const items: unknown[] = [
      ...smallCluster(),
      { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'bad', namespace: 'x' }, spec: { podSelector: {}, ingress: [{ ports: [{ port: 80, endPort: 10 }] }] } },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'no-ns' }, spec: 5 },
      'not an object',
    ];
    const parsed = parseSnapshot({ items }, '$', { lenient: true });
    if (!parsed.ok) throw new Error('lenient reading failed');
    const ws = ofCode(buildCluster(parsed.snapshot), 'object-left-out');
    expect(ws.map(({ object, path }) => ({ object, path }))).toEqual([
      { object: { kind: 'NetworkPolicy', namespace: 'x', name: 'bad' }, path: '$.items[6].spec.ingress[0].ports[0].endPort' },
      // Namespaced kinds are in `default` when the object does not say, as parseSnapshot reads them.
      { object: { kind: 'Pod', namespace: 'default', name: 'no-ns' }, path: '$.items[7].spec' },
      { object: undefined, path: '$.items[8]' },
    ]);
    expect(ws[2]).not.toHaveProperty('object');
    expect(ws[2]!.message).toBe('left out a document (invalid, lenient reading): $.items[8]: each item must be a Kubernetes object');
    expect(ws[1]!.message).toMatch(/^left out Pod no-ns \(invalid, lenient reading\): \$\.items\[7\]\.spec: /);
  });

  it('object-left-out: a refused name is shown escaped, on one line', () => {
    const items: unknown[] = [...smallCluster(), { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web\nwarning: all clear', namespace: 'x' }, spec: { nodeName: 'n1' } }];
    const parsed = parseSnapshot({ items }, '$', { lenient: true });
    if (!parsed.ok) throw new Error('lenient reading failed');
    const [w] = ofCode(buildCluster(parsed.snapshot), 'object-left-out');
    expect(w!.message).toMatch(/^left out Pod x\/web\\x0awarning: all clear \(invalid, lenient reading\): \$\.items\[6\]\.metadata\.name: /);
    // The structured reference keeps the name as it was sent.
    expect(w!.object).toEqual({ kind: 'Pod', namespace: 'x', name: 'web\nwarning: all clear' });
  });

  it('no-pods', () => {
    expect(ofCode(clusterOf([namespace('x'), node('n1', '172.18.0.2')]), 'no-pods')).toEqual([
      { code: 'no-pods', message: 'the input has no pods and no workloads: selects-no-pods and every answer about endpoints need them' },
    ]);
  });

  it('a cluster derived for a version with more pods keeps them structured, as a fresh build makes them', () => {
    const objects = (...more: K8sObject[]): unknown[] => [...smallCluster(), pod('z/d', { ip: '10.0.3.1', node: 'n1' }), clusterNetworkPolicy('dns', 'Admin', 3, { subject: all, egress: [{ action: 'Accept', to: [{ domainNames: ['example.com'] }] }] }), ...more];
    const read = (items: unknown[]) => {
      const parsed = parseSnapshot({ items });
      if (!parsed.ok) throw new Error('invalid snapshot');
      return parsed.snapshot;
    };
    const added = pod('x/e', { ip: '10.0.1.50', node: 'n1' });
    const next = read(objects(added));
    const derived = withPodsDerived(buildCluster(read(objects())), next, { removed: [], added: [next.objects.find((o): o is Pod => o.kind === 'Pod' && o.metadata.name === 'e')!] });
    expect(derived).not.toBeNull();
    expect(derived!.warnings).toEqual(buildCluster(next).warnings);
    expect(derived!.warnings.map((w) => w.code)).toEqual(['namespace-assumed', 'domain-names-not-evaluated']);
    expect(warningMessages(derived!.warnings)).toEqual(derived!.warnings.map((w) => w.message));
  });
});

afterAll(() => {
  // Every code in the registry is made somewhere (the tests above reach each one).
  expect([...seen].sort()).toEqual(Object.keys(WARNING_CODES).sort());
});
