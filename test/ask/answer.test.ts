// Answers on examples/cluster.json (shop, payments, monitoring; an ANP that allows monitoring
// and passes shop traffic down, a NetworkPolicy for shop/db's postgres port, a BANP deny) for
// each query type, with the decision chain naming the right policy and rule; aggregation and
// work bounds on hand-built clusters.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answer, ask, chainLines, MAX_EVALUATIONS, MAX_MEMBERS, reach, type CanAnswer, type CanPortsAnswer, type SetAnswer } from '../../core/ask/answer.js';
import { ACCEPTED_FORMS, isParseFailure, parseQuestion, type ParseFailure } from '../../core/ask/parse.js';
import { clusterOf, namespace, networkPolicy, node, pod, type K8sObject } from '../support/cluster-builders.js';
import { askedOf } from '../support/ask.js';

const example = clusterOf((JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'cluster.json'), 'utf8')) as { items: unknown[] }).items);

const asked = askedOf(example);

describe('can questions: one sentence and the decision chain', () => {
  it('allowed by a NetworkPolicy after the ANP passes it down (the issue sentence)', () => {
    const a: CanAnswer = asked('can shop/web reach shop/db on 5432?', 'can');
    expect(a.text).toBe('Yes: shop/web can reach shop/db on TCP 5432 — allowed by NetworkPolicy shop/db-from-web rule 0 after AdminNetworkPolicy tenant-guardrails passed it down.');
    expect(a.verdict.ingress).toMatchObject({ allowed: true, tier: 'networkpolicy', policy: { kind: 'NetworkPolicy', namespace: 'shop', name: 'db-from-web' }, rule: { index: 0 } });
    expect(a.verdict.egress).toMatchObject({ allowed: true, tier: 'default', policy: null });
    expect(a.chain).toEqual([
      'egress of shop/web: no Admin-tier rule matches → no NetworkPolicy selects the pod for egress → no Baseline-tier rule matches → no tier decided; default allow ⇒ allowed',
      'ingress of shop/db: Pass by AdminNetworkPolicy tenant-guardrails rule 1 "delegate-shop" → Allow by NetworkPolicy shop/db-from-web rule 0 ⇒ allowed',
    ]);
  });

  it('denied by the BANP after the Pass, named with its rule', () => {
    const a: CanAnswer = asked('can shop/web talk to payments/api on tcp 443', 'can');
    expect(a.text).toBe('No: shop/web cannot reach payments/api on TCP 443 — denied at ingress by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic" after AdminNetworkPolicy tenant-guardrails passed it down.');
    expect(a.verdict.ingress).toMatchObject({ tier: 'baseline', policy: { name: 'default' }, rule: { index: 0, name: 'deny-pod-traffic' } });
  });

  it('allowed by the ANP directly, on a named port of the destination', () => {
    const a: CanAnswer = asked('is monitoring/prometheus allowed to reach payments/api port https', 'can');
    expect(a.text).toBe('Yes: monitoring/prometheus can reach payments/api on TCP 443 (https) — allowed by AdminNetworkPolicy tenant-guardrails rule 0 "allow-monitoring".');
    expect(a.flow).toEqual({ from: 'monitoring/prometheus', to: 'payments/api', port: 443, protocol: 'TCP' });
    expect(a.chain[1]).toContain('Allow by AdminNetworkPolicy tenant-guardrails rule 0 "allow-monitoring"');
  });

  it('denied by NetworkPolicy isolation: no single rule, the isolating policy is named', () => {
    const a: CanAnswer = asked('can shop/web reach shop/db on metrics', 'can');
    expect(a.text).toBe('No: shop/web cannot reach shop/db on TCP 9187 (metrics) — denied at ingress: isolated for ingress by db-from-web; no rule allows this flow.');
    expect(a.verdict.ingress).toMatchObject({ allowed: false, tier: 'networkpolicy', policy: null });
  });

  it('an external address as the source: only the ingress side is evaluated', () => {
    const a: CanAnswer = asked('can 203.0.113.7 reach shop/db on udp 53?', 'can');
    expect(a.allowed).toBe(false);
    expect(a.verdict.egress).toBeNull();
    expect(a.chain).toHaveLength(1);
    expect(a.text).toMatch(/^No: 203\.0\.113\.7 cannot reach shop\/db on UDP 53 — denied at ingress: isolated for ingress by db-from-web/);
  });

  it('an address that belongs to a pod is that pod, and the answer says so', () => {
    expect(asked('can 10.244.1.10 reach shop/db on 5432', 'can').text).toMatch(/^Yes: 10\.244\.1\.10 \(pod shop\/web\) can reach shop\/db on TCP 5432 — allowed by NetworkPolicy shop\/db-from-web rule 0/);
  });

  it('default allow, loopback and node-local traffic say why no policy was needed', () => {
    expect(asked('can 203.0.113.7 reach payments/api on 443', 'can').text).toBe('Yes: 203.0.113.7 can reach payments/api on TCP 443 — allowed by default: no policy decides.');
    expect(asked('can shop/web reach shop/web on 80', 'can').text).toBe('Yes: shop/web can reach shop/web on TCP 80 — a pod can always reach itself.');
    expect(asked('can 172.18.0.2 reach shop/web on 8080', 'can').text).toBe("Yes: 172.18.0.2 (node node-1) can reach shop/web on TCP 8080 — traffic from the pod's own node is always allowed.");
  });

  it('without a port: the allowed port ranges', () => {
    const a: CanPortsAnswer = asked('can shop/web reach shop/db?', 'can-ports');
    expect(a.ranges).toEqual({ TCP: [[5432, 5432]], UDP: [], SCTP: [] });
    expect(a.text).toBe('Yes: shop/web can reach shop/db on TCP 5432 only (ask about one port for the decision chain).');
    expect(asked('can monitoring/prometheus reach shop/db', 'can-ports').text).toMatch(/on all ports \(/);
    // No port: the side that denies every port, and one port's chain.
    const no = asked('can shop/web reach payments/api on udp', 'can-ports');
    expect(no.text).toBe('No: shop/web cannot reach payments/api on any UDP port — denied at ingress on every UDP port by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic" after AdminNetworkPolicy tenant-guardrails passed it down.');
    expect(chainLines(no).at(-1)).toMatch(/^shop\/web → payments\/api on UDP \d+: ingress of payments\/api: .*Deny by BaselineAdminNetworkPolicy default rule 0 "deny-pod-traffic" ⇒ denied$/);
  });

  it('unknown pods and named ports come back as errors, not throws', () => {
    const unknown = asked('can shop/nope reach shop/db on 5432', 'error');
    expect(unknown.error.field).toBe('from');
    expect(unknown.text).toMatch(/^I can't answer that: no pod "shop\/nope"/);
    expect(asked('can shop/web reach payments/api on postgres', 'error').error).toEqual({ field: 'port', message: 'payments/api has no port named "postgres"' });
    expect(asked('who can reach shop/gone', 'error').error.field).toBe('to');
    expect(asked('what can shop/gone reach on 80', 'error').error.field).toBe('from');
  });

  it('an unparseable question gets the accepted forms back', () => {
    const a = ask(example, 'can reach?') as ParseFailure;
    expect(a.acceptedForms).toBe(ACCEPTED_FORMS);
    expect(a.error).toMatch(/source/);
  });
});

describe('who and what questions: aggregated sets', () => {
  it('who can reach payments/api on tcp 443: only monitoring (ANP allow); shop is passed down then denied', () => {
    const a: SetAnswer = asked('who can reach payments/api on tcp 443?', 'who');
    expect(a.text).toBe('1 of 3 other pods can reach payments/api on TCP 443: monitoring/prometheus.');
    expect(a.groups).toEqual([{ ports: 'TCP 443', pods: 1, members: ['monitoring/prometheus'], moreMembers: 0 }]);
    expect(a.work).toEqual({ classes: 3, evaluations: 3, skippedPods: 0, podsWithoutNamedPort: 0 });
  });

  it('who can reach shop/db (every port): grouped by port set', () => {
    const a: SetAnswer = asked('who can reach shop/db?', 'who');
    expect(a.groups.map((g) => [g.ports, g.members])).toEqual([
      ['TCP 5432', ['shop/web']],
      ['all ports', ['monitoring/prometheus']],
    ]);
    expect(a.text).toBe('2 of 3 other pods can reach shop/db: shop/web (TCP 5432); monitoring/prometheus (all ports).');
  });

  it('who can reach shop/db on postgres: the name resolves on the destination', () => {
    expect(asked('who can reach shop/db on postgres', 'who').text).toBe('2 of 3 other pods can reach shop/db on TCP 5432 (postgres): monitoring/prometheus, shop/web.');
  });

  it('what can shop/web reach: shop/db on TCP 5432 only', () => {
    const a: SetAnswer = asked('what can shop/web reach?', 'what');
    expect(a.text).toBe('shop/web can reach 1 of 3 other pods: shop/db (TCP 5432).');
  });

  it('what can monitoring/prometheus reach on 53/udp: everything, said in one phrase', () => {
    expect(asked('what can monitoring/prometheus reach on 53/udp?', 'what').text).toBe('monitoring/prometheus can reach 3 of 3 other pods on UDP 53: all 3 other pods in the cluster.');
  });

  it('what with a named port: destinations without it are counted, not guessed', () => {
    const a: SetAnswer = asked('what can shop/web reach on postgres', 'what');
    expect(a.text).toBe('shop/web can reach 1 of 3 other pods on TCP 5432 (postgres): shop/db (2 have no port named postgres).');
    expect(a.work.podsWithoutNamedPort).toBe(2);
  });

  it('nobody: said plainly', () => {
    // monitoring has no tenant label: not an ANP subject, so the BANP denies every namespace.
    expect(asked('who can reach monitoring/prometheus on 9090', 'who').text).toBe('No pod can reach monitoring/prometheus on TCP 9090 (0 of 3 other pods).');
  });
});

// A cluster shaped for aggregation: replicas that share labels, a whole namespace, two pods
// whose labels match but whose addresses an ipBlock tells apart.
function fleet(): K8sObject[] {
  const objects: K8sObject[] = [namespace('shop'), namespace('batch'), namespace('payments'), namespace('edge'), node('n1', '172.18.0.2')];
  let ip = 10;
  const add = (key: string, labels: Record<string, string>, addr = `10.1.0.${ip++}`) => objects.push(pod(key, { ip: addr, node: 'n1', labels }));
  for (const i of [1, 2, 3]) add(`shop/web-7c9f-${i}`, { app: 'web', 'pod-template-hash': '7c9f' });
  add('shop/db-0', { app: 'db' });
  add('shop/cache-0', { app: 'cache' });
  for (const i of [1, 2, 3, 4]) add(`batch/job-${i}`, { job: 'nightly' });
  add('payments/api', { app: 'api' });
  add('edge/e1', { app: 'edge' }, '10.9.0.1');
  add('edge/e2', { app: 'edge' }, '10.9.0.2');
  objects.push(
    networkPolicy('payments/api-in', {
      podSelector: { matchLabels: { app: 'api' } },
      ingress: [
        { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'shop' } }, podSelector: { matchLabels: { app: 'web' } } }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'batch' } } }, { ipBlock: { cidr: '10.9.0.1/32' } }], ports: [{ port: 443 }] },
      ],
    }),
  );
  return objects;
}

