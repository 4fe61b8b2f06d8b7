// ClusterNetworkPolicy (v1alpha2) and AdminNetworkPolicy/BaselineAdminNetworkPolicy (v1alpha1)
// fields checked as the upstream types declare them: domainNames (listType=set, 1-25 items,
// the DomainName pattern), NamespacedPod's required selectors, and fields of the other
// apiVersion whose dropping would change what a policy means. Each problem is one issue with
// its JSON path, as POST /v1/verdicts returns it (test/http/validation.test.ts).
import { describe, expect, it } from 'vitest';
import { parseSnapshot } from '../../schemas/snapshot.js';

type Obj = Record<string, unknown>;
const all = { namespaces: {} };
const cnp = (spec: Obj): Obj => ({ apiVersion: 'policy.networking.k8s.io/v1alpha2', kind: 'ClusterNetworkPolicy', metadata: { name: 'cnp' }, spec: { tier: 'Admin', priority: 10, subject: all, ...spec } });
const anp = (spec: Obj): Obj => ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'AdminNetworkPolicy', metadata: { name: 'anp' }, spec: { priority: 10, subject: all, ...spec } });
const banp = (spec: Obj): Obj => ({ apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec: { subject: all, ...spec } });
const cnpTo = (peer: Obj, rule: Obj = {}) => cnp({ egress: [{ action: 'Accept', to: [peer], ...rule }] });
const anpTo = (peer: Obj, rule: Obj = {}) => anp({ egress: [{ action: 'Allow', to: [peer], ...rule }] });
const names = (n: number) => Array.from({ length: n }, (_, i) => `h${i}.example.com`);

/** The issues of one object, as `path: message`. */
function issues(o: Obj): string[] {
  const r = parseSnapshot({ items: [o] });
  return r.ok ? [] : r.issues.map((i) => `${i.path}: ${i.message}`);
}
const ok = (o: Obj) => expect(issues(o)).toEqual([]);

describe('domainNames: listType=set, MinItems=1, MaxItems=25, DomainName pattern (v1alpha2 L406-410, L554; v1alpha1 L263-268, L290)', () => {
  const PATTERN = "should match '^(\\*\\.)?([a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.)+[a-zA-z0-9]([-a-zA-Z0-9_]*[a-zA-Z0-9])?\\.?$'";
  it.each([
    ['v1alpha2', cnpTo],
    ['v1alpha1', anpTo],
  ] as const)('%s: each rule, with the path of the list or the name', (_v, to) => {
    expect(issues(to({ domainNames: ['not a domain!'] }))).toEqual([`$.items[0].spec.egress[0].to[0].domainNames[0]: invalid domain name "not a domain!": ${PATTERN} (a name such as "kubernetes.io", or "*." before one for its subdomains)`]);
    expect(issues(to({ domainNames: [] }))).toEqual(['$.items[0].spec.egress[0].to[0].domainNames: must have at least 1 item']);
    expect(issues(to({ domainNames: names(26) }))).toEqual(['$.items[0].spec.egress[0].to[0].domainNames: must have at most 25 items']);
    expect(issues(to({ domainNames: ['a.example.com', 'a.example.com'] }))).toEqual(['$.items[0].spec.egress[0].to[0].domainNames: duplicate entries are not allowed (listType=set)']);
    // The wildcard only as a whole first label; a single label is not a domain name here.
    for (const bad of ['*', 'kubernetes', 'www.*.io', '*kubernetes.io', '-a.io', 'a..io']) expect(issues(to({ domainNames: [bad] })), bad).toHaveLength(1);
  });

  it('the upstream examples and a trailing dot are accepted, 25 names too', () => {
    ok(cnpTo({ domainNames: ['kubernetes.io', 'blog.kubernetes.io', '*.kubernetes.io', 'example.com.', 'under_score.example.com'] }));
    ok(cnpTo({ domainNames: names(25) }));
    ok(anpTo({ domainNames: ['*.kubernetes.io'] }));
  });
});

