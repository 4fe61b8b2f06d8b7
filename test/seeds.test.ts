// Every example of the design seeds (/work/shared/seeds/) as tests with expected verdicts.
//
// The expectations are read off the seeds' text — each test title says which sentence implies
// it — not off the engine. Seed objects live in test/fixtures/seeds/ (verbatim, with every
// correction of a seed typo marked there); the clusters that make each example meaningful,
// and the policies the seeds only describe in prose, are built here. Objects marked
// "scaffold" are not in the seed: they exist to make a stated property observable (e.g. a
// lower-precedence Deny, so that a Pass visibly skips it).
import { describe, expect, it } from 'vitest';
import { rangeToCidrs, parseIp } from '../core/net/ip.js';
import { parseSnapshot } from '../schemas/snapshot.js';
import {
  allow, clusterOf, deny, itFlows, loadYaml, namespace, networkPolicy, node, pod, variant, verdict,
  type FlowCase, type K8sObject,
} from './support/cluster-builders.js';

const UDP = { protocol: 'UDP' } as const;
const SCTP = { protocol: 'SCTP' } as const;
const ISOLATION_ANNOTATION = 'net.beta.kubernetes.io/network-policy';
const DEFAULT_DENY = JSON.stringify({ ingress: { isolation: 'DefaultDeny' } });
const NODES = [node('node-1', '10.240.0.1'), node('node-2', '10.240.0.2')];

/** The same cases with every verdict flipped to allowed (for non-isolated namespaces). */
const allAllowed = (cases: readonly FlowCase[], why: string, ingress: FlowCase['ingress']): FlowCase[] =>
  cases.map(({ from, to, port, protocol }) => ({ from, to, port, protocol, allowed: true, why, ingress }));

// ───────────────────────────── networkpolicy-v1beta1-proposal.txt ─────────────────────────────
//
// "Traffic is allowed to a pod if namespace.networkPolicy.ingress.isolation is undefined and
// cluster policy allows it, OR if the traffic source is the pod's local node, OR if the traffic
// matches at least one ingress rule across all of the NetworkPolicy objects whose podSelector
// matches the pod." The cluster default is "currently allow all". There is no egress policy.

