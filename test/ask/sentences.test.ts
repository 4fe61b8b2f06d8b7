// The sentences say what the verdicts say: a port number without a protocol is TCP for a Service
// and for its pods alike, and the sentence says so when the destination has that number on
// another protocol; counts are of pods and pod pairs, never of pod and port; a "No" on every port
// names the side and rule (or isolation) that denies it, with one port's chain; named ports are
// said with what they resolved to. On test/fixtures/ask/prod-staging.yaml, and a variant whose
// backend egress allows DNS on UDP only.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainLines, type GroupAnswer, type SetGroupAnswer } from '../../core/ask/answer.js';
import { clusterOf, loadYaml, variant, type K8sObject } from '../support/cluster-builders.js';
import { askedOf } from '../support/ask.js';

const items = (loadYaml(join(import.meta.dirname, '..', 'fixtures', 'ask', 'prod-staging.yaml'))[0] as unknown as { items: K8sObject[] }).items;
const cluster = clusterOf(items);
// backend-egress rule 1: DNS on UDP 53 only.
const udpOnly = clusterOf(items.map((o) => (o.metadata.name === 'backend-egress' ? variant(o, (p) => {
  const spec = p.spec as { egress: { ports: unknown[] }[] };
  spec.egress[1]!.ports = [{ protocol: 'UDP', port: 53 }];
}) : o)));

const asked = askedOf(cluster);

describe('a port number without a protocol', () => {
  it('is TCP for a Service, said once, with the protocols it also has', () => {
    const a: GroupAnswer = asked('can prod/deploy/backend reach kube-system/svc/kube-dns on 53', 'can-group', udpOnly);
    expect(a.allowed).toBe('none');
    expect(a.members.map((m) => m.port)).toEqual(['TCP 53', 'TCP 53']);
    expect(a.resolved).toEqual(['prod/deployment/backend → 2 pods (Deployment backend)', 'kube-system/svc/kube-dns → 1 backing pod (selector k8s-app=kube-dns), port 53 → targetPort 53']);
    expect(a.text).toMatch(/^No: prod\/deployment\/backend cannot reach kube-system\/svc\/kube-dns on TCP 53 \(.*\) — none of 2 pod pairs: denied at egress: /);
    expect(a.text).toContain('(no protocol asked, so TCP; kube-system/svc/kube-dns also has UDP 53: ask "on 53/udp")');
    // On 53/udp, the other Service port: allowed.
    expect(asked('can prod/deploy/backend reach kube-system/svc/kube-dns on 53/udp', 'can-group', udpOnly).allowed).toBe('all');
  });

  it('is TCP for the Service\'s workload too: the same verdicts, the same note', () => {
    const a: GroupAnswer = asked('can prod/deploy/backend reach kube-system/deploy/coredns on 53', 'can-group', udpOnly);
    const bySvc: GroupAnswer = asked('can prod/deploy/backend reach kube-system/svc/kube-dns on 53', 'can-group', udpOnly);
    expect(a.members.map((m) => [m.from, m.to, m.port, m.allowed])).toEqual(bySvc.members.map((m) => [m.from, m.to, m.port, m.allowed]));
    expect(a.text).toContain('kube-system/deployment/coredns also has UDP 53: ask "on 53/udp"');
    expect(asked('can prod/backend-7c9d8f6b4-a1b2c reach kube-system/coredns-9a8b7c6d5-c1c2c on 53', 'can', udpOnly).text).toMatch(/^No: .* on TCP 53 \(no protocol asked, so TCP; kube-system\/coredns-9a8b7c6d5-c1c2c also has UDP 53: ask "on 53\/udp"\) — denied at egress/);
  });
});

describe('counts are of pods and pod pairs, never of pod and port', () => {
  it('one source pod, one backing pod, two Service ports: its one pod, on 2 Service ports', () => {
    const a: GroupAnswer = asked('can prod/backend-7c9d8f6b4-a1b2c reach kube-system/svc/kube-dns', 'can-group', udpOnly);
    expect(a.resolved).toEqual(['kube-system/svc/kube-dns → 1 backing pod (selector k8s-app=kube-dns), port 53/UDP → targetPort 53; port 53/TCP → targetPort 53']);
    expect(a.text).toMatch(/\) — its one pod on 2 Service ports: allowed by NetworkPolicy prod\/backend-egress rule 1: kube-system\/coredns-9a8b7c6d5-c1c2c \(UDP 53\); denied at egress: .*: kube-system\/coredns-9a8b7c6d5-c1c2c \(TCP 53\)\.$/);
    expect(asked('can prod/deploy/backend reach kube-system/svc/kube-dns', 'can-group', udpOnly).text).toContain(' — 2 pod pairs on 2 Service ports each: ');
  });

  it('who can reach a Service with one backing pod: the one pod', () => {
    const a: SetGroupAnswer = asked('who can reach kube-system/svc/kube-dns on 53', 'who-group', udpOnly);
    expect(a.members.map((m) => m.member)).toEqual(['kube-system/coredns-9a8b7c6d5-c1c2c']);
    expect(a.text).toMatch(/^6 pods can reach the one pod of kube-system\/svc\/kube-dns on TCP 53 /);
    // Every port: still one pod, each reaching pod with the Service ports it reaches it on.
    const every: SetGroupAnswer = asked('who can reach kube-system/svc/kube-dns', 'who-group', udpOnly);
    expect(every.members.map((m) => [m.member, m.reachable])).toEqual([['kube-system/coredns-9a8b7c6d5-c1c2c', 8]]);
    expect(every.text).toMatch(/^8 pods can reach the one pod of kube-system\/svc\/kube-dns .*: .*all 2 pods of namespace staging \(UDP 53 and TCP 53\), pods app=backend in prod \(2\) \(UDP 53\)\.$/);
  });

  it('who can reach a Service with two ports: the pods that reach every backing pod, on which port', () => {
    const a: SetGroupAnswer = asked('who can reach prod/svc/backend', 'who-group');
    expect(a.members.map((m) => [m.member, m.reachable])).toEqual([['prod/backend-7c9d8f6b4-a1b2c', 2], ['prod/backend-7c9d8f6b4-d3e4f', 2]]);
    expect(a.commonPods).toBe(2);
    expect(a.text).toMatch(/^2 pods can reach each of the 2 pods of prod\/svc\/backend \(.*\): prod\/frontend-6d8f7c9b5-k2x9p \(TCP 8080\), monitoring\/prometheus-8b9c0d1e2-m1m2m \(TCP 9090\) — the same for each\.$/);
  });
});