describe('aggregation and bounded work', () => {
  const cluster = clusterOf(fleet());

  it('whole namespaces and workload labels instead of pod lists; an ipBlock splits look-alike pods', () => {
    const a: SetAnswer = asked('who can reach payments/api on 443', 'who', cluster);
    expect(a.groups[0]!.members).toEqual(['all 4 pods of namespace batch', 'edge/e1', 'pods app=web in shop (3)']);
    expect(a.text).toBe('8 of 11 other pods can reach payments/api on TCP 443: all 4 pods of namespace batch, edge/e1, pods app=web in shop (3).');
    // Replicas and the batch jobs share a class each; e1 and e2 do not (the ipBlock).
    expect(a.work).toMatchObject({ classes: 6, evaluations: 6 });
  });

  it('every port: one evaluation per class and port segment, not per pod and port', () => {
    const a: SetAnswer = asked('who can reach payments/api', 'who', cluster);
    expect(a.groups.map((g) => [g.ports, g.pods])).toEqual([['TCP 443', 8]]);
    // Per class: one whole evaluation (loopback and node-local ignore ports) and the ingress
    // side of payments/api on its own segments (TCP 1-442, 443, 444-65535; UDP, SCTP whole).
    // The sources' egress side (no egress policies: one signature) is evaluated once, per protocol.
    expect(a.work.evaluations).toBe(6 * (1 + 5) + 3);
  });

  it('what a pod reaches: other replicas of its own workload, excluding itself', () => {
    const a: SetAnswer = asked('what can shop/web-7c9f-1 reach on 80', 'what', cluster);
    expect(a.groups[0]!.members).toEqual(['all 4 pods of namespace batch', 'all 2 pods of namespace edge', 'all 4 other pods of namespace shop']);
  });

  it('long sets are capped: five items in the sentence, MAX_MEMBERS in JSON', () => {
    const objects: K8sObject[] = [namespace('many'), namespace('t'), node('n1', '172.18.0.2'), pod('t/target', { ip: '10.2.255.1', node: 'n1', labels: { app: 'target' } })];
    for (let i = 0; i < 120; i++) objects.push(pod(`many/svc-${i}`, { ip: `10.2.${i >> 8}.${(i & 255) + 1}`, node: 'n1', labels: { app: `svc-${i}` } }));
    const notIn = Array.from({ length: 10 }, (_, i) => `svc-${i}`);
    objects.push(networkPolicy('t/in', { podSelector: {}, ingress: [{ from: [{ namespaceSelector: {}, podSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: notIn }] } }] }] }));
    const a: SetAnswer = asked('who can reach t/target on 80', 'who', clusterOf(objects));
    expect(a.reachable).toBe(110);
    expect(a.groups[0]!.members).toHaveLength(MAX_MEMBERS);
    expect(a.groups[0]!.moreMembers).toBe(10);
    expect(a.text).toMatch(/^110 of 120 other pods can reach t\/target on TCP 80: many\/svc-10, many\/svc-100, many\/svc-101, many\/svc-102, many\/svc-103 and 105 more\.$/);
  });

  it('past MAX_EVALUATIONS classes are reported as skipped, not guessed', () => {
    const classes = reach(cluster, { kind: 'who', to: { pod: 'payments/api' }, port: null, protocol: null }, { evaluations: MAX_EVALUATIONS, sides: new Map() });
    expect(classes.every((c) => c.skipped === 'budget' && c.ranges === null)).toBe(true);
    expect(classes.reduce((n, c) => n + c.members.length, 0)).toBe(11);
  });

  it('answer() takes a parsed query directly', () => {
    const q = parseQuestion('who can reach payments/api on 443');
    if (isParseFailure(q)) throw new Error(q.error);
    expect((answer(cluster, q) as SetAnswer).reachable).toBe(8);
  });
});