describe('networkpolicy-v1beta1-proposal', () => {
  describe('Example 1: allow-frontend (only frontend pods, TCP 6379, to backend pods in myns)', () => {
    const [myns, allowFrontend] = loadYaml('networkpolicy-v1beta1-proposal/example-1-allow-frontend.yaml') as [K8sObject, K8sObject];
    const cluster = (ns: K8sObject) => [
      ...NODES,
      ns,
      namespace('otherns'),
      allowFrontend,
      pod('myns/backend', { ip: '10.1.0.10', node: 'node-1', labels: { role: 'backend' } }),
      pod('myns/frontend', { ip: '10.1.0.11', node: 'node-2', labels: { role: 'frontend' } }),
      pod('myns/worker', { ip: '10.1.0.12', node: 'node-2', labels: { role: 'worker' } }),
      pod('otherns/frontend', { ip: '10.2.0.11', node: 'node-2', labels: { role: 'frontend' } }),
    ];
    const byPolicy = { tier: 'networkpolicy', policy: 'allow-frontend' } as const;
    const isolatedDeny = { tier: 'networkpolicy', policy: null } as const;
    const flows: FlowCase[] = [
      allow('myns/frontend', 'myns/backend', 6379, 'frontend → backend on TCP 6379 matches the rule (from AND ports)', { ingress: byPolicy }),
      deny('myns/frontend', 'myns/backend', 6378, 'one below 6379: "only traffic on the specified protocol AND port"', { ingress: isolatedDeny }),
      deny('myns/frontend', 'myns/backend', 6380, 'one above 6379'),
      deny('myns/frontend', 'myns/backend', 6379, 'the rule names TCP; UDP 6379 does not match', UDP),
      deny('myns/worker', 'myns/backend', 6379, 'worker is not a frontend pod'),
      deny('otherns/frontend', 'myns/backend', 6379, 'a podSelector peer "selects Pods in this namespace" only'),
      deny('myns/backend', 'myns/frontend', 6379, 'DefaultDeny isolates every pod of myns; no policy selects frontend'),
      deny('myns/frontend', 'myns/worker', 80, 'DefaultDeny; no policy selects worker'),
      deny('203.0.113.5', 'myns/backend', 6379, '"connections to pods in that namespace (from any source) are prevented"'),
      deny('node:node-2', 'myns/backend', 6379, 'node-2 is not the backend pod\'s node (backend runs on node-1)'),
      allow('node:node-1', 'myns/backend', 6379, '"OR if the traffic source is the pod\'s local node"', { reason: 'node-local' }),
      allow('node:node-1', 'myns/backend', 10250, 'from its own node, any port (kubelet health checks)', { reason: 'node-local' }),
      allow('node:node-2', 'myns/frontend', 8080, 'frontend runs on node-2: its own node', { reason: 'node-local' }),
      allow('myns/backend', 'otherns/frontend', 80, 'the proposal has no egress policy, and otherns is not isolated'),
    ];

    describe('isolated namespace (DefaultDeny annotation, as in the seed)', () => {
      itFlows(() => cluster(myns), flows);
    });

    const open = variant(myns, (ns) => delete ns.metadata.annotations);
    describe('non-isolated namespace (no annotation): the cluster default, allow all, applies', () => {
      itFlows(
        () => cluster(open),
        allAllowed(
          flows.filter((c) => c.reason === undefined), // node-local flows are allowed before any tier
          '"If ingress isolation is disabled on the Namespace, use cluster default" (allow all)',
          { tier: 'default', policy: null },
        ),
      );
    });

    const undefinedIsolation = variant(myns, (ns) => (ns.metadata.annotations = { [ISOLATION_ANNOTATION]: '{"ingress": {}}' }));
    describe('annotation present but isolation undefined: "When not defined, the cluster default ingress isolation policy is applied"', () => {
      itFlows(() => cluster(undefinedIsolation), [
        allow('myns/worker', 'myns/backend', 6379, 'isolation undefined → allow all', { ingress: { tier: 'default' } }),
        allow('otherns/frontend', 'myns/backend', 80, 'isolation undefined → allow all'),
      ]);
    });
  });

  describe('Example 2: allow-tcp-443 (TCP 443 to frontend pods from any source in Bob\'s namespaces)', () => {
    const [allowTcp443] = loadYaml('networkpolicy-v1beta1-proposal/example-2-allow-tcp-443.yaml') as [K8sObject];
    const cluster = (isolated: boolean) => [
      ...NODES,
      // The policy has no namespace: it is in "default".
      namespace('default', isolated ? { annotations: { [ISOLATION_ANNOTATION]: DEFAULT_DENY } } : {}),
      namespace('bob-dev', { labels: { user: 'bob' } }),
      namespace('bob-prod', { labels: { user: 'bob' } }),
      namespace('alice', { labels: { user: 'alice' } }),
      allowTcp443,
      pod('default/frontend', { ip: '10.1.1.10', node: 'node-1', labels: { role: 'frontend' } }),
      pod('default/backend', { ip: '10.1.1.11', node: 'node-1', labels: { role: 'backend' } }),
      pod('default/client', { ip: '10.1.1.12', node: 'node-2' }),
      pod('bob-dev/client', { ip: '10.1.2.10', node: 'node-2' }),
      pod('bob-prod/client', { ip: '10.1.3.10', node: 'node-2' }),
      pod('alice/client', { ip: '10.1.4.10', node: 'node-2' }),
    ];
    const flows: FlowCase[] = [
      allow('bob-dev/client', 'default/frontend', 443, 'a pod in a namespace labelled user=bob, TCP 443', { ingress: { tier: 'networkpolicy', policy: 'allow-tcp-443' } }),
      allow('bob-prod/client', 'default/frontend', 443, '"matches all pods in all namespaces selected by this label selector"'),
      deny('bob-dev/client', 'default/frontend', 442, 'one below 443'),
      deny('bob-dev/client', 'default/frontend', 444, 'one above 443'),
      deny('bob-dev/client', 'default/frontend', 443, 'TCP only', UDP),
      deny('alice/client', 'default/frontend', 443, 'alice\'s namespace is labelled user=alice'),
      deny('default/client', 'default/frontend', 443, 'the policy\'s own namespace is not labelled user=bob'),
      deny('bob-dev/client', 'default/backend', 443, 'backend is not selected by role=frontend; namespace is DefaultDeny'),
      deny('198.51.100.7', 'default/frontend', 443, 'an address outside the cluster is not a pod of Bob\'s namespaces'),
    ];
    describe('isolated namespace', () => itFlows(() => cluster(true), flows));
    describe('non-isolated namespace', () =>
      itFlows(() => cluster(false), allAllowed(flows, 'isolation undefined → cluster default (allow all); the policy only allows', { tier: 'default', policy: null })));
  });

  describe('Example 3: allow-all (`podSelector:` empty, `ingress: [{}]`)', () => {
    const [allowAll] = loadYaml('networkpolicy-v1beta1-proposal/example-3-allow-all.yaml') as [K8sObject];
    const cluster = (isolated: boolean, policies: K8sObject[]) => [
      ...NODES,
      namespace('default', isolated ? { annotations: { [ISOLATION_ANNOTATION]: DEFAULT_DENY } } : {}),
      namespace('other'),
      ...policies,
      pod('default/a', { ip: '10.1.5.10', node: 'node-1', labels: { app: 'a' } }),
      pod('default/b', { ip: '10.1.5.11', node: 'node-1' }),
      pod('other/c', { ip: '10.1.6.10', node: 'node-2' }),
    ];
    const flows: FlowCase[] = [
      allow('other/c', 'default/a', 80, 'a rule without from and ports "matches all sources" and "all ports"'),
      allow('other/c', 'default/b', 5432, 'every pod: the empty podSelector "matches all pods in this namespace"', UDP),
      allow('default/a', 'default/b', 9000, 'any protocol', SCTP),
      allow('203.0.113.9', 'default/a', 443, 'any source, also outside the cluster'),
      allow('node:node-2', 'default/b', 22, 'any source, also another node'),
    ];
    describe('isolated namespace: allowed by the policy', () =>
      itFlows(() => cluster(true, [allowAll]), flows.map((c) => ({ ...c, ingress: { tier: 'networkpolicy', policy: 'allow-all' } }))));
    describe('non-isolated namespace: allowed by the cluster default', () =>
      itFlows(() => cluster(false, [allowAll]), flows.map((c) => ({ ...c, ingress: { tier: 'default', policy: null } }))));
    describe('isolated namespace without the policy (control): DefaultDeny denies the same flows', () =>
      itFlows(() => cluster(true, []), flows.map((c) => ({ ...c, allowed: false, why: `DefaultDeny and no policy (control for: ${c.why})` }))));
  });

  // Field semantics the examples rely on, from the Go comments of the proposal.
  describe('field semantics: an EMPTY from/ports list matches nothing, an ABSENT one matches everything', () => {
    const legacyPolicy = (ns: string, name: string, target: string, ingress: unknown[]): K8sObject => ({
      kind: 'NetworkPolicy',
      apiVersion: 'extensions/v1beta1',
      metadata: { name, namespace: ns },
      spec: { podSelector: { matchLabels: { target } }, ingress },
    });
    const servers = ['empty-from', 'empty-ports', 'absent-from', 'absent-ports', 'default-tcp', 'all-udp', 'any-ns', 'no-rules'];
    const cluster = (ns: string, isolated: boolean) => [
      ...NODES,
      namespace(ns, isolated ? { annotations: { [ISOLATION_ANNOTATION]: DEFAULT_DENY } } : {}),
      namespace('other'),
      legacyPolicy(ns, 'empty-from', 'empty-from', [{ from: [], ports: [{ protocol: 'TCP', port: 80 }] }]),
      legacyPolicy(ns, 'empty-ports', 'empty-ports', [{ from: [{ podSelector: {} }], ports: [] }]),
      legacyPolicy(ns, 'absent-from', 'absent-from', [{ ports: [{ protocol: 'TCP', port: 80 }] }]),
      legacyPolicy(ns, 'absent-ports', 'absent-ports', [{ from: [{ podSelector: { matchLabels: { app: 'client' } } }] }]),
      legacyPolicy(ns, 'default-tcp', 'default-tcp', [{ ports: [{ port: 53 }] }]),
      legacyPolicy(ns, 'all-udp', 'all-udp', [{ ports: [{ protocol: 'UDP' }] }]),
      legacyPolicy(ns, 'any-ns', 'any-ns', [{ from: [{ namespaceSelector: {} }] }]),
      legacyPolicy(ns, 'no-rules', 'no-rules', []),
      ...servers.map((s, i) => pod(`${ns}/${s}`, { ip: `10.3.0.${10 + i}`, node: 'node-1', labels: { target: s } })),
      pod(`${ns}/client`, { ip: '10.3.0.100', node: 'node-2', labels: { app: 'client' } }),
      pod('other/client', { ip: '10.3.1.100', node: 'node-2', labels: { app: 'client' } }),
    ];
    describe('isolated namespace', () =>
      itFlows(() => cluster('sem', true), [
        deny('sem/client', 'sem/empty-from', 80, '`from: []`: "If this field is empty, this rule matches no sources"'),
        deny('sem/client', 'sem/empty-ports', 80, '`ports: []`: "If this field is empty, this rule matches no ports"'),
        allow('other/client', 'sem/absent-from', 80, 'no `from`: "this rule matches all sources"'),
        allow('198.51.100.1', 'sem/absent-from', 80, 'no `from`: all sources, also outside the cluster'),
        deny('sem/client', 'sem/absent-from', 81, 'the port list still restricts the port'),
        allow('sem/client', 'sem/absent-ports', 80, 'no `ports`: "this rule matches all ports"'),
        allow('sem/client', 'sem/absent-ports', 5000, 'no `ports`: all ports and protocols', UDP),
        deny('other/client', 'sem/absent-ports', 80, 'the from list still restricts the source (podSelector: this namespace)'),
        allow('sem/client', 'sem/default-tcp', 53, 'protocol "If not specified, this field defaults to TCP"'),
        deny('sem/client', 'sem/default-tcp', 53, 'defaulted to TCP, so not UDP', UDP),
        allow('sem/client', 'sem/all-udp', 5353, 'no port: "this matches all port names and numbers" of the protocol', UDP),
        deny('sem/client', 'sem/all-udp', 5353, 'protocol UDP only'),
        allow('other/client', 'sem/any-ns', 8080, 'an empty namespaceSelector "selects all namespaces"'),
        deny('198.51.100.1', 'sem/any-ns', 8080, 'namespaceSelector matches pods, not outside addresses'),
        deny('sem/client', 'sem/no-rules', 80, 'a policy without ingress rules allows nothing; the namespace is isolated'),
      ]));
    describe('non-isolated namespace: policies only allow, they never isolate', () =>
      itFlows(() => cluster('open', false), [
        allow('open/client', 'open/empty-from', 80, 'isolation undefined → allow all (an unmatched rule denies nothing)'),
        allow('open/client', 'open/empty-ports', 80, 'isolation undefined → allow all'),
        allow('other/client', 'open/absent-ports', 80, 'isolation undefined → allow all'),
        allow('open/client', 'open/no-rules', 80, '"If this field is empty then this NetworkPolicy does not affect ingress isolation"'),
      ]));
  });
});