describe('"No" on every port says why, with one port\'s chain', () => {
  it('one rule denies every port: the AdminNetworkPolicy rule', () => {
    const a = asked('can staging/frontend-4a5b6c7d8-t1t2t reach prod/db-0', 'can-ports');
    expect(a.text).toBe('No: staging/frontend-4a5b6c7d8-t1t2t cannot reach prod/db-0 on any port — denied at ingress on every port by AdminNetworkPolicy isolate-prod-from-staging rule 0 "deny-from-staging".');
    expect(chainLines(a)).toEqual([
      'staging/frontend-4a5b6c7d8-t1t2t → prod/db-0 on TCP 5432: egress of staging/frontend-4a5b6c7d8-t1t2t: no Admin-tier rule matches → no NetworkPolicy selects the pod for egress → no Baseline-tier rule matches → no tier decided; default allow ⇒ allowed',
      'staging/frontend-4a5b6c7d8-t1t2t → prod/db-0 on TCP 5432: ingress of prod/db-0: Deny by AdminNetworkPolicy isolate-prod-from-staging rule 0 "deny-from-staging" ⇒ denied',
    ]);
  });

  it('for workloads: the isolating policy of the side that denies every port, and a port the other side allows', () => {
    const a: GroupAnswer = asked('can prod/deploy/backend reach prod/deploy/redis', 'can-group');
    expect(a.groups.map((g) => g.reason)).toEqual(['denied at egress on every port: isolated for egress by backend-egress; no rule allows this flow']);
    expect(a.text).toContain(' — none of 2 pod pairs: denied at egress on every port: isolated for egress by backend-egress; no rule allows this flow: ');
    expect(chainLines(a)).toEqual([
      'prod/backend-7c9d8f6b4-a1b2c → prod/redis-5f6a7b8c9-zz1yy on TCP 6379: egress of prod/backend-7c9d8f6b4-a1b2c: no Admin-tier rule matches → isolated for egress by backend-egress; no rule allows this flow ⇒ denied',
      'prod/backend-7c9d8f6b4-a1b2c → prod/redis-5f6a7b8c9-zz1yy on TCP 6379: ingress of prod/redis-5f6a7b8c9-zz1yy: no Admin-tier rule matches → Allow by NetworkPolicy prod/allow-backend-to-redis rule 0 ⇒ allowed',
    ]);
  });

  it('from an address outside the cluster: the isolating policies of the destination', () => {
    const a: GroupAnswer = asked('can 10.0.0.5 reach prod/deploy/backend', 'can-group');
    expect(a.text).toContain(' — none of 2 pods: denied at ingress on every port: isolated for ingress by allow-frontend-to-backend, allow-monitoring-metrics, default-deny-ingress; no rule allows this flow: ');
    expect(chainLines(a)).toHaveLength(1);
    expect(chainLines(a)[0]).toMatch(/^10\.0\.0\.5 → prod\/backend-7c9d8f6b4-a1b2c on TCP \d+: ingress of prod\/backend-7c9d8f6b4-a1b2c: .* ⇒ denied$/);
  });
});

describe('wording', () => {
  it('one pair is "its one pod pair"; a named port is said with its protocol and number', () => {
    expect(asked('can prod/deploy/frontend reach prod/deploy/redis on 6379', 'can-group').text).toContain(' — its one pod pair: ');
    const named: GroupAnswer = asked('can prod/frontend-6d8f7c9b5-k2x9p reach prod/svc/postgres on postgres', 'can-group');
    expect(named.text).toMatch(/^No: prod\/frontend-6d8f7c9b5-k2x9p cannot reach prod\/svc\/postgres on TCP 5432 \(postgres\) \(.*\) — its one pod: denied at ingress/);
    expect(asked('can prod/deploy/backend reach prod/db-0 on postgres', 'can-group').text).toMatch(/ on TCP 5432 \(postgres\) \(prod\/deployment\/backend → 2 pods/);
    expect(asked('who can reach kube-system/deploy/coredns on dns', 'who-group').text).toContain(' on UDP 53 (dns)');
  });
});
