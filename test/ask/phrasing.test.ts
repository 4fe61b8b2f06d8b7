// Questions in the words chat-ops users type, on a realistic cluster (test/fixtures/ask-phrasing.yaml):
// each phrasing must read as the same question as its canonical form (the parsed structures
// equal), some must give the canonical form's very answer, and names without a namespace,
// namespaces, the internet, ping and near misses must be answered or refused as README.md's
// "Ask in words" says.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ask } from '../../core/ask/answer.js';
import { isParseFailure, parseQuestion } from '../../core/ask/parse.js';
import type { SetQuery } from '../../core/ask/reach.js';
import { reachEach } from '../../core/ask/set-group.js';
import { clusterOf, loadYaml } from '../support/cluster-builders.js';

const objects = (loadYaml(join(import.meta.dirname, '..', 'fixtures', 'ask-phrasing.yaml'))[0] as unknown as { items: unknown[] }).items;
const cluster = clusterOf(objects);

/** [phrasing, the canonical question it must read as]. */
const SAME: [string, string][] = [
  // Names without a namespace, the namespace given as kubectl and people give it.
  ['can frontend reach backend on 8080 -n prod', 'can prod/frontend reach prod/backend on 8080'],
  ['can deploy/frontend reach deploy/backend on 8080 -n prod', 'can prod/deploy/frontend reach prod/deploy/backend on 8080'],
  ['can frontend reach svc/backend --namespace prod', 'can prod/frontend reach prod/svc/backend'],
  ['can frontend reach svc/backend --namespace=prod', 'can prod/frontend reach prod/svc/backend'],
  ['can frontend reach backend in prod on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['can frontend reach backend on 8080 in namespace prod', 'can prod/frontend reach prod/backend on 8080'],
  ['can frontend in staging reach backend in prod', 'can staging/frontend reach prod/backend'],
  ['what can backend reach -n prod', 'what can prod/backend reach'],
  ['who can reach db in prod on 5432', 'who can reach prod/db on 5432'],
  ['can frontend reach backend in the prod namespace on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['who can reach db in the prod namespace on 5432', 'who can reach prod/db on 5432'],
  ['can frontend reach backend on 8080 in the prod namespace', 'can prod/frontend reach prod/backend on 8080'],
  // The kind said around a name, as people say it.
  ['can frontend reach the backend service on 8080 in prod', 'can prod/frontend reach prod/svc/backend on 8080'],
  ['can frontend reach service backend -n prod', 'can prod/frontend reach prod/svc/backend'],
  ['can frontend reach svc backend:8080 -n prod', 'can prod/frontend reach prod/svc/backend on 8080'],
  ['can the frontend deployment reach the backend service in prod', 'can prod/deployment/frontend reach prod/svc/backend'],
  ['can deployment frontend reach backend -n prod', 'can prod/deployment/frontend reach prod/backend'],
  // DNS names.
  ['can prod/frontend reach backend.prod.svc on 8080', 'can prod/frontend reach prod/svc/backend on 8080'],
  ['can prod/frontend reach backend.prod.svc.cluster.local on 8080', 'can prod/frontend reach prod/svc/backend on 8080'],
  ['can prod/backend reach db-0.postgres.prod.svc.cluster.local on 5432', 'can prod/backend reach prod/db-0 on 5432'],
  ['can prod/backend reach 10-244-2-12.prod.pod.cluster.local on 5432', 'can prod/backend reach 10.244.2.12 on 5432'],
  // A port on the name.
  ['can prod/frontend reach prod/deploy/backend:8080', 'can prod/frontend reach prod/deploy/backend on 8080'],
  ['can prod/frontend reach prod/deploy/backend:8080/tcp?', 'can prod/frontend reach prod/deploy/backend on tcp 8080'],
  ['can prod/backend reach 8.8.8.8:53/udp', 'can prod/backend reach 8.8.8.8 on udp 53'],
  ['can prod/frontend reach backend.prod.svc.cluster.local:8080 tcp', 'can prod/frontend reach prod/svc/backend on tcp 8080'],
  // Other openings.
  ["why can't prod/frontend reach prod/db on 5432?", 'can prod/frontend reach prod/db on 5432'],
  ['why can prod/frontend reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['why is prod/frontend not allowed to reach prod/db', 'can prod/frontend reach prod/db'],
  ['why is prod/frontend blocked from reaching prod/db on 5432?', 'can prod/frontend reach prod/db on 5432'],
  ['why is prod/frontend blocked from prod/db', 'can prod/frontend reach prod/db'],
  ['is prod/frontend prevented from talking to prod/db', 'can prod/frontend reach prod/db'],
  ['why is prod/frontend denied access to prod/db on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['does prod/frontend have access to prod/backend on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['does anything block traffic from prod/frontend to prod/db on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['what blocks traffic from prod/frontend to prod/db?', 'can prod/frontend reach prod/db'],
  ["what's blocking prod/frontend from reaching prod/db on 5432?", 'can prod/frontend reach prod/db on 5432'],
  ['what is blocking prod/frontend from prod/db', 'can prod/frontend reach prod/db'],
  ['does anything stop prod/frontend from talking to prod/db on 5432', 'can prod/frontend reach prod/db on 5432'],
  ["who's allowed to reach prod/db on 5432?", 'who can reach prod/db on 5432'],
  ["what's prod/frontend allowed to reach?", 'what can prod/frontend reach'],
  ['is there a path from prod/frontend to prod/db on 5432?', 'can prod/frontend reach prod/db on 5432'],
  ['is egress from prod/frontend to 10.0.0.0/8 allowed', 'can prod/frontend reach 10.0.0.0/8'],
  ['is a connection from prod/frontend to prod/db on 5432 allowed?', 'can prod/frontend reach prod/db on 5432'],
  ['does prod/db accept connections from prod/backend on 5432', 'can prod/backend reach prod/db on 5432'],
  ['can prod/db receive traffic from prod/backend on 5432?', 'can prod/backend reach prod/db on 5432'],
  ['will prod/db be able to accept connections from prod/backend', 'can prod/backend reach prod/db'],
  ['is prod/db open to prod/backend on 5432', 'can prod/backend reach prod/db on 5432'],
  ['is prod/db reachable by prod/backend', 'can prod/backend reach prod/db'],
  ['which pods can prod/frontend talk to?', 'what can prod/frontend reach'],
  ['which pods in staging can monitoring/prometheus reach on 8080', 'what pods in staging can monitoring/prometheus reach on 8080'],
  ['is prod/deploy/backend exposed to the internet on 8080', 'can the internet reach prod/deploy/backend on 8080'],
  // Statements and requests: "check if", "tell me whether", "list", "show me".
  ['check if prod/frontend can reach prod/db on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['tell me whether prod/frontend can talk to prod/backend', 'can prod/frontend reach prod/backend'],
  ['i want to know if prod/frontend can reach prod/db', 'can prod/frontend reach prod/db'],
  ['prod/frontend can reach prod/db on 5432?', 'can prod/frontend reach prod/db on 5432'],
  ['list everything prod/frontend can reach', 'what can prod/frontend reach'],
  ['everything prod/frontend can reach on 8080', 'what can prod/frontend reach on 8080'],
  ['show me everything that can reach prod/db', 'who can reach prod/db'],
  ['list all pods that can reach prod/db on 5432', 'who can reach prod/db on 5432'],
  // Present tense, "anything", "how".
  ['what talks to prod/db', 'who can reach prod/db'],
  ['who talks to prod/db on 5432', 'who can reach prod/db on 5432'],
  ['which pods reach prod/db', 'who can reach prod/db'],
  ['which services can prod/frontend reach', 'what can prod/frontend reach'],
  ['what does prod/frontend talk to', 'what can prod/frontend reach'],
  ['where does prod/frontend connect on 8080', 'what can prod/frontend reach on 8080'],
  ['can anything reach prod/db on 5432', 'who can reach prod/db on 5432'],
  ['does anyone talk to prod/db', 'who can reach prod/db'],
  ['is anything able to reach prod/db', 'who can reach prod/db'],
  ['why is prod/db unreachable from prod/frontend on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['how can prod/frontend reach prod/backend on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['is prod/frontend → prod/db allowed on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['can prod/frontend egress to 8.8.8.8 on 443', 'can prod/frontend reach 8.8.8.8 on 443'],
  ['can prod/frontend make outbound connections to 1.1.1.1', 'can prod/frontend reach 1.1.1.1'],
  ['can prod/frontend reach anything outside the cluster', 'can prod/frontend reach the internet'],
  // A port right after the destination, without "on": a number or a name, never part of the name.
  ['can prod/frontend reach prod/db 5432', 'can prod/frontend reach prod/db on 5432'],
  ['can prod/frontend reach db postgres -n prod', 'can prod/frontend reach prod/db on postgres'],
  // A verdict asked as whether it works.
  ['does prod/frontend → prod/backend work on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['why is prod/frontend unable to reach prod/db', 'can prod/frontend reach prod/db'],
  // "Which policy decides": the reach question, whose answer names the policy and rule.
  ['which policy blocks prod/frontend from reaching prod/db on 5432', 'can prod/frontend reach prod/db on 5432'],
  ['what rule allows prod/frontend to reach prod/backend on 8080', 'can prod/frontend reach prod/backend on 8080'],
  ['which network policy allows traffic from prod/frontend to prod/backend', 'can prod/frontend reach prod/backend'],
  // The cluster's DNS: its Service, UDP 53 unless the question says otherwise.
  ['can prod/frontend resolve dns?', 'can prod/frontend reach kube-system/svc/kube-dns on udp 53'],
  ['can prod/frontend do dns lookups', 'can prod/frontend reach kube-system/svc/kube-dns on udp 53'],
  ['will prod/backend be able to resolve names', 'can prod/backend reach kube-system/svc/kube-dns on udp 53'],
  ['can prod/frontend reach dns', 'can prod/frontend reach kube-system/svc/kube-dns on udp 53'],
  ['can prod/frontend reach the cluster dns over tcp', 'can prod/frontend reach kube-system/svc/kube-dns on tcp 53'],
  ['who can reach the dns server on 53/udp', 'who can reach kube-system/svc/kube-dns on 53/udp'],
  ['will prod/frontend be able to reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['hey, can prod/frontend reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['hi can prod/frontend reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['@bot can prod/frontend reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['hey <@U024BE7LH> quick question: can prod/frontend reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['from prod/frontend to prod/db on 5432?', 'can prod/frontend reach prod/db on 5432'],
  ['prod/frontend -> prod/db:5432?', 'can prod/frontend reach prod/db on 5432'],
  ['prod/frontend → prod/db', 'can prod/frontend reach prod/db'],
  // Passive and "traffic" forms.
  ['is prod/db reachable from prod/backend on 5432', 'can prod/backend reach prod/db on 5432'],
  ['is prod/db reachable on 5432 from prod/backend', 'can prod/backend reach prod/db on 5432'],
  ['can prod/db be reached from prod/backend', 'can prod/backend reach prod/db'],
  ['is traffic from prod/backend to prod/db allowed', 'can prod/backend reach prod/db'],
  ['is traffic from prod/backend to prod/db on 5432 allowed?', 'can prod/backend reach prod/db on 5432'],
  ['can traffic flow from prod/backend to prod/db', 'can prod/backend reach prod/db'],
  ['is it possible for prod/backend to reach prod/db', 'can prod/backend reach prod/db'],
  // Verbs.
  ['can monitoring/prometheus scrape prod/db on 9187', 'can monitoring/prometheus reach prod/db on 9187'],
  ['can prod/frontend curl prod/backend', 'can prod/frontend reach prod/backend'],
  ['can prod/frontend open a connection to prod/backend', 'can prod/frontend reach prod/backend'],
  ['can prod/frontend still reach prod/backend', 'can prod/frontend reach prod/backend'],
  ['who can scrape prod/db', 'who can reach prod/db'],
  // Namespaces as endpoints.
  ['can pods in monitoring reach prod/db on 9187', 'can ns/monitoring reach prod/db on 9187'],
  ['can namespace staging reach prod/backend', 'can ns/staging reach prod/backend'],
  ['can anything in staging reach prod/backend', 'can ns/staging reach prod/backend'],
  ['can the staging namespace reach prod/backend', 'can ns/staging reach prod/backend'],
  ['can pods in the staging namespace reach prod/backend', 'can ns/staging reach prod/backend'],
  ['who can reach everything in prod', 'who can reach ns/prod'],
  // The internet.
  ['can the outside world reach prod/frontend on 8080', 'can internet reach prod/frontend on 8080'],
  ['can prod/backend reach anywhere outside the cluster on 443', 'can prod/backend reach internet on 443'],
  ['is prod/frontend reachable from the internet on 8080', 'can internet reach prod/frontend on 8080'],
  ['who can reach prod/frontend on 8080 from the internet', 'can internet reach prod/frontend on 8080'],
  // Ports and protocols.
  ['can prod/backend reach prod/db on port 5432 over tcp', 'can prod/backend reach prod/db on tcp 5432'],
  ['can prod/backend reach prod/db on 5432 using tcp', 'can prod/backend reach prod/db on tcp 5432'],
  // Slack and keyboards.
  ['*can* _prod/frontend_ reach `prod/backend` on 8080?!', 'can prod/frontend reach prod/backend on 8080'],
  ['can prod/frontend reach <http://backend.prod.svc.cluster.local|backend.prod.svc.cluster.local>?', 'can prod/frontend reach prod/svc/backend'],
  ['can \u201cprod/frontend\u201d reach \u2018prod/backend\u2019\u2026', 'can prod/frontend reach prod/backend'],
  ['can ~prod/frontend~ reach prod/backend.', 'can prod/frontend reach prod/backend'],
  ['can prod/frontend reach prod/backend on 8080 pls', 'can prod/frontend reach prod/backend on 8080'],
  ['can prod/frontend reach prod/backend on 8080 or not?', 'can prod/frontend reach prod/backend on 8080'],
];

describe('each phrasing reads as its canonical question', () => {
  it.each(SAME)('%s', (phrasing, canonical) => {
    const want = parseQuestion(canonical);
    expect(isParseFailure(want), canonical).toBe(false);
    expect(parseQuestion(phrasing)).toEqual(want);
  });
});

/** [phrasing, canonical]: the same answer, word for word (names the parser leaves to the snapshot). */
const SAME_ANSWER: [string, string][] = [
  ['can frontend reach backend on 8080 -n prod', 'can prod/deploy/frontend reach prod/svc/backend on 8080'],
  ['can db reach redis', 'can prod/statefulset/db reach prod/deployment/redis'],
  ['is prod/backend reachable from staging on 8080', 'can ns/staging reach prod/svc/backend on 8080'],
  ['can staging reach prod on 8080', 'can ns/staging reach ns/prod on 8080'],
  ['can prod/frontend reach backend.prod on 8080', 'can prod/frontend reach prod/svc/backend on 8080'],
  ['can prod/frontend reach postgres on 5432', 'can prod/frontend reach prod/svc/postgres on 5432'],
  // The question's namespace goes to every bare name; one not there is read as written (the one namespace that has it).
  ['can prometheus reach db in prod on 9187', 'can monitoring/prometheus reach prod/statefulset/db on 9187'],
  ['can prometheus reach db -n prod', 'can monitoring/prometheus reach prod/statefulset/db'],
  ['can backend reach db -n prod', 'can prod/deployment/backend reach prod/statefulset/db'],
  ['can the frontend deployment reach the backend service on 8080 in the prod namespace', 'can prod/deploy/frontend reach prod/svc/backend on 8080'],
  ['why is prod/frontend blocked from reaching the backend service in prod on 8080?', 'can prod/frontend reach prod/svc/backend on 8080'],
];

describe('names the snapshot resolves answer as their canonical form', () => {
  it.each(SAME_ANSWER)('%s', (phrasing, canonical) => {
    const [a, b] = [ask(cluster, phrasing), ask(cluster, canonical)];
    expect(isParseFailure(b) ? b.error : b.kind).not.toBe('error');
    expect(isParseFailure(a) ? a.error : a.text).toBe(isParseFailure(b) ? b.error : b.text);
  });
});

const text = (q: string) => {
  const a = ask(cluster, q);
  return isParseFailure(a) ? `unreadable: ${a.error}` : a.text;
};

describe('names without a namespace, collisions, namespaces and the internet', () => {
  it('a Deployment and a Service of one name picking the same pods: the Service on its port, else the Deployment', () => {
    expect(text('can prod/frontend reach prod/backend on 8080')).toMatch(/^Yes: prod\/deployment\/frontend can reach prod\/svc\/backend on TCP 8080 \(.*port 8080 → targetPort http \(8080\)/);
    expect(text('can prod/frontend reach prod/frontend on 80')).toMatch(/reach prod\/svc\/frontend on TCP 80 \(.*port 80 → targetPort http \(8080\)/);
    expect(text('can prod/backend reach prod/backend on 9999')).toMatch(/reach prod\/deployment\/backend on TCP 9999/);
    expect(text('can prod/backend reach prod/redis')).toMatch(/reach prod\/deployment\/redis/);
  });

  it("a bare name not in the question's namespace and in several others: the first error stands", () => {
    expect(text('can frontend reach redis -n monitoring')).toMatch(/^I can't answer that: no pod "monitoring\/frontend" in the snapshot/);
  });

  it('a name in several namespaces lists each, and every name listed resolves', () => {
    const said = text('can frontend reach prod/db on 5432');
    expect(said).toMatch(/"frontend" is in 2 namespaces \(prod, staging\): name one as prod\/frontend or staging\/frontend \(or add -n namespace\)/);
    for (const form of ['prod/frontend', 'staging/frontend']) expect(text(`can ${form} reach prod/db on 5432`)).toMatch(/^(Yes|No|Partly): /);
  });

  it('a namespace is every pod of it, answered as a set', () => {
    expect(text('can pods in monitoring reach prod/db on 9187')).toMatch(/^Yes: ns\/monitoring can reach prod\/statefulset\/db on TCP 9187 \(ns\/monitoring → 1 pod \(every pod of namespace monitoring\)/);
    expect(text('who can reach ns/staging on 8080')).toMatch(/ns\/staging/);
  });

  it('the internet is one public address, and the sentence says so', () => {
    expect(text('can the internet reach prod/frontend on 8080')).toMatch(/^Yes: the internet can reach prod\/deployment\/frontend on TCP 8080 .*203\.0\.113\.7 \(a public address/);
    expect(text('can prod/db reach the internet on 443')).toMatch(/prod\/statefulset\/db .* the internet .*a public address/);
  });

  it('a DNS name outside the cluster: asked about its address instead, since policies match addresses', () => {
    for (const q of ['can prod/frontend reach api.stripe.com on 443', 'can prod/backend reach google.com:443']) {
      const a = ask(cluster, q);
      expect(isParseFailure(a) ? a.error : a.text, q).toMatch(/^I can't answer that: "(api\.stripe|google)\.com" is not in the snapshot; as a DNS name outside the cluster it cannot be answered by name: policies match the address it resolves to/);
    }
    // A Service's short DNS name is still one (prod is a namespace), and a near miss still a suggestion.
    expect((ask(cluster, 'can prod/frontend reach backend.prod on 8080') as { text: string }).text).toBe((ask(cluster, 'can prod/frontend reach prod/svc/backend on 8080') as { text: string }).text);
  });

  it('ping: NetworkPolicy selects TCP, UDP and SCTP only', () => {
    const a = ask(cluster, 'can prod/frontend ping prod/backend?');
    expect(isParseFailure(a) && a.error).toMatch(/ICMP.*NetworkPolicyPort's protocol is TCP, UDP or SCTP/);
  });

  it('several ports: can, who, what, exposed and metadata questions answer each', () => {
    for (const q of ['can prod/backend reach prod/db on ports 5432, 9187', 'can prod/backend reach prod/db on 5432 and 9187', 'can prod/backend reach prod/db on 5432 or 9187?', 'can prod/backend reach prod/db on 5432-5433']) {
      expect(parseQuestion(q), q).toMatchObject({ kind: 'can-list', ports: q.endsWith('5433') ? [5432, 5433] : [5432, 9187] });
    }
    expect(parseQuestion('who can reach prod/db on 5432 and 9187')).toMatchObject({ kind: 'who-list', ports: [5432, 9187] });
    expect(parseQuestion('what can prod/backend reach on 80, 443')).toMatchObject({ kind: 'what-list', ports: [80, 443] });
    expect(parseQuestion('is anything exposed to the internet in prod on 80 and 443')).toMatchObject({ kind: 'exposed-list', namespace: 'prod', ports: [80, 443] });
    expect(parseQuestion('which pods can reach the cloud metadata address on 80 and 443/tcp')).toMatchObject({ kind: 'metadata-list', ports: [80, 443], protocol: 'TCP' });
    expect(parseQuestion('which pods can reach the cloud metadata address on 80')).toMatchObject({ kind: 'metadata', port: 80 });
    for (const [q, why] of [
      ['can prod/backend reach prod/db on 1-100', /the port range 1-100 has 100 ports; ask about at most 16/],
      ['can prod/backend reach prod/db:5432 on 80 and 81', /^two ports/],
      ['can prod/backend reach prod/db on 5432 and', /expected a port after "and"/],
    ] as const) {
      const a = ask(cluster, q);
      expect(isParseFailure(a) && a.error, q).toMatch(why);
    }
  });
});

describe('"who in ns", "what can X reach in ns": only the pods of that namespace', () => {
  it('reads the namespace of the pods answered, wherever people put it', () => {
    // After the verb, "in prod" is ambiguous: also the bare source's namespace, as -n is (read as
    // written when it is not there). Before it, "pods in prod" are the destinations alone.
    const what = { kind: 'what', from: { pod: 'prod/prometheus' }, port: null, protocol: null, podsIn: 'prod' };
    for (const q of ['what can prometheus reach in prod', 'what can prometheus reach in the prod namespace']) expect(parseQuestion(q), q).toEqual(what);
    for (const q of ['what pods in prod can prometheus reach', 'what in prod can prometheus reach']) expect(parseQuestion(q), q).toEqual({ ...what, from: { pod: 'prometheus' } });
    // A source named with its namespace keeps it; the trailing namespace is the destinations'.
    expect(parseQuestion('what can monitoring/prometheus reach in prod on 9187')).toEqual({ ...what, from: { pod: 'monitoring/prometheus' }, port: 9187 });
    const who = { kind: 'who', to: { pod: 'prod/db' }, port: 9187, protocol: null, podsIn: 'monitoring' };
    for (const q of ['who in monitoring can reach prod/db on 9187', 'which pods in monitoring can reach prod/db on 9187', 'what in monitoring can reach prod/db on 9187', 'which pods in the monitoring namespace can reach prod/db on 9187']) expect(parseQuestion(q), q).toEqual(who);
    // -n names the names' namespace only, as kubectl's does.
    expect(parseQuestion('what can prometheus reach -n monitoring')).not.toHaveProperty('podsIn');
    // A list of ports asks each port about the same pods.
    expect(parseQuestion('what can monitoring/prometheus reach in prod on 80 and 9187')).toMatchObject({ kind: 'what-list', ports: [80, 9187], podsIn: 'prod' });
    // "which pods in prod are exposed …" is the exposed question about prod.
    for (const q of ['which pods in prod are exposed to the internet', 'what in prod is exposed to the internet']) expect(parseQuestion(q), q).toEqual(parseQuestion('is anything exposed to the internet in ns prod'));
  });

  it('answers DNS questions about the kube-dns Service, and says so where a snapshot has none', () => {
    expect(ask(cluster, 'can prod/frontend resolve dns')).toMatchObject({ text: expect.stringMatching(/^(Yes|No|Partly).* kube-system\/svc\/kube-dns on UDP 53/) });
    const bare = clusterOf(objects.filter((o) => (o as { metadata: { namespace?: string; name: string } }).metadata.namespace !== 'kube-system' && (o as { metadata: { name: string } }).metadata.name !== 'kube-system'));
    expect(ask(bare, 'can prod/frontend resolve dns')).toMatchObject({ kind: 'error', text: expect.stringContaining('no Service kube-system/kube-dns') });
  });

  it('asks "is X exposed to the internet" of a name that is no namespace as whether the internet reaches it', () => {
    // A Deployment, not a namespace: the internet's reach of its pods, as asked directly.
    const direct = ask(cluster, 'can the internet reach redis on 6379');
    expect((direct as { kind: string }).kind).not.toBe('error');
    expect(ask(cluster, 'is redis exposed to the internet on 6379')).toEqual(direct);
    expect((ask(cluster, 'is redis exposed to the internet on 6379 and 80') as { kind: string }).kind).toBe('can-list');
    // A namespace stays the namespace question; a name that is neither keeps the namespace's error.
    expect((ask(cluster, 'is prod exposed to the internet') as { kind: string }).kind).toBe('exposed');
    expect(ask(cluster, 'is nosuch exposed to the internet')).toMatchObject({ kind: 'error', text: expect.stringContaining('no namespace "nosuch"') });
  });

  it('answers exactly the unrestricted answer\'s pods of that namespace, and says so', () => {
    expect(text('what can prometheus reach in prod')).toBe(text('what pods in prod can prometheus reach'));
    for (const [q, whole, ns] of [
      ['what pods in prod can monitoring/prometheus reach', 'what can monitoring/prometheus reach', 'prod'],
      ['what pods in staging can monitoring/prometheus reach on 8080', 'what can monitoring/prometheus reach on 8080', 'staging'],
      ['who in monitoring can reach prod/db on 9187', 'who can reach prod/db on 9187', 'monitoring'],
      ['which pods in prod can reach prod/db', 'who can reach prod/db', 'prod'],
      ['which pods in prod can reach prod/deploy/backend', 'who can reach prod/deploy/backend', 'prod'],
    ] as const) {
      const [some, all] = [parseQuestion(q), parseQuestion(whole)] as SetQuery[];
      expect(some!.podsIn, q).toBe(ns);
      const [a, b] = [reachEach(cluster, some!), reachEach(cluster, all!)];
      const reached = (r: typeof a) => r.members.map((m) => [...m.reached].map(([p, ports]) => `${p.key} ${ports}`).sort());
      expect(reached(a), q).toEqual(reached(b).map((ms) => ms.filter((m) => m.startsWith(`${ns}/`))));
      expect(text(q), q).toContain(`in namespace ${ns}`);
    }
    // One pod fixed: counted out of the namespace's pods, itself not among them.
    const one = ask(cluster, 'which pods in prod can reach prod/db-0 on 5432') as { kind: string; of: number; text: string };
    expect(one.kind).toBe('who');
    expect(one.of).toBe(cluster.pods.filter((p) => p.namespace === 'prod' && p.key !== 'prod/db-0').length);
    expect(one.text).toMatch(new RegExp(`^\\d+ of ${one.of} other pods in namespace prod can reach prod/db-0 on TCP 5432`));
    // The cloud metadata question, for one namespace's pods.
    for (const ns of ['prod', 'monitoring', 'staging']) {
      const q = parseQuestion(`which pods in ${ns} can reach the cloud metadata address`);
      expect(q).toEqual({ kind: 'metadata', port: 80, protocol: 'TCP', podsIn: ns });
      const [some, all] = [ask(cluster, `which pods in ${ns} can reach the cloud metadata address`), ask(cluster, 'which pods can reach the cloud metadata address')] as unknown as { allowed: number; of: number; text: string; namespaces: { namespace: string; pods: number }[] }[];
      expect(some!.of).toBe(cluster.pods.filter((p) => p.namespace === ns).length);
      expect(some!.allowed).toBe(all!.namespaces.find((n) => n.namespace === ns)?.pods ?? 0);
      expect(some!.namespaces.every((n) => n.namespace === ns)).toBe(true);
      expect(some!.text).toContain(`in namespace ${ns} can reach the cloud metadata address`);
    }
    expect(parseQuestion('which pods in prod can reach the cloud metadata address on 80 and 443')).toMatchObject({ kind: 'metadata-list', ports: [80, 443], podsIn: 'prod' });
    expect(text('which pods in nope can reach the cloud metadata address')).toBe('I can\'t answer that: no namespace "nope" in the snapshot.');
    expect(text('what can prometheus reach in nope')).toBe('I can\'t answer that: no namespace "nope" in the snapshot.');
    expect(text('who in monitoring can reach prod/db from prod/backend')).toMatch(/^unreadable: the sources are the pods of monitoring already/);
  });
});

describe('near misses get a suggestion that resolves', () => {
  it.each([
    ['can prod/deploy/db reach prod/backend', /no workload "prod\/deploy\/db" in the snapshot; did you mean prod\/statefulset\/db\?$/],
    ['can prod/svc/db reach prod/backend', /no Service "prod\/db" .*did you mean prod\/statefulset\/db\?$/],
    ['can frontnd reach prod/db', /no pod or node "frontnd" .*did you mean prod\/deployment\/frontend, prod\/svc\/frontend or staging\/deployment\/frontend\?$/],
    ['can prod/frontend reach prod/deploy/backend on htttp', /has no port named "htttp"; did you mean http\?$/],
    ['can prod/frontend reach prod/backend on metrix', /has no port named "metrix"; did you mean metrics\?$/],
  ])('%s', (q, want) => {
    expect(text(q)).toMatch(want);
  });

  it('a namespace typo suggests a name that resolves (here a Deployment and Service of one name, one set of pods)', () => {
    expect(text('can prd/frontend reach prod/db')).toMatch(/there is no namespace "prd"; did you mean prod\/frontend\?$/);
    expect(text('can prod/frontend reach prod/db')).toMatch(/^(Yes|No|Partly): prod\/deployment\/frontend /);
  });
});