// ───────────────────────────── kep-2091-admin-network-policy.txt ─────────────────────────────
//
// Tiers: ANP (by priority, rules in order; Allow/Deny final, Pass → NetworkPolicy) →
// NetworkPolicy → BANP → "governed by the implementation … For most implementations, this
// means allow". "the AdminNetworkPolicy resource introduced by this KEP will never affect
// north-south traffic": peers are in-cluster pods, so an outside address matches no peer.

const kep = (file: string) => loadYaml(`kep-2091-admin-network-policy/${file}`);

/** A NetworkPolicy that selects every pod of `ns` and allows nothing in the given directions. */
const denyAll = (ns: string, types: ('Ingress' | 'Egress')[]) => networkPolicy(`${ns}/deny-all`, { podSelector: {}, policyTypes: types });
const nsName = (name: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': name } });

/** Scaffold: a lower-precedence AdminNetworkPolicy that denies all ingress to `subject` namespaces. */
const denyAllIngressAnp = (name: string, priority: number, subject: unknown): K8sObject => ({
  apiVersion: 'policy.networking.k8s.io/v1alpha1',
  kind: 'AdminNetworkPolicy',
  metadata: { name },
  spec: { priority, subject: { namespaces: subject }, ingress: [{ name: 'deny-all', action: 'Deny', from: [{ namespaces: { namespaceSelector: {} } }] }] },
});

describe('kep-2091-admin-network-policy', () => {
  describe('Story 1: cluster-wide-deny-example (Deny ingress to sensitive-ns from every namespace)', () => {
    const objects = (extra: K8sObject[]) => [
      ...NODES,
      namespace('sensitive-ns'),
      namespace('app-ns'),
      ...kep('story-1-cluster-wide-deny.yaml'),
      ...extra,
      pod('sensitive-ns/vault', { ip: '10.4.0.10', node: 'node-1', labels: { app: 'vault' } }),
      pod('sensitive-ns/audit', { ip: '10.4.0.11', node: 'node-2' }),
      pod('app-ns/web', { ip: '10.4.1.10', node: 'node-1' }),
      pod('app-ns/api', { ip: '10.4.1.11', node: 'node-2' }),
    ];
    const byAnp = { tier: 'admin', policy: 'cluster-wide-deny-example' } as const;
    const flows: FlowCase[] = [
      deny('app-ns/web', 'sensitive-ns/vault', 443, '"denying ingress from all other in-cluster resources"', { ingress: byAnp }),
      deny('app-ns/api', 'sensitive-ns/audit', 53, '"for all ports and protocols"', { ...UDP, ingress: byAnp }),
      deny('sensitive-ns/audit', 'sensitive-ns/vault', 8200, 'namespaceSelector {} selects every namespace, sensitive-ns too', { ingress: byAnp }),
      allow('sensitive-ns/vault', 'app-ns/web', 80, 'only ingress rules: egress from sensitive-ns is not affected'),
      allow('app-ns/web', 'app-ns/api', 80, 'app-ns is not a subject'),
      allow('203.0.113.20', 'sensitive-ns/vault', 443, '"will never affect north-south traffic"', { ingress: { tier: 'default' } }),
    ];
    describe('without NetworkPolicies', () => itFlows(() => objects([]), flows));
    describe('with a NetworkPolicy in sensitive-ns that allows all ingress', () => {
      const allowAllIngress = networkPolicy('sensitive-ns/allow-all-ingress', { podSelector: {}, ingress: [{}] });
      itFlows(() => objects([allowAllIngress]), [
        deny('app-ns/web', 'sensitive-ns/vault', 443, '"cannot be overridden or bypassed by namespace scoped NetworkPolicies"', { ingress: byAnp }),
        deny('sensitive-ns/audit', 'sensitive-ns/vault', 8200, 'non-overridable, also within the namespace', { ingress: byAnp }),
        allow('203.0.113.20', 'sensitive-ns/vault', 443, 'north-south traffic: not matched by the ANP; the NetworkPolicy allows it', { ingress: { tier: 'networkpolicy', policy: 'allow-all-ingress' } }),
      ]);
    });
  });

  describe('Story 2: cluster-wide-allow-example (egress to kube-dns, ingress from monitoring-ns, over NetworkPolicy isolation)', () => {
    const objects = () => [
      ...NODES,
      ...['kube-system', 'monitoring-ns', 'app-ns', 'other-ns'].map((n) => namespace(n)),
      ...kep('story-2-cluster-wide-allow.yaml'),
      // The developer isolates app-ns in both directions; the ANP's Allow rules must win.
      denyAll('app-ns', ['Ingress', 'Egress']),
      pod('kube-system/coredns', { ip: '10.5.0.10', node: 'node-1', labels: { app: 'kube-dns' } }),
      pod('kube-system/metrics-server', { ip: '10.5.0.11', node: 'node-1', labels: { app: 'metrics-server' } }),
      pod('monitoring-ns/prometheus', { ip: '10.5.1.10', node: 'node-2', labels: { app: 'prometheus' } }),
      pod('app-ns/web', { ip: '10.5.2.10', node: 'node-2', labels: { app: 'web' } }),
      pod('other-ns/fake-dns', { ip: '10.5.3.10', node: 'node-2', labels: { app: 'kube-dns' } }),
      pod('other-ns/client', { ip: '10.5.3.11', node: 'node-2' }),
    ];
    const byAnp = { tier: 'admin', policy: 'cluster-wide-allow-example' } as const;
    itFlows(objects, [
      allow('app-ns/web', 'kube-system/coredns', 53, '"allowing egress traffic to kube-dns pods", although app-ns egress is isolated', { ...UDP, egress: byAnp }),
      allow('app-ns/web', 'kube-system/coredns', 53, '"for all ports and protocols": TCP 53', { egress: byAnp }),
      allow('app-ns/web', 'kube-system/coredns', 9153, '"for all ports and protocols": metrics port', { egress: byAnp }),
      deny('app-ns/web', 'kube-system/metrics-server', 443, 'not app=kube-dns (the corrected `matchLabels`): the NetworkPolicy decides', { egress: { tier: 'networkpolicy', policy: null } }),
      deny('app-ns/web', 'other-ns/fake-dns', 53, 'app=kube-dns outside kube-system (the corrected namespace `matchLabels`)', UDP),
      allow('monitoring-ns/prometheus', 'app-ns/web', 9090, '"ingress traffic from pods in monitoring-ns", although app-ns ingress is isolated', { ingress: byAnp }),
      allow('monitoring-ns/prometheus', 'app-ns/web', 12345, '"for all ports and protocols"', { ...UDP, ingress: byAnp }),
      deny('other-ns/client', 'app-ns/web', 80, 'not from monitoring-ns: the NetworkPolicy isolation decides', { ingress: { tier: 'networkpolicy', policy: null } }),
      allow('other-ns/client', 'kube-system/coredns', 53, 'every namespace is a subject: egress to kube-dns allowed by the ANP', { ...UDP, egress: byAnp }),
    ]);
  });

  describe('Story 3: pub-svc-delegate-example (Pass egress to bar-ns-1/svc-pub on TCP 8080)', () => {
    const pass = 'pub-svc-delegate-example';
    // Scaffold: a lower-precedence guardrail the Pass must skip ("skip all further rules from
    // all lower precedenced ANPs").
    const denyBar: K8sObject = {
      apiVersion: 'policy.networking.k8s.io/v1alpha1',
      kind: 'AdminNetworkPolicy',
      metadata: { name: 'deny-egress-to-bar-ns-1' },
      spec: { priority: 100, subject: { namespaces: {} }, egress: [{ action: 'Deny', to: [{ namespaces: { namespaceSelector: nsName('bar-ns-1') } }] }] },
    };
    const objects = (extra: K8sObject[]) => () => [
      ...NODES,
      ...['foo-ns-1', 'foo-ns-2', 'bar-ns-1'].map((n) => namespace(n)),
      ...kep('story-3-pub-svc-delegate.yaml'),
      ...extra,
      pod('foo-ns-1/client', { ip: '10.6.1.10', node: 'node-1', labels: { app: 'client' } }),
      pod('foo-ns-2/client', { ip: '10.6.2.10', node: 'node-2', labels: { app: 'client' } }),
      pod('bar-ns-1/svc-pub', { ip: '10.6.3.10', node: 'node-1', labels: { app: 'svc-pub' } }),
      pod('bar-ns-1/svc-priv', { ip: '10.6.3.11', node: 'node-2', labels: { app: 'svc-priv' } }),
    ];
    const passedAllowed = { tier: 'default', policy: null, passedBy: pass } as const;

    describe('no NetworkPolicies anywhere', () =>
      itFlows(objects([]), [
        allow('foo-ns-1/client', 'bar-ns-1/svc-pub', 8080, '"If no k8s network policies touch the delegated traffic the traffic will be allowed"', { egress: passedAllowed, ingress: { tier: 'default' } }),
        allow('foo-ns-2/client', 'bar-ns-1/svc-pub', 8080, 'delegated; no NetworkPolicy in foo-ns-2 or bar-ns-1', { egress: passedAllowed }),
      ]));

    describe('with a lower-precedence Deny ANP (scaffold) that the Pass skips', () =>
      itFlows(objects([denyBar]), [
        allow('foo-ns-1/client', 'bar-ns-1/svc-pub', 8080, 'Pass "skip[s] all further rules from all lower precedenced ANPs"', { egress: passedAllowed }),
        deny('foo-ns-1/client', 'bar-ns-1/svc-pub', 8081, 'one above 8080: not delegated, the guardrail denies', { egress: { tier: 'admin', policy: 'deny-egress-to-bar-ns-1' } }),
        deny('foo-ns-1/client', 'bar-ns-1/svc-pub', 8079, 'one below 8080: not delegated'),
        deny('foo-ns-2/client', 'bar-ns-1/svc-pub', 8080, 'the Pass rule is for TCP 8080 only', UDP),
        deny('foo-ns-2/client', 'bar-ns-1/svc-priv', 8080, 'only app=svc-pub is delegated', { egress: { tier: 'admin', policy: 'deny-egress-to-bar-ns-1' } }),
      ]));

    describe('with a NetworkPolicy in the destination namespace bar-ns-1 (svc-pub: ingress only from foo-ns-2)', () => {
      const svcPubFromFoo2 = networkPolicy('bar-ns-1/svc-pub-from-foo-ns-2', {
        podSelector: { matchLabels: { app: 'svc-pub' } },
        ingress: [{ from: [{ namespaceSelector: nsName('foo-ns-2') }], ports: [{ protocol: 'TCP', port: 8080 }] }],
      });
      itFlows(objects([denyBar, svcPubFromFoo2]), [
        allow('foo-ns-2/client', 'bar-ns-1/svc-pub', 8080, 'delegated egress; the destination\'s NetworkPolicy allows foo-ns-2', {
          egress: passedAllowed,
          ingress: { tier: 'networkpolicy', policy: 'svc-pub-from-foo-ns-2' },
        }),
        deny('foo-ns-1/client', 'bar-ns-1/svc-pub', 8080, 'delegated egress, but the destination\'s NetworkPolicy does not allow foo-ns-1', {
          egress: passedAllowed,
          ingress: { tier: 'networkpolicy', policy: null },
        }),
      ]);
    });

    describe('with an egress NetworkPolicy in the source namespace foo-ns-1 ("delegated to the k8s network policies implemented in foo-ns-1")', () => {
      const dnsOnly = networkPolicy('foo-ns-1/egress-dns-only', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }] });
      itFlows(objects([denyBar, dnsOnly]), [
        deny('foo-ns-1/client', 'bar-ns-1/svc-pub', 8080, 'delegated to foo-ns-1\'s NetworkPolicy, which does not allow it', { egress: { tier: 'networkpolicy', passedBy: pass } }),
        allow('foo-ns-2/client', 'bar-ns-1/svc-pub', 8080, 'foo-ns-2 has no NetworkPolicy: allowed', { egress: passedAllowed }),
      ]);
    });
  });

  describe('Story 4: tenant-creation-example (tenants foo = foo-ns-1 + foo-ns-2, bar = bar-ns-1)', () => {
    const objects = (anp: string, extra: K8sObject[]) => () => [
      ...NODES,
      namespace('foo-ns-1', { labels: { tenant: 'foo' } }),
      namespace('foo-ns-2', { labels: { tenant: 'foo' } }),
      namespace('bar-ns-1', { labels: { tenant: 'bar' } }),
      namespace('shared'),
      ...kep(anp),
      ...extra,
      pod('foo-ns-1/a', { ip: '10.7.1.10', node: 'node-1' }),
      pod('foo-ns-1/b', { ip: '10.7.1.11', node: 'node-2' }),
      pod('foo-ns-2/a', { ip: '10.7.2.10', node: 'node-1' }),
      pod('foo-ns-2/b', { ip: '10.7.2.11', node: 'node-2' }),
      pod('bar-ns-1/a', { ip: '10.7.3.10', node: 'node-1' }),
      pod('shared/a', { ip: '10.7.4.10', node: 'node-2' }),
    ];
    const byAnp = { tier: 'admin', policy: 'tenant-creation-example' } as const;
    // Verdicts shared by both forms: "two tenants … where inter-tenant traffic is denied".
    const common = (intraTenant: FlowCase['ingress']): FlowCase[] => [
      allow('foo-ns-1/a', 'foo-ns-2/a', 80, 'same tenant (foo), different namespaces', { ingress: intraTenant }),
      allow('foo-ns-2/b', 'foo-ns-1/b', 80, 'same tenant, the other way', { ingress: intraTenant }),
      allow('foo-ns-1/a', 'foo-ns-1/b', 80, 'same tenant, same namespace', { ingress: intraTenant }),
      deny('foo-ns-1/a', 'bar-ns-1/a', 80, '"isolated from each other": foo → bar', { ingress: byAnp }),
      deny('bar-ns-1/a', 'foo-ns-2/a', 443, '"isolated from each other": bar → foo', { ingress: byAnp }),
      deny('bar-ns-1/a', 'foo-ns-1/b', 53, 'all ports and protocols', { ...UDP, ingress: byAnp }),
      deny('shared/a', 'foo-ns-1/a', 80, 'a namespace without a tenant label is no tenant\'s', { ingress: byAnp }),
      allow('foo-ns-1/a', 'shared/a', 80, 'shared has no tenant label: not a subject'),
      allow('203.0.113.30', 'foo-ns-1/a', 80, '"will never affect north-south traffic"'),
    ];
    // Scaffold: a lower-precedence ANP (priority 100 > 50) denying all ingress to tenant namespaces.
    const lower = denyAllIngressAnp('deny-all-ingress-to-tenants', 100, { matchExpressions: [{ key: 'tenant', operator: 'Exists' }] });
    // "delegated to the tenant Namespace owners": foo-ns-2 only admits its own namespace.
    const ownNsOnly = networkPolicy('foo-ns-2/own-namespace-only', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] });

    describe('first form: Deny from notSameLabels [tenant]', () => {
      describe('alone', () => itFlows(objects('story-4-tenant-creation.yaml', []), common({ tier: 'default', passedBy: null })));
      describe('with a lower-priority Deny ANP (scaffold): intra-tenant traffic "will fall through, and be evaluated against lower-priority" policies', () =>
        itFlows(objects('story-4-tenant-creation.yaml', [lower]), [
          deny('foo-ns-1/a', 'foo-ns-2/a', 80, 'falls through to the lower-priority Deny', { ingress: { tier: 'admin', policy: 'deny-all-ingress-to-tenants' } }),
          deny('foo-ns-1/a', 'bar-ns-1/a', 80, 'inter-tenant: denied by the tenant policy first', { ingress: byAnp }),
        ]));
    });

    describe('second form (the Note): Pass sameLabels [tenant], then Deny all namespaces', () => {
      const passed = { tier: 'default', passedBy: 'tenant-creation-example' } as const;
      describe('alone: the same verdicts as the first form', () => itFlows(objects('story-4-tenant-creation-pass-form.yaml', []), common(passed)));
      describe('with a lower-priority Deny ANP (scaffold): intra-tenant traffic "will skip all AdminNetworkPolicy evaluation"', () =>
        itFlows(objects('story-4-tenant-creation-pass-form.yaml', [lower]), [
          allow('foo-ns-1/a', 'foo-ns-2/a', 80, 'Pass skips the lower-priority Deny; no NetworkPolicy → allowed', { ingress: passed }),
          deny('foo-ns-1/a', 'bar-ns-1/a', 80, 'inter-tenant: the Deny rule of the same policy', { ingress: byAnp }),
        ]));
      describe('with a NetworkPolicy in foo-ns-2: intra-tenant traffic is "delegated to the tenant Namespace owners"', () =>
        itFlows(objects('story-4-tenant-creation-pass-form.yaml', [lower, ownNsOnly]), [
          deny('foo-ns-1/a', 'foo-ns-2/a', 80, 'passed to foo-ns-2\'s NetworkPolicy, which admits only its own namespace', {
            ingress: { tier: 'networkpolicy', policy: null, passedBy: 'tenant-creation-example' },
          }),
          allow('foo-ns-2/b', 'foo-ns-2/a', 80, 'passed to foo-ns-2\'s NetworkPolicy, which allows it', {
            ingress: { tier: 'networkpolicy', policy: 'own-namespace-only', passedBy: 'tenant-creation-example' },
          }),
        ]));
    });
  });

  describe('Story 5: baseline-rule-example (BANP: Deny all ingress and egress between namespaces)', () => {
    const objects = (extra: K8sObject[]) => () => [
      ...NODES,
      ...['app-a', 'app-b', 'app-c'].map((n) => namespace(n)),
      ...kep('story-5-baseline-guardrails.yaml'),
      ...extra,
      pod('app-a/x', { ip: '10.8.1.10', node: 'node-1' }),
      pod('app-a/x2', { ip: '10.8.1.11', node: 'node-2' }),
      pod('app-b/y', { ip: '10.8.2.10', node: 'node-1' }),
      pod('app-c/z', { ip: '10.8.3.10', node: 'node-2' }),
    ];
    const baseline = { tier: 'baseline', policy: 'default' } as const;
    const ingressFromA = networkPolicy('app-b/allow-from-app-a', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: nsName('app-a') }] }] });
    const egressToB = networkPolicy('app-a/allow-to-app-b', { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ namespaceSelector: nsName('app-b') }] }] });

    // The seed names its sample baseline-rule-example; the current v1alpha1 CRD allows only
    // "default" (docs/semantics.md, "Where the seeds and the current API differ"). The issue
    // asks for upstream's rule, so the seed's name is rejected with upstream's message.
    it('rejects the seed\'s own name, baseline-rule-example, with the upstream singleton rule', () => {
      const [banp] = kep('story-5-baseline-guardrails.yaml') as [K8sObject];
      const asWritten = variant(banp, (b) => (b.metadata.name = 'baseline-rule-example'));
      const parsed = parseSnapshot({ items: [asWritten] });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.issues).toEqual([expect.objectContaining({ path: '$.items[0].metadata.name', message: expect.stringContaining('metadata.name="default"') })]);
    });

    describe('without NetworkPolicies: "all intra-cluster traffic … is blocked by default"', () =>
      itFlows(objects([]), [
        deny('app-a/x', 'app-b/y', 80, 'blocked by the baseline deny rules', { egress: baseline, ingress: baseline }),
        deny('app-a/x', 'app-a/x2', 80, 'namespaceSelector {} covers the pod\'s own namespace too', { egress: baseline, ingress: baseline }),
        deny('app-c/z', 'app-b/y', 53, 'all ports and protocols', UDP),
        allow('203.0.113.40', 'app-b/y', 80, 'east-west only: an outside address matches no namespaces peer'),
        allow('app-a/x', '203.0.113.40', 443, 'east-west only, egress'),
      ]));

    describe('with NetworkPolicies on both sides: "Namespace owners will need to use NetworkPolicies to explicitly allow known traffic"', () =>
      itFlows(objects([ingressFromA, egressToB]), [
        allow('app-a/x', 'app-b/y', 8080, 'both sides allowed by NetworkPolicies, which override the baseline', {
          egress: { tier: 'networkpolicy', policy: 'allow-to-app-b' },
          ingress: { tier: 'networkpolicy', policy: 'allow-from-app-a' },
        }),
        deny('app-a/x', 'app-c/z', 80, 'not known traffic: app-a\'s egress policy does not allow app-c', { egress: { tier: 'networkpolicy', policy: null } }),
        deny('app-c/z', 'app-b/y', 80, 'app-c has no NetworkPolicy: its egress falls to the baseline deny', { egress: baseline }),
      ]));

    describe('with only the ingress NetworkPolicy: the egress side still falls to the baseline', () =>
      itFlows(objects([ingressFromA]), [
        deny('app-a/x', 'app-b/y', 8080, 'ingress allowed by app-b\'s policy, egress denied by the baseline', {
          egress: baseline,
          ingress: { tier: 'networkpolicy', policy: 'allow-from-app-a' },
        }),
      ]));
  });

  describe('Further examples: related Self (Pods [a1, b1] in x, [a2, b2] in y; Allow from app=b pods of the same namespace)', () => {
    const objects = (extra: K8sObject[]) => () => [
      ...NODES,
      namespace('x'),
      namespace('y'),
      ...kep('further-example-self.yaml'),
      ...extra,
      pod('x/a1', { ip: '10.9.1.10', node: 'node-1', labels: { app: 'a' } }),
      pod('x/b1', { ip: '10.9.1.11', node: 'node-2', labels: { app: 'b' } }),
      pod('y/a2', { ip: '10.9.2.10', node: 'node-1', labels: { app: 'a' } }),
      pod('y/b2', { ip: '10.9.2.11', node: 'node-2', labels: { app: 'b' } }),
    ];
    const byAnp = { tier: 'admin', policy: 'self-example' } as const;

    describe('the policy alone: which pairs it allows', () =>
      itFlows(objects([]), [
        allow('x/b1', 'x/a1', 80, '"the policy above allows x/b1 -> x/a1"', { ingress: byAnp }),
        allow('y/b2', 'y/a2', 80, '"… and y/b2 -> y/a2"', { ingress: byAnp }),
        allow('y/b2', 'x/a1', 80, '"does not allow y/b2 -> x/a1": not the policy\'s Allow (default allow)', { ingress: { tier: 'default', policy: null } }),
        allow('x/b1', 'y/a2', 80, '"does not allow … x/b1 -> y/a2": not the policy\'s Allow (default allow)', { ingress: { tier: 'default', policy: null } }),
      ]));

    describe('over a default-deny NetworkPolicy in x and y: "strictly allow"', () =>
      itFlows(objects([denyAll('x', ['Ingress']), denyAll('y', ['Ingress'])]), [
        allow('x/b1', 'x/a1', 80, '"allows x/b1 -> x/a1"', { ingress: byAnp }),
        allow('x/b1', 'x/a1', 8443, '"at all ports"', { ingress: byAnp }),
        allow('x/b1', 'x/a1', 53, '"at all ports" (and protocols)', { ...UDP, ingress: byAnp }),
        allow('y/b2', 'y/a2', 80, '"allows … y/b2 -> y/a2"', { ingress: byAnp }),
        deny('y/b2', 'x/a1', 80, '"does not allow y/b2 -> x/a1"', { ingress: { tier: 'networkpolicy', policy: null } }),
        deny('x/b1', 'y/a2', 80, '"does not allow … x/b1 -> y/a2"', { ingress: { tier: 'networkpolicy', policy: null } }),
        deny('x/a1', 'x/b1', 80, 'a1 has label app=a, not app=b'),
      ]));
  });

  describe('Further examples: sameLabels (t1-ns1, t1-ns2 tenant=t1; t2-ns1, t2-ns2 tenant=t2; Pass from the same tenant)', () => {
    const pass = 'same-labels-example';
    const objects = (extra: K8sObject[]) => () => [
      ...NODES,
      ...(['t1-ns1', 't1-ns2', 't2-ns1', 't2-ns2'] as const).map((n) => namespace(n, { labels: { tenant: n.slice(0, 2) } })),
      namespace('plain'),
      ...kep('further-example-same-labels.yaml'),
      ...extra,
      ...[1, 2, 3, 4].flatMap((i) => {
        const ns = ['t1-ns1', 't1-ns2', 't2-ns1', 't2-ns2'][i - 1]!;
        return [pod(`${ns}/a${i}`, { ip: `10.10.${i}.10`, node: 'node-1' }), pod(`${ns}/b${i}`, { ip: `10.10.${i}.11`, node: 'node-2' })];
      }),
      pod('plain/p', { ip: '10.10.9.10', node: 'node-1' }),
    ];
    // Scaffold: a lower-precedence Deny (priority 60: after this policy's 20 and after the
    // "(priority > 50)" the seed's prose mentions, so both readings agree).
    const lower = denyAllIngressAnp('deny-all-ingress', 60, {});
    const stillDenied = { tier: 'admin', policy: 'deny-all-ingress', passedBy: null } as const;

    describe('the policy alone: which traffic it passes', () =>
      itFlows(objects([]), [
        allow('t1-ns1/a1', 't1-ns2/b2', 80, '"delegates traffic from all Pods in Namespaces labeled tenant=t1 … to reach each other"', { ingress: { tier: 'default', passedBy: pass } }),
        allow('t1-ns2/a2', 't1-ns1/b1', 80, 'same tenant t1, the other way', { ingress: { tier: 'default', passedBy: pass } }),
        allow('t1-ns1/a1', 't1-ns1/b1', 80, 'same namespace: same label value', { ingress: { tier: 'default', passedBy: pass } }),
        allow('t2-ns1/a3', 't2-ns2/b4', 80, '"similarly traffic for all Pods in Namespaces labeled tenant=t2"', { ingress: { tier: 'default', passedBy: pass } }),
        allow('t1-ns1/a1', 't2-ns1/a3', 80, '"it does not delegate traffic from any Pod in t1-ns1 or t1-ns2 to reach Pods in t2-ns1 or t2-ns2"', { ingress: { tier: 'default', passedBy: null } }),
      ]));

    describe('with a lower-priority Deny ANP (scaffold): other traffic "is still subject to ANP rules"', () =>
      itFlows(objects([lower]), [
        allow('t1-ns1/a1', 't1-ns2/a2', 80, 'delegated: "not be subject to any ANP" of lower precedence', { ingress: { tier: 'default', passedBy: pass } }),
        allow('t2-ns2/b4', 't2-ns1/a3', 443, 'delegated (tenant t2)', { ingress: { tier: 'default', passedBy: pass } }),
        deny('t1-ns1/b1', 't2-ns1/b3', 80, 't1 → t2 is not delegated', { ingress: stillDenied }),
        deny('t2-ns2/a4', 't1-ns2/b2', 80, 't2 → t1 is not delegated', { ingress: stillDenied }),
        deny('t1-ns2/a2', 't2-ns2/a4', 53, 'not delegated, any protocol', { ...UDP, ingress: stillDenied }),
        deny('plain/p', 't1-ns1/a1', 80, 'a namespace without the tenant label shares no value', { ingress: stillDenied }),
      ]));

    describe('with a NetworkPolicy in t1-ns2: delegated traffic is "evaluated by K8s NetworkPolicies"', () => {
      const ownNsOnly = networkPolicy('t1-ns2/own-namespace-only', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] });
      itFlows(objects([lower, ownNsOnly]), [
        deny('t1-ns1/a1', 't1-ns2/a2', 80, 'delegated to t1-ns2\'s NetworkPolicy, which admits only t1-ns2', { ingress: { tier: 'networkpolicy', policy: null, passedBy: pass } }),
        allow('t1-ns2/b2', 't1-ns2/a2', 80, 'delegated and allowed by the NetworkPolicy', { ingress: { tier: 'networkpolicy', policy: 'own-namespace-only', passedBy: pass } }),
      ]);
    });
  });
});

