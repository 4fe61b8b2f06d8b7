// The rules the upstream suites barely exercise (issue: "test them yourself"), one block each.
import { describe, expect, it } from 'vitest';
import { adminNetworkPolicy, allow, clusterNetworkPolicy, clusterOf, deny, itFlows, namespace, networkPolicy, node, pod, verdict, type K8sObject } from './support/cluster-builders.js';

const UDP = { protocol: 'UDP' as const };
const base = (): K8sObject[] => [
  namespace('x', { labels: { team: 'x' } }),
  namespace('y', { labels: { team: 'y' } }),
  node('n1', '172.18.0.2', 'fc00::2'),
  node('n2', '172.18.0.3', 'fc00::3'),
  pod('x/a', { ip: ['10.0.1.10', 'fd00::1:a'], node: 'n1', labels: { app: 'a' } }),
  pod('x/b1', { ip: '10.0.1.11', node: 'n1', labels: { app: 'b' }, ports: [{ name: 'web', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] }),
  pod('y/b2', { ip: '10.0.2.12', node: 'n2', labels: { app: 'b' }, ports: [{ name: 'web', containerPort: 9090 }] }),
  pod('y/c', { ip: ['10.0.2.13', 'fd00::2:d'], node: 'n2', labels: { app: 'c' } }),
  pod('y/host', { ip: ['172.18.0.3', 'fc00::3'], node: 'n2', labels: { app: 'b' }, hostNetwork: true }),
];
const anp = adminNetworkPolicy;
const cnp = clusterNetworkPolicy;
const all = { namespaces: {} };

describe('policyTypes defaulting: absent → Ingress, plus Egress only when the policy has egress rules', () => {
  describe('ingress and egress rules, no policyTypes: both directions', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'b' } } }] }], egress: [{ to: [{ ipBlock: { cidr: '10.0.2.0/24' } }] }] })], [
      allow('x/b1', 'x/a', 80, 'ingress rule'),
      deny('y/c', 'x/a', 80, 'ingress isolated'),
      allow('x/a', 'y/c', 80, 'egress rule'),
      deny('x/a', 'x/b1', 80, 'egress isolated too: the policy has egress rules'),
    ]));
  describe('an empty egress list, no policyTypes: ingress only', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, ingress: [], egress: [] })], [
      deny('x/b1', 'x/a', 80, 'ingress isolated, no rules'),
      allow('x/a', 'x/b1', 80, 'len(egress) == 0: egress not isolated'),
    ]));
  describe('policyTypes [] defaults like an absent list (len(PolicyTypes) == 0)', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: {}, policyTypes: [] })], [
      deny('x/b1', 'x/a', 80, 'a default-deny ingress written with policyTypes: []'),
      allow('x/a', 'y/c', 80, 'no egress rules: egress not isolated'),
    ]));
  describe('policyTypes [Egress] with ingress rules: the ingress rules are not used', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Egress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: 'zzz' } } }] }] })], [
      allow('x/b1', 'x/a', 80, 'ingress not isolated'),
      deny('x/a', 'x/b1', 80, 'egress isolated without rules'),
    ]));
});

describe('a port without protocol is TCP; ANP and CNP port rules match the protocol too', () => {
  describe('NetworkPolicy', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] })], [
      allow('y/c', 'x/a', 80, 'TCP 80'),
      deny('y/c', 'x/a', 80, 'UDP 80 is not TCP 80', UDP),
    ]));
  describe('AdminNetworkPolicy portNumber without protocol, CNP udp', () =>
    itFlows(
      () => [
        ...base(),
        anp('deny-80', 1, { subject: all, ingress: [{ action: 'Deny', from: [all], ports: [{ portNumber: { port: 80 } }] }] }),
        cnp('deny-udp-81', 'Admin', 2, { subject: all, ingress: [{ action: 'Deny', from: [all], protocols: [{ udp: { destinationPort: { number: 81 } } }] }] }),
      ],
      [
        deny('y/c', 'x/a', 80, 'TCP 80 denied'),
        allow('y/c', 'x/a', 80, 'UDP 80: the rule is TCP', UDP),
        deny('y/c', 'x/a', 81, 'UDP 81 denied by the CNP', UDP),
        allow('y/c', 'x/a', 81, 'TCP 81: the CNP rule is UDP'),
      ],
    ));
  describe('ANP namedPort takes the container port protocol', () =>
    itFlows(() => [...base(), anp('deny-dns', 1, { subject: all, ingress: [{ action: 'Deny', from: [all], ports: [{ namedPort: 'dns' }] }] })], [
      deny('y/c', 'x/b1', 53, 'dns is UDP 53 on x/b1', UDP),
      allow('y/c', 'x/b1', 53, 'TCP 53 is not the dns port'),
      allow('y/c', 'y/b2', 53, 'y/b2 has no dns port', UDP),
    ]));
});