describe('NamespacedPod: podSelector is required; v1alpha1 namespaceSelector too (v1alpha2 types L422-426, v1alpha1 shared_types.go)', () => {
  const ns = { matchLabels: { team: 'y' } };
  const NO_POD_SELECTOR = 'Required value: podSelector must be set (`podSelector: {}` selects every pod of the namespaces); it is not read as the empty selector';
  const NO_NS_SELECTOR = 'Required value: v1alpha1 NamespacedPod requires namespaceSelector (`namespaceSelector: {}` selects every namespace)';

  it('a pods peer or subject without podSelector (absent or null) is rejected in both apiVersions', () => {
    expect(issues(cnpTo({ pods: { namespaceSelector: ns } }))).toEqual([`$.items[0].spec.egress[0].to[0].pods.podSelector: ${NO_POD_SELECTOR}`]);
    expect(issues(cnpTo({ pods: { namespaceSelector: ns, podSelector: null } }))).toEqual([`$.items[0].spec.egress[0].to[0].pods.podSelector: ${NO_POD_SELECTOR}`]);
    expect(issues(cnp({ subject: { pods: { namespaceSelector: ns } } }))).toEqual([`$.items[0].spec.subject.pods.podSelector: ${NO_POD_SELECTOR}`]);
    expect(issues(anpTo({ pods: { namespaceSelector: ns } }))).toEqual([`$.items[0].spec.egress[0].to[0].pods.podSelector: ${NO_POD_SELECTOR}`]);
    expect(issues(banp({ subject: { pods: { namespaceSelector: ns } } }))).toEqual([`$.items[0].spec.subject.pods.podSelector: ${NO_POD_SELECTOR}`]);
    // The KEP draft's NamespacedPodPeer: "The `Namespaces` and `PodSelector` fields are required."
    expect(issues(anpTo({ pods: { namespaces: { related: 'Self' } } }))).toEqual([`$.items[0].spec.egress[0].to[0].pods.podSelector: ${NO_POD_SELECTOR}`]);
  });

  it('v1alpha1 also requires namespaceSelector (or the draft namespaces); v1alpha2 reads it absent as every namespace', () => {
    expect(issues(anpTo({ pods: { podSelector: {} } }))).toEqual([`$.items[0].spec.egress[0].to[0].pods.namespaceSelector: ${NO_NS_SELECTOR}`]);
    expect(issues(anp({ subject: { pods: { podSelector: {} } } }))).toEqual([`$.items[0].spec.subject.pods.namespaceSelector: ${NO_NS_SELECTOR}`]);
    ok(anpTo({ pods: { namespaces: { namespaceSelector: ns }, podSelector: {} } }));
    ok(cnpTo({ pods: { podSelector: {} } }));
    ok(cnp({ subject: { pods: { podSelector: {} } } }));
  });

  it('namespaceSelector and its draft spelling namespaces together are rejected, not one of them dropped', () => {
    expect(issues(anpTo({ pods: { namespaceSelector: ns, namespaces: { related: 'Self' }, podSelector: {} } }))).toEqual([
      '$.items[0].spec.egress[0].to[0].pods: exactly one of namespaceSelector, namespaces (its KEP-2091 draft spelling) may be set',
    ]);
  });
});