// ───────────────────────────── kuryr-network-policy-spec.txt ─────────────────────────────

describe('kuryr-network-policy-spec', () => {
  describe('IpBlock "1.1.1.0/24 except 1.1.1.0/26" (allowed part: 1.1.1.64/26 and 1.1.1.128/25)', () => {
    const block = { ipBlock: { cidr: '1.1.1.0/24', except: ['1.1.1.0/26'] } };
    const objects = () => [
      ...NODES,
      namespace('kuryr'),
      networkPolicy('kuryr/ingress-from-block', { podSelector: { matchLabels: { app: 'server' } }, ingress: [{ from: [block] }] }),
      networkPolicy('kuryr/egress-to-block', { podSelector: { matchLabels: { app: 'client' } }, policyTypes: ['Egress'], egress: [{ to: [block] }] }),
      pod('kuryr/server', { ip: '10.11.0.10', node: 'node-1', labels: { app: 'server' } }),
      pod('kuryr/client', { ip: '10.11.0.11', node: 'node-2', labels: { app: 'client' } }),
    ];
    const inBlock = 'in 1.1.1.0/24, outside the except';
    const excepted = 'in the except 1.1.1.0/26';
    const outside = 'outside the cidr';
    describe('ingress from the block', () =>
      itFlows(objects, [
        deny('1.1.0.255', 'kuryr/server', 80, `${outside} (one below)`),
        deny('1.1.1.0', 'kuryr/server', 80, `${excepted} (first address)`),
        deny('1.1.1.32', 'kuryr/server', 80, excepted),
        deny('1.1.1.63', 'kuryr/server', 80, `${excepted} (last address)`),
        allow('1.1.1.64', 'kuryr/server', 80, `${inBlock}: first address of 1.1.1.64/26`),
        allow('1.1.1.127', 'kuryr/server', 80, `${inBlock}: last address of 1.1.1.64/26`),
        allow('1.1.1.128', 'kuryr/server', 80, `${inBlock}: first address of 1.1.1.128/25`),
        allow('1.1.1.200', 'kuryr/server', 5000, `${inBlock}, any port and protocol`, UDP),
        allow('1.1.1.255', 'kuryr/server', 80, `${inBlock}: last address of 1.1.1.128/25`),
        deny('1.1.2.0', 'kuryr/server', 80, `${outside} (one above)`),
        deny('kuryr/client', 'kuryr/server', 80, 'a pod outside the block is not a peer'),
      ]));
    describe('egress to the block', () =>
      itFlows(objects, [
        deny('kuryr/client', '1.1.0.255', 443, outside),
        deny('kuryr/client', '1.1.1.0', 443, excepted),
        deny('kuryr/client', '1.1.1.63', 443, excepted),
        allow('kuryr/client', '1.1.1.64', 443, inBlock),
        allow('kuryr/client', '1.1.1.127', 443, inBlock),
        allow('kuryr/client', '1.1.1.128', 443, inBlock),
        allow('kuryr/client', '1.1.1.255', 443, inBlock),
        deny('kuryr/client', '1.1.2.0', 443, outside),
      ]));

    it('every address of 1.1.0.0–1.1.2.255 is allowed exactly when it is in 1.1.1.64/26 or 1.1.1.128/25', () => {
      const cluster = clusterOf(objects());
      const inRules = (last: number, third: number) => third === 1 && last >= 64;
      const wrong: string[] = [];
      for (const third of [0, 1, 2]) {
        for (let last = 0; last < 256; last++) {
          const ip = `1.1.${third}.${last}`;
          if (verdict(cluster, ip, 'kuryr/server', 80).allowed !== inRules(last, third)) wrong.push(`ingress from ${ip}`);
          if (verdict(cluster, 'kuryr/client', ip, 80).allowed !== inRules(last, third)) wrong.push(`egress to ${ip}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('the allowed part splits into the seed\'s security-group rules 1.1.1.64/26 and 1.1.1.128/25', () => {
      const lo = parseIp('1.1.1.64')!;
      const hi = parseIp('1.1.1.255')!;
      expect(rangeToCidrs({ family: 4, lo: lo.value, hi: hi.value })).toEqual(['1.1.1.64/26', '1.1.1.128/25']);
    });
  });

  describe('named port: allow-client-a-via-named-port-ingress-rule (TCP serve-80 on the server pod)', () => {
    const objects = () => [
      ...NODES,
      namespace('default'),
      namespace('other'),
      ...loadYaml('kuryr-network-policy-spec/named-port.yaml'),
      pod('default/client-a', { ip: '10.0.0.240', node: 'node-2', labels: { 'pod-name': 'client-a' } }),
      pod('other/client-b', { ip: '10.0.1.240', node: 'node-2', labels: { 'pod-name': 'client-b' } }),
    ];
    const byPolicy = { tier: 'networkpolicy', policy: 'allow-client-a-via-named-port-ingress-rule' } as const;
    itFlows(objects, [
      allow('default/client-a', 'default/server', 80, 'serve-80 is container port 80/TCP', { ingress: byPolicy }),
      allow('default/client-a', 'default/server', 'serve-80', 'the named port itself', { ingress: byPolicy }),
      deny('default/client-a', 'default/server', 81, 'port 81 is serve-81, not in the policy', { ingress: { tier: 'networkpolicy', policy: null } }),
      deny('default/client-a', 'default/server', 'serve-81', 'serve-81 is not in the policy'),
      deny('default/client-a', 'default/server', 80, 'the policy names TCP', UDP),
      deny('default/client-a', 'default/server', 8080, 'any other port: the pod is isolated for ingress'),
      allow('other/client-b', 'default/server', 80, 'the rule has no `from`: every source'),
      allow('203.0.113.50', 'default/server', 80, 'every source, also outside the cluster'),
      deny('203.0.113.50', 'default/server', 81, 'port 81 stays closed for every source'),
      allow('default/server', 'default/client-a', 81, 'policyTypes [Ingress]: the server\'s egress is not restricted'),
    ]);
  });
});

// ───────────────────────────── kep-2079-endport-port-ranges.txt ─────────────────────────────

describe('kep-2079-endport-port-ranges', () => {
  const OTHER_CLUSTER_NODE = '198.51.100.10';

  describe('Story 1: egress only to the NodePort range 30000-32767 of another cluster', () => {
    const objects = () => [
      ...NODES,
      namespace('app'),
      networkPolicy('app/allow-egress-to-nodeports', {
        podSelector: { matchLabels: { app: 'client' } },
        policyTypes: ['Egress'],
        egress: [{ ports: [{ protocol: 'TCP', port: 30000, endPort: 32767 }] }],
      }),
      pod('app/client', { ip: '10.12.0.10', node: 'node-1', labels: { app: 'client' } }),
      pod('app/server', { ip: '10.12.0.11', node: 'node-2', labels: { app: 'server' } }),
    ];
    const byPolicy = { tier: 'networkpolicy', policy: 'allow-egress-to-nodeports' } as const;
    itFlows(objects, [
      deny('app/client', OTHER_CLUSTER_NODE, 29999, 'one below the range', { egress: { tier: 'networkpolicy', policy: null } }),
      allow('app/client', OTHER_CLUSTER_NODE, 30000, 'first port of the range', { egress: byPolicy }),
      allow('app/client', OTHER_CLUSTER_NODE, 30001, 'inside the range'),
      allow('app/client', OTHER_CLUSTER_NODE, 31500, 'inside the range'),
      allow('app/client', OTHER_CLUSTER_NODE, 32766, 'inside the range'),
      allow('app/client', OTHER_CLUSTER_NODE, 32767, '"EndPort defines the last port included in the port range"', { egress: byPolicy }),
      deny('app/client', OTHER_CLUSTER_NODE, 32768, 'one above the range'),
      deny('app/client', OTHER_CLUSTER_NODE, 30000, 'the range is for TCP', UDP),
      deny('app/client', OTHER_CLUSTER_NODE, 443, '"only the NodePort range"'),
      deny('app/client', 'app/server', 80, 'only the NodePort range, also in-cluster'),
      allow('app/server', OTHER_CLUSTER_NODE, 443, 'the policy selects app=client only'),
    ]);
  });

  describe('Motivation: "egress to other cluster to the NodePort range (eg 32000-32768)", port by port vs. endPort', () => {
    const ports = Array.from({ length: 32768 - 32000 + 1 }, (_, i) => ({ protocol: 'TCP', port: 32000 + i }));
    const objects = (egressPorts: unknown[]) => () => [
      ...NODES,
      namespace('app'),
      networkPolicy('app/nodeports', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: egressPorts }] }),
      pod('app/client', { ip: '10.12.1.10', node: 'node-1' }),
    ];
    const edges = (form: string): FlowCase[] => [
      deny('app/client', OTHER_CLUSTER_NODE, 31999, `${form}: one below 32000`),
      allow('app/client', OTHER_CLUSTER_NODE, 32000, `${form}: first port`),
      allow('app/client', OTHER_CLUSTER_NODE, 32384, `${form}: inside`),
      allow('app/client', OTHER_CLUSTER_NODE, 32768, `${form}: last port`),
      deny('app/client', OTHER_CLUSTER_NODE, 32769, `${form}: one above 32768`),
    ];
    describe('each port declared separately (769 items, as the seed spells it out)', () => itFlows(objects(ports), edges('port list')));
    describe('one item with endPort', () => itFlows(objects([{ protocol: 'TCP', port: 32000, endPort: 32768 }]), edges('endPort')));
    it('both forms give the same verdict on every port 31900-32900', () => {
      const list = clusterOf(objects(ports)());
      const range = clusterOf(objects([{ protocol: 'TCP', port: 32000, endPort: 32768 }])());
      const differ: number[] = [];
      for (let p = 31900; p <= 32900; p++) {
        const a = verdict(list, 'app/client', OTHER_CLUSTER_NODE, p).allowed;
        const b = verdict(range, 'app/client', OTHER_CLUSTER_NODE, p).allowed;
        if (a !== b || a !== (p >= 32000 && p <= 32768)) differ.push(p);
      }
      expect(differ).toEqual([]);
    });
  });

  describe('Story 2: egress to any port except 111 and 445, built from ranges', () => {
    // "allows me to communicate with any port except those two": 1-110, 112-444, 446-65535,
    // for TCP and UDP (the story names no protocol).
    const except111And445 = (['TCP', 'UDP'] as const).flatMap((protocol) => [
      { protocol, port: 1, endPort: 110 },
      { protocol, port: 112, endPort: 444 },
      { protocol, port: 446, endPort: 65535 },
    ]);
    const objects = () => [
      ...NODES,
      namespace('scraper'),
      namespace('data'),
      networkPolicy('scraper/allow-egress-except-111-445', { podSelector: {}, policyTypes: ['Egress'], egress: [{ ports: except111And445 }] }),
      pod('scraper/scraper', { ip: '10.13.0.10', node: 'node-1' }),
      pod('data/db', { ip: '10.13.1.10', node: 'node-2' }),
    ];
    const SOURCE = '203.0.113.60';
    itFlows(objects, [
      allow('scraper/scraper', SOURCE, 1, 'first port of 1-110'),
      allow('scraper/scraper', SOURCE, 110, 'last port of 1-110'),
      deny('scraper/scraper', SOURCE, 111, 'excluded port 111', { egress: { tier: 'networkpolicy', policy: null } }),
      allow('scraper/scraper', SOURCE, 112, 'first port of 112-444'),
      allow('scraper/scraper', SOURCE, 444, 'last port of 112-444'),
      deny('scraper/scraper', SOURCE, 445, 'excluded port 445'),
      allow('scraper/scraper', SOURCE, 446, 'first port of 446-65535'),
      allow('scraper/scraper', SOURCE, 65535, 'last port of 446-65535'),
      allow('scraper/scraper', SOURCE, 8080, '"web applications"'),
      allow('scraper/scraper', 'data/db', 5432, '"databases running in random ports"'),
      allow('scraper/scraper', 'data/db', 27017, 'a database on another random port'),
      deny('scraper/scraper', 'data/db', 445, '445 is excluded in-cluster too'),
      deny('scraper/scraper', SOURCE, 111, 'excluded port 111 (UDP)', UDP),
      allow('scraper/scraper', SOURCE, 110, 'one below 111 (UDP)', UDP),
      allow('scraper/scraper', SOURCE, 112, 'one above 111 (UDP)', UDP),
      deny('scraper/scraper', SOURCE, 445, 'excluded port 445 (UDP)', UDP),
      allow('scraper/scraper', SOURCE, 444, 'one below 445 (UDP)', UDP),
      allow('scraper/scraper', SOURCE, 446, 'one above 445 (UDP)', UDP),
    ]);
  });

  describe('Story 3: passive FTP (21 and 49152-65535) under a default deny', () => {
    const objects = () => [
      ...NODES,
      namespace('ftp'),
      namespace('clients'),
      // "the existence of a default deny rule for all workloads"
      denyAll('ftp', ['Ingress', 'Egress']),
      // "open the Network Policy to ports 21 and also to the range 49152-65535 without allowing any other ports";
      // no `from`: "acessible from inside and outside the cluster".
      networkPolicy('ftp/allow-ftp', {
        podSelector: { matchLabels: { app: 'ftp' } },
        policyTypes: ['Ingress'],
        ingress: [{ ports: [{ protocol: 'TCP', port: 21 }, { protocol: 'TCP', port: 49152, endPort: 65535 }] }],
      }),
      pod('ftp/ftp-server', { ip: '10.14.0.10', node: 'node-1', labels: { app: 'ftp' } }),
      pod('ftp/other', { ip: '10.14.0.11', node: 'node-1', labels: { app: 'other' } }),
      pod('clients/client', { ip: '10.14.1.10', node: 'node-2' }),
    ];
    const byPolicy = { tier: 'networkpolicy', policy: 'allow-ftp' } as const;
    const OUTSIDE = '203.0.113.70';
    itFlows(objects, [
      deny('clients/client', 'ftp/ftp-server', 20, 'one below 21'),
      allow('clients/client', 'ftp/ftp-server', 21, 'the FTP control port, from inside the cluster', { ingress: byPolicy }),
      deny('clients/client', 'ftp/ftp-server', 22, 'one above 21'),
      deny('clients/client', 'ftp/ftp-server', 49151, 'one below the passive range'),
      allow('clients/client', 'ftp/ftp-server', 49152, 'first port of the passive range', { ingress: byPolicy }),
      allow('clients/client', 'ftp/ftp-server', 49153, 'inside the passive range'),
      allow('clients/client', 'ftp/ftp-server', 65534, 'inside the passive range'),
      allow('clients/client', 'ftp/ftp-server', 65535, 'last port of the passive range (65535 is the last port, so nothing above)'),
      deny('clients/client', 'ftp/ftp-server', 80, '"without allowing any other ports"', { ingress: { tier: 'networkpolicy', policy: null } }),
      deny('clients/client', 'ftp/ftp-server', 21, 'the ports are TCP', UDP),
      allow(OUTSIDE, 'ftp/ftp-server', 21, '"acessible from … outside the cluster"'),
      allow(OUTSIDE, 'ftp/ftp-server', 49152, 'passive range from outside'),
      allow(OUTSIDE, 'ftp/ftp-server', 65535, 'passive range from outside, last port'),
      deny(OUTSIDE, 'ftp/ftp-server', 443, 'any other port from outside'),
      deny('clients/client', 'ftp/other', 21, 'other workloads keep the default deny'),
      deny('ftp/ftp-server', OUTSIDE, 80, 'the default deny also covers egress; only ingress ports were opened'),
    ]);
  });
});