describe('an egress named port resolves on each destination pod', () =>
  itFlows(() => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Egress'], egress: [{ ports: [{ port: 'web' }] }] })], [
    allow('x/a', 'x/b1', 8080, 'web is 8080 on x/b1'),
    deny('x/a', 'x/b1', 9090, '9090 is not web on x/b1'),
    allow('x/a', 'y/b2', 9090, 'web is 9090 on y/b2'),
    deny('x/a', 'y/b2', 8080, '8080 is not web on y/b2'),
    deny('x/a', '203.0.113.5', 8080, 'an external address has no named ports'),
    deny('x/a', 'y/host', 8080, 'a host-network pod is its node: no named ports'),
  ]));

describe('ipBlock with several overlapping excepts (Kuryr re-allowed these)', () =>
  itFlows(() => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.9.0.0/16', except: ['10.9.1.0/24', '10.9.1.0/25', '10.9.1.192/26', '10.9.3.0/24'] } }] }] })], [
    allow('10.9.0.1', 'x/a', 80, 'inside the cidr, outside every except'),
    deny('10.9.1.5', 'x/a', 80, 'in two overlapping excepts'),
    deny('10.9.1.130', 'x/a', 80, 'in 10.9.1.0/24 only'),
    deny('10.9.1.200', 'x/a', 80, 'in /24 and /26'),
    allow('10.9.2.255', 'x/a', 80, 'between excepts'),
    deny('10.9.3.0', 'x/a', 80, 'first address of the last except'),
    allow('10.9.4.0', 'x/a', 80, 'just past it'),
    deny('10.10.0.0', 'x/a', 80, 'outside the cidr'),
  ]));

describe('endPort and portRange edges', () => {
  describe('NetworkPolicy port..endPort is inclusive; endPort == port is one port', () =>
    itFlows(() => [...base(), networkPolicy('x/p', { podSelector: {}, ingress: [{ ports: [{ port: 1000, endPort: 2000 }, { port: 3000, endPort: 3000 }] }] })], [
      deny('y/c', 'x/a', 999, 'below'),
      allow('y/c', 'x/a', 1000, 'first'),
      allow('y/c', 'x/a', 2000, 'last'),
      deny('y/c', 'x/a', 2001, 'above'),
      allow('y/c', 'x/a', 3000, 'single'),
      deny('y/c', 'x/a', 3001, 'past single'),
    ]));
  describe('ANP portRange and CNP range are inclusive', () =>
    itFlows(
      () => [
        ...base(),
        anp('r', 1, { subject: all, ingress: [{ action: 'Deny', from: [all], ports: [{ portRange: { start: 100, end: 200 } }] }] }),
        cnp('r2', 'Admin', 2, { subject: all, ingress: [{ action: 'Deny', from: [all], protocols: [{ tcp: { destinationPort: { range: { start: 65534, end: 65535 } } } }] }] }),
      ],
      [
        allow('y/c', 'x/a', 99, 'below'),
        deny('y/c', 'x/a', 100, 'start'),
        deny('y/c', 'x/a', 200, 'end'),
        allow('y/c', 'x/a', 201, 'above'),
        allow('y/c', 'x/a', 65533, 'below the CNP range'),
        deny('y/c', 'x/a', 65535, 'the last port'),
      ],
    ));
});

describe('a nodes peer matches node addresses, not the pods on those nodes', () =>
  itFlows(() => [...base(), anp('no-nodes', 1, { subject: all, egress: [{ action: 'Deny', to: [{ nodes: { matchLabels: { 'kubernetes.io/hostname': 'n2' } } }] }] })], [
    deny('x/a', 'node:n2', 10250, 'the node address'),
    deny('x/a', 'y/host', 80, 'a host-network pod has its node address'),
    allow('x/a', 'y/c', 80, 'a pod running on n2 is not n2'),
    allow('x/a', 'node:n1', 10250, 'another node'),
  ]));