describe('fields that would change what a policy means if dropped are rejected; harmless ones are not', () => {
  it('v1alpha2 rule with the v1alpha1 `ports` (a Deny on one port must not become a Deny on all)', () => {
    const [only, ...rest] = issues(cnp({ egress: [{ action: 'Deny', to: [all], ports: [{ portNumber: { protocol: 'TCP', port: 9999 } }] }] }));
    expect(rest).toEqual([]);
    expect(only).toMatch(/^\$\.items\[0\]\.spec\.egress\[0\]\.ports: not a v1alpha2 field: ClusterNetworkPolicy \(v1alpha2\) names it `protocols`, with another shape .* Ignoring it would make the rule match every port$/);
    expect(issues(cnp({ ingress: [{ action: 'Deny', from: [all], ports: { port: [{ protocol: 'TCP', number: 80 }] } }] }))).toEqual([expect.stringMatching(/^\$\.items\[0\]\.spec\.ingress\[0\]\.ports: not a v1alpha2 field/)]);
  });

  it('v1alpha1 rule with the v1alpha2 `protocols`', () => {
    expect(issues(anp({ ingress: [{ action: 'Deny', from: [all], protocols: [{ tcp: { destinationPort: { number: 80 } } }] }] }))).toEqual([
      expect.stringMatching(/^\$\.items\[0\]\.spec\.ingress\[0\]\.protocols: not a v1alpha1 field: AdminNetworkPolicy\/BaselineAdminNetworkPolicy \(v1alpha1\) name it `ports`.* Ignoring it would make the rule match every port$/),
    ]);
  });

  it('a peer or subject with a field beside the one it knows (MaxProperties=1)', () => {
    expect(issues(cnpTo({ namespaces: {}, podSelector: { matchLabels: { app: 'db' } } }))).toEqual([
      '$.items[0].spec.egress[0].to[0]: exactly one field may be set (MaxProperties=1); found namespaces, podSelector: ignoring podSelector would change what the peer matches',
    ]);
    expect(issues(anp({ subject: { namespaces: {}, podSelector: { matchLabels: { app: 'db' } } } }))).toEqual([
      '$.items[0].spec.subject: exactly one field may be set (MaxProperties=1); found namespaces, podSelector: ignoring podSelector would change which pods the policy applies to',
    ]);
    expect(issues(anpTo({ namespaces: { related: 'Self', matchLabels: { team: 'x' } } }))).toEqual([
      '$.items[0].spec.egress[0].to[0].namespaces: exactly one of related, namespaceSelector, sameLabels, notSameLabels may be set, and nothing beside it (found related, matchLabels)',
    ]);
    // A peer with no known field still fails closed (a newer version's peer kind).
    ok(cnpTo({ serviceAccounts: { name: 'x' } }));
  });

  it('a v1alpha1 tier other than the kind\'s is rejected; the kind\'s own tier and a BANP priority are accepted (and warned about)', () => {
    expect(issues(anp({ tier: 'Baseline' }))).toEqual([
      '$.items[0].spec.tier: not a v1alpha1 field: an AdminNetworkPolicy is always in the Admin tier, so tier "Baseline" cannot be honoured; a policy of that tier is a BaselineAdminNetworkPolicy or a v1alpha2 ClusterNetworkPolicy',
    ]);
    expect(issues(banp({ tier: 'Admin' }))).toEqual([expect.stringMatching(/^\$\.items\[0\]\.spec\.tier: not a v1alpha1 field: a BaselineAdminNetworkPolicy is always in the Baseline tier/)]);
    ok(anp({ tier: 'Admin' }));
    ok(banp({ tier: 'Baseline', priority: 5 }));
    const r = parseSnapshot({ items: [banp({ priority: 5 })] });
    expect(r.ok && r.snapshot.objects[0]!.kind === 'BaselineAdminNetworkPolicy' && r.snapshot.objects[0]!.spec.ignoredFields).toEqual(['priority']);
  });
});

describe('CIDR text: IPv6 with a dotted IPv4 tail, as net.ParseCIDR (ipBlock) and isCIDR (networks) read it', () => {
  const np = (cidr: string, except: string[] = []): Obj => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'np', namespace: 'x' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr, except } }] }] } });
  it('NAT64 (64:ff9b::a.b.c.d) in an ipBlock and its except, and in networks', () => {
    ok(np('64:ff9b::/96', ['64:ff9b::192.0.2.0/120']));
    ok(cnpTo({ networks: ['64:ff9b::192.0.2.1/128', '::1.2.3.4/128'] }));
  });
  it('an IPv4-mapped address written so is refused, with its path', () => {
    expect(issues(cnpTo({ networks: ['::ffff:10.0.0.0/104'] }))).toEqual(['$.items[0].spec.egress[0].to[0].networks[0]: Invalid CIDR format provided: "::ffff:10.0.0.0/104"']);
  });
});