describe('a networks peer matches node and host-network addresses too', () =>
  itFlows(() => [...base(), anp('no-infra', 1, { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['172.18.0.0/24'] }] }] })], [
    deny('x/a', 'node:n1', 22, 'node address in the network'),
    deny('x/a', 'y/host', 80, 'host-network pod address in the network'),
    allow('x/a', 'y/c', 80, 'pod address outside it'),
  ]));

describe('host-network pods are never subjects nor pod/namespace peers', () =>
  itFlows(() => [...base(), networkPolicy('y/p', { podSelector: {}, ingress: [{ from: [{ podSelector: {} }] }] })], [
    allow('x/a', 'y/host', 80, 'not a subject: no ingress side'),
    allow('y/c', 'y/c', 80, 'loopback', { reason: 'loopback' }),
    deny('node:n1', 'y/c', 80, 'another node is no pod peer'),
    allow('y/host', 'y/c', 80, 'from its own node: node-local', { reason: 'node-local' }),
  ]));

describe('node-local and loopback', () =>
  itFlows(() => [...base(), networkPolicy('x/deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }), anp('deny-all', 0, { subject: all, ingress: [{ action: 'Deny', from: [all] }] })], [
    allow('node:n1', 'x/a', 10250, "traffic from the pod's own node is always allowed", { reason: 'node-local' }),
    deny('node:n2', 'x/a', 10250, 'another node is not'),
    allow('x/a', 'x/a', 80, 'a pod to itself', { reason: 'loopback' }),
    deny('x/a', 'node:n1', 80, 'pod to its own node is evaluated (egress isolated)'),
  ]));

describe('dual-stack: an IPv4 ipBlock does not match the IPv6 flow', () => {
  const objects = () => [...base(), networkPolicy('x/p', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.2.0/24' } }] }] })];
  it('allows y/c → x/a over IPv4 and denies it over IPv6', () => {
    const cluster = clusterOf(objects());
    expect(verdict(cluster, 'y/c', 'x/a', 80).allowed).toBe(true);
    expect(verdict(cluster, '10.0.2.13', '10.0.1.10', 80).allowed).toBe(true);
    expect(verdict(cluster, 'fd00::2:d', 'fd00::1:a', 80).allowed).toBe(false);
  });
});

describe('fail closed on peers with no known field', () =>
  itFlows(
    () => [
      ...base(),
      anp('allow-unknown', 1, { subject: all, ingress: [{ action: 'Allow', from: [{ serviceAccounts: { name: 'x' } }] }] }),
      anp('deny-unknown', 2, { subject: { namespaces: { matchLabels: { team: 'y' } } }, ingress: [{ action: 'Deny', from: [{ serviceAccounts: { name: 'x' } }], ports: [{ portNumber: { port: 1 } }] }] }),
    ],
    [
      allow('x/b1', 'x/a', 80, 'the unknown Allow matches nothing; default allow', { ingress: { tier: 'default' } }),
      deny('x/a', 'y/c', 80, 'the unknown Deny is "Deny all": every peer and port', { ingress: { tier: 'admin', policy: 'deny-unknown' } }),
    ],
  ));

describe('tiers and Pass', () => {
  describe('CNP Admin Pass → NetworkPolicy; Baseline Pass → default allow', () =>
    itFlows(
      () => [
        ...base(),
        cnp('admin-pass', 'Admin', 1, { subject: all, ingress: [{ action: 'Pass', from: [{ namespaces: { matchLabels: { team: 'y' } } }] }, { action: 'Deny', from: [all] }] }),
        cnp('base-pass', 'Baseline', 1, { subject: all, ingress: [{ action: 'Pass', from: [all], protocols: [{ tcp: { destinationPort: { number: 80 } } }] }, { action: 'Deny', from: [all] }] }),
        networkPolicy('x/p', { podSelector: { matchLabels: { app: 'b' } }, ingress: [{ ports: [{ port: 443 }] }] }),
      ],
      [
        allow('y/c', 'x/b1', 443, 'Pass → NetworkPolicy allows 443', { ingress: { tier: 'networkpolicy', passedBy: 'admin-pass' } }),
        deny('y/c', 'x/b1', 80, 'Pass → NetworkPolicy isolates, 80 not allowed', { ingress: { tier: 'networkpolicy' } }),
        allow('y/c', 'x/a', 80, 'Pass → no NetworkPolicy → Baseline Pass → default', { ingress: { tier: 'default' } }),
        deny('y/c', 'x/a', 81, 'Pass → no NetworkPolicy → Baseline Deny', { ingress: { tier: 'baseline', policy: 'base-pass' } }),
        deny('x/b1', 'x/a', 80, 'same namespace: no Pass, Admin Deny', { ingress: { tier: 'admin', policy: 'admin-pass' } }),
      ],
    ));
  // NetworkPolicySpec.policyTypes: "policies that contain an egress section are assumed to
  // affect egress"; a pod selected only for ingress is not in the NetworkPolicy tier for egress,
  // so the Baseline tier decides its egress (kube-network-policies' evaluator answers it in the
  // NetworkPolicy tier instead: docs/semantics.md).
  describe('an ingress-only NetworkPolicy leaves the pod\'s egress to the Baseline tier', () =>
    itFlows(
      () => [
        ...base(),
        networkPolicy('x/ingress-only', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ podSelector: {} }] }] }),
        cnp('base-deny-egress', 'Baseline', 1, { subject: { pods: { namespaceSelector: {}, podSelector: { matchLabels: { app: 'a' } } } }, egress: [{ action: 'Deny', to: [all] }] }),
      ],
      [
        allow('x/b1', 'x/a', 80, 'ingress: the NetworkPolicy allows its namespace', { ingress: { tier: 'networkpolicy' } }),
        deny('x/a', 'x/b1', 80, 'egress: no NetworkPolicy selects x/a for egress, Baseline Deny', { egress: { tier: 'baseline', policy: 'base-deny-egress' } }),
      ],
    ));
  it('orders same-priority policies by name and warns when they select a common pod', () => {
    const cluster = clusterOf([...base(), anp('b-allow', 5, { subject: all, ingress: [{ action: 'Allow', from: [all] }] }), anp('a-deny', 5, { subject: all, ingress: [{ action: 'Deny', from: [all] }] })]);
    expect(verdict(cluster, 'y/c', 'x/a', 80).ingress?.policy?.name).toBe('a-deny');
    expect(cluster.warnings.some(({ message: w }) => w.includes('a-deny') && w.includes('b-allow') && w.includes('same priority (5)'))).toBe(true);
  });
  it('does not warn when same-priority policies select disjoint pods', () => {
    const cluster = clusterOf([...base(), anp('a', 5, { subject: { namespaces: { matchLabels: { team: 'x' } } }, ingress: [] }), anp('b', 5, { subject: { namespaces: { matchLabels: { team: 'y' } } }, ingress: [] })]);
    expect(cluster.warnings.filter((w) => w.message.includes('same priority'))).toEqual([]);
  });
});

describe('legacy DefaultDeny annotation and v1 policies together', () =>
  itFlows(
    () => [
      ...base().map((o) => (o.kind === 'Namespace' && o.metadata.name === 'x' ? namespace('x', { labels: { team: 'x' }, annotations: { 'net.beta.kubernetes.io/network-policy': '{"ingress":{"isolation":"DefaultDeny"}}' } }) : o)),
      { apiVersion: 'extensions/v1beta1', kind: 'NetworkPolicy', metadata: { name: 'legacy', namespace: 'x' }, spec: { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: 'y' } } }] }] } },
      networkPolicy('x/v1', { podSelector: { matchLabels: { app: 'a' } }, ingress: [{ ports: [{ port: 443 }] }] }),
    ],
    [
      allow('y/c', 'x/a', 80, 'the legacy rule allows namespace y'),
      allow('x/b1', 'x/a', 443, 'the v1 rule allows 443'),
      deny('x/b1', 'x/a', 80, 'isolated by the annotation and the v1 policy'),
      deny('y/c', 'x/b1', 80, 'the annotation isolates every pod of x'),
      allow('node:n1', 'x/b1', 80, 'node-local', { reason: 'node-local' }),
    ],
  ));
