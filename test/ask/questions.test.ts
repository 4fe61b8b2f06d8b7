// The three questions of "Chat-ops in the user's words": exposure to the internet, the cloud
// metadata address, and what changed between two stored versions — each phrasing through the
// grammar, each answer checked against the verdict engine on a small cluster (an ipBlock that
// excepts a public range, pods exposed on 443 and on every port, a default-deny namespace, an
// egress policy that blocks 169.254.169.254/32), and the stored question through the HTTP route.
import { describe, expect, it } from 'vitest';
// First: the app module loads @hono/zod-openapi, which must extend zod before any schema is built.
import { createApp } from '../../functions/app.js';
import { ask, type Answer } from '../../core/ask/answer.js';
import type { ChangedAnswer } from '../../core/ask/changed.js';
import type { ExposedAnswer } from '../../core/ask/exposed.js';
import type { MetadataAnswer } from '../../core/ask/metadata.js';
import { ACCEPTED_FORMS, parseQuestion } from '../../core/ask/parse.js';
import { subtractRanges } from '../../core/evaluate/side-runs.js';
import { createMemoryStore } from '../../infra/store/memory.js';
import { MAX_CIDR_REGIONS } from '../../core/evaluate/cidr.js';
import { MAX_MEMBER_FLOWS } from '../../core/evaluate/expand.js';
import { MAX_SET_MEMBERS } from '../../core/ask/set-group.js';
import { clusterOf, namespace, networkPolicy, node, pod, verdict, type K8sObject } from '../support/cluster-builders.js';
import { askedOf } from '../support/ask.js';

const front = { podSelector: { matchLabels: { app: 'front' } } };
function objects(): K8sObject[] {
  return [
    node('n1', '172.18.0.2'), namespace('web'), namespace('locked'), namespace('dual'),
    pod('web/front', { ip: '10.244.1.10', node: 'n1', labels: { app: 'front' } }),
    pod('web/front-2', { ip: '10.244.1.11', node: 'n1', labels: { app: 'front' } }),
    pod('web/db', { ip: '10.244.1.20', node: 'n1', labels: { app: 'db' } }),
    pod('web/api', { ip: '10.244.1.30', node: 'n1', labels: { app: 'api' } }),
    pod('locked/a', { ip: '10.244.2.10', node: 'n1', labels: { app: 'a' } }),
    pod('dual/x', { ip: ['10.244.3.10', 'fd00:10::10'], node: 'n1', labels: { app: 'x' } }),
    // HTTPS from anywhere but 203.0.113.0/24.
    networkPolicy('web/front-https', { ...front, policyTypes: ['Ingress'], ingress: [{ from: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['203.0.113.0/24'] } }], ports: [{ protocol: 'TCP', port: 443 }] }] }),
    // Anywhere but the metadata address.
    networkPolicy('web/no-metadata', { ...front, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['169.254.169.254/32'] } }] }] }),
    networkPolicy('web/db-in', { podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Ingress'], ingress: [{ from: [front] }] }),
    networkPolicy('web/db-out', { podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Egress'], egress: [{ ports: [{ protocol: 'TCP', port: 443 }] }] }),
    networkPolicy('locked/deny', { podSelector: {}, policyTypes: ['Ingress'] }),
  ];
}
const cluster = clusterOf(objects());

const asked = askedOf(cluster);

const PHRASES: [string, object][] = [
  ['is anything exposed to the internet in ns web?', { kind: 'exposed', namespace: 'web', port: null, protocol: null }],
  ['What is exposed to the internet in web?', { kind: 'exposed', namespace: 'web' }],
  ['is web exposed to the internet', { kind: 'exposed', namespace: 'web' }],
  ['is there anything exposed to the internet in shop?', { kind: 'exposed', namespace: 'shop' }],
  ['are any pods of namespace web exposed to the internet', { kind: 'exposed', namespace: 'web' }],
  ['which pods are exposed to the internet in namespace web?', { kind: 'exposed', namespace: 'web' }],
  ['is anything in web exposed to the public internet on 443?', { kind: 'exposed', namespace: 'web', port: 443, protocol: null }],
  ['which pods can reach the cloud metadata address?', { kind: 'metadata', port: 80, protocol: 'TCP' }],
  ['who can reach the metadata service', { kind: 'metadata', port: 80, protocol: 'TCP' }],
  ['what can reach the cloud metadata address on any port?', { kind: 'metadata', port: null, protocol: null }],
  ['which pods can reach the instance metadata endpoint on udp', { kind: 'metadata', port: null, protocol: 'UDP' }],
  ['what changed for web/front since version 3?', { kind: 'changed', subject: { pod: 'web/front' }, since: '3' }],
  ['what has changed for web/deploy/api since 17', { kind: 'changed', subject: { pod: 'web/deploy/api' }, since: '17' }],
  ['what changed for web/svc/db since version 2.', { kind: 'changed', subject: { pod: 'web/svc/db' }, since: '2' }],
  // A CIDR, and who/what for a name of several (core/ask/set-group.ts).
  ['can 10.0.0.0/8 reach web/db on 5432?', { kind: 'can', from: { ip: '10.0.0.0/8' }, to: { pod: 'web/db' }, port: 5432 }],
  ['who can reach FD00:10::/64 on udp', { kind: 'who', to: { ip: 'fd00:10::/64' }, port: null, protocol: 'UDP' }],
  ['what can web/app=front reach on 443', { kind: 'what', from: { pod: 'web/app=front' }, port: 443 }],
  ['which pods can reach web/deploy/api', { kind: 'who', to: { pod: 'web/deploy/api' } }],
];
const NONSENSE: [string, RegExp][] = [
  ['is anything exposed to the internet', /which namespace/],
  ['is anything exposed to the internet in web and locked', /^one namespace at a time, not web and locked$/],
  ['is web exposed to the intranet', /exposed to the internet/],
  ['which pods can reach the cloud metadata address on 99999', /outside 1-65535/],
  ['what changed for web/front', /since version N/],
  ['what changed for web/front since', /version after "since"/],
  ['what changed for web/front since version 3 please now', /end of the question/],
  ['who can reach 10.0.0.0/8 and 10.1.0.0/16', /at most a port and a protocol/],
  ['can ../10.0.0.0/8 reach web/db', /expected the source .*a CIDR/],
];

describe('the three questions, as people phrase them', () => {
  it.each(PHRASES)('%s', (question, query) => {
    expect(parseQuestion(question)).toMatchObject(query);
  });
  it.each(NONSENSE)('%s: the accepted forms, never a throw', (question, error) => {
    expect(parseQuestion(question)).toEqual({ error: expect.stringMatching(error), acceptedForms: ACCEPTED_FORMS });
  });
  it('over HTTP, about a snapshot sent along, each is a 200 or a 422, never a 500', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    for (const question of [...PHRASES.map((p) => p[0]), ...NONSENSE.map((p) => p[0]), 'is exposed to the internet in', 'which pods can reach the metadata', 'what changed for since version']) {
      const res = await app.request('/v1/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, snapshot: { kind: 'List', items: objects() } }) });
      expect([200, 422], question).toContain(res.status);
    }
  });
  it('each is an accepted form', () => {
    expect(ACCEPTED_FORMS.filter((f) => /exposed|metadata|changed/.test(f))).toHaveLength(4);
  });
});

describe('is anything exposed to the internet', () => {
  it('evaluates from a public address no ipBlock tells apart from the internet, and names the excepted range', () => {
    const a: ExposedAnswer = asked('is anything exposed to the internet in ns web?', 'exposed');
    // 203.0.113.7 is in the except: the answer is not for it.
    expect(a.representatives).toEqual([{ ip: '198.51.100.7', outside: ['203.0.113.0/24'], inside: [] }]);
    expect(verdict(cluster, '203.0.113.7', 'web/front', 443).allowed).toBe(false);
    expect(a.groups.map((g) => [g.members, g.ports, g.example.chain.length])).toEqual([[['pods app=front in web (2)'], 'TCP 443', 1], [['web/api'], 'all ports', 1]]);
    expect(a.groups[0]!.example.reason).toBe('allowed by NetworkPolicy web/front-https rule 0');
    expect(a.text).toMatch(/^Yes: 3 of 4 pods of namespace web accept traffic from the internet \(evaluated from 198\.51\.100\.7\): pods app=front in web \(2\) \(TCP 443\); web\/api \(all ports\) \(this holds for public addresses outside 203\.0\.113\.0\/24, which policies name\) — but NetworkPolicy sees a client's address only where it is preserved/);
    // The engine, pod by pod, port by port.
    for (const p of cluster.podsByNamespace.get('web')!) {
      for (const port of [80, 443, 5432]) {
        const open = a.groups.some((g) => (g.ports === 'all ports' || g.ports === `TCP ${port}`) && g.members.some((m) => m === p.key || m.includes(`app=${p.labels.app} in web`)));
        expect(verdict(cluster, '198.51.100.7', p.key, port).allowed, `${p.key} ${port}`).toBe(open);
      }
    }
  });

  it('one port; a default-deny namespace; an unknown one', () => {
    expect(asked('is web exposed to the internet on 443', 'exposed').exposed).toBe(3);
    expect(asked('is web exposed to the internet on 80', 'exposed').groups.map((g) => g.members)).toEqual([['web/api']]);
    const locked = asked('what is exposed to the internet in locked', 'exposed');
    expect(locked.text).toMatch(/^No: no pod of namespace locked accepts traffic from the internet \(evaluated from 198\.51\.100\.7; 0 of 1 pods\) \(this holds for public addresses outside 203\.0\.113\.0\/24, which policies name\) — but NetworkPolicy sees/);
    expect(verdict(cluster, '203.0.113.7', 'locked/a', 443).allowed).toBe(false);
    expect(asked('is anything exposed to the internet in ns nope', 'error').text).toMatch(/no namespace "nope"/);
  });

  it('IPv6 pods are asked from a public IPv6 address too', () => {
    const a = asked('is dual exposed to the internet', 'exposed');
    expect(a.representatives.map((r) => r.ip)).toEqual(['198.51.100.7', '2001:db8::7']);
    expect(a.groups.map((g) => g.from)).toEqual(['198.51.100.7', '2001:db8::7']);
  });
});

describe('which pods can reach the cloud metadata address', () => {
  it('TCP 80 by default: the blocked pods and the port-limited one are left out, as the engine says', () => {
    const a: MetadataAnswer = asked('which pods can reach the cloud metadata address?', 'metadata');
    expect(a.addresses).toEqual(['169.254.169.254', 'fd00:ec2::254']);
    expect(a.namespaces.map((n) => [n.namespace, n.members])).toEqual([['dual', ['dual/x']], ['locked', ['locked/a']], ['web', ['web/api']]]);
    for (const p of cluster.pods) expect(a.namespaces.some((n) => n.members.includes(p.key)), p.key).toBe(verdict(cluster, p.key, '169.254.169.254', 80).allowed);
    expect(a.text).toMatch(/^3 of 6 pods can reach the cloud metadata address \(169\.254\.169\.254, fd00:ec2::254\) on TCP 80: dual\/x, locked\/a, web\/api\.$/);
    const blocked = a.classes.find((c) => c.members.includes('pods app=front in web (2)'))!;
    expect(blocked.example).toMatchObject({ allowed: false, reason: expect.stringMatching(/^denied at egress/) });
    expect(a.classes.find((c) => c.family === 'IPv6')!.example).toMatchObject({ to: 'fd00:ec2::254', allowed: true });
  });

  it('on any port: port ranges, the port-limited pod on TCP 443 only', () => {
    const a = asked('which pods can reach the cloud metadata address on any port', 'metadata');
    expect(a.allowed).toBe(4);
    expect(a.classes.find((c) => c.members.includes('web/db'))).toMatchObject({ ports: 'TCP 443', example: { port: 443, allowed: true } });
    expect(verdict(cluster, 'web/db', '169.254.169.254', 443).allowed).toBe(true);
    expect(verdict(cluster, 'web/db', '169.254.169.254', 444).allowed).toBe(false);
  });
});

describe('what changed since a stored version', () => {
  // Version 2 adds one policy: web's front pods may reach locked/a on TCP 8080.
  const v2 = [...objects(), networkPolicy('locked/from-front', { podSelector: { matchLabels: { app: 'a' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'web' } }, ...front }], ports: [{ protocol: 'TCP', port: 8080 }] }] })];
  const setup = async () => {
    const app = createApp({ store: createMemoryStore(), access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => app.request(path, { method, headers: { 'content-type': 'application/json', ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    for (const [rv, items] of [['1', objects()], ['2', v2]] as const) expect((await call('PUT', `/v1/clusters/c/snapshots/${rv}`, { apiVersion: 'v1', kind: 'List', items })).status).toBe(201);
    const get = async (q: string, version = '') => call('GET', `/v1/clusters/c/ask?q=${encodeURIComponent(q)}${version}`);
    return { call, get };
  };

  it('newly allowed and newly denied, both ways, with each version\'s chain, as the engine says', async () => {
    const { get, call } = await setup();
    const a = (await (await get('what changed for locked/a since version 1')).json()) as ChangedAnswer;
    expect(a).toMatchObject({ kind: 'changed', since: '1', version: '2', pods: ['locked/a'], compared: 5 });
    expect(a.changes.map((c) => [c.direction, c.became, c.members, c.ports])).toEqual([['incoming', 'allowed', ['pods app=front in web (2)'], 'TCP 8080']]);
    expect(a.changes[0]!.example.before).toMatchObject({ allowed: false, port: 8080 });
    expect(a.changes[0]!.example.after).toMatchObject({ allowed: true, reason: 'egress allowed by NetworkPolicy web/no-metadata rule 0 and ingress allowed by NetworkPolicy locked/from-front rule 0' });
    expect(a.text).toMatch(/^locked\/a changed between version 1 and version 2 \(to and from 5 other pods, every port\) — newly allowed: from pods app=front in web \(2\) \(TCP 8080\)\.$/);
    // The engine: exactly the front pods, exactly TCP 8080, changed.
    const [c1, c2] = [clusterOf(objects()), clusterOf(v2)];
    for (const p of c2.pods.filter((x) => x.key !== 'locked/a')) {
      for (const port of [443, 8079, 8080, 8081]) {
        const changed = verdict(c1, p.key, 'locked/a', port).allowed !== verdict(c2, p.key, 'locked/a', port).allowed;
        expect(changed, `${p.key} ${port}`).toBe(p.labels.app === 'front' && port === 8080);
      }
    }
    // Backwards: asked about version 1 since version 2, the same flows are newly denied (POST, stored).
    const back = (await (await call('POST', '/v1/ask', { question: 'what changed for web/front since 2', cluster: 'c', version: '1' })).json()) as ChangedAnswer;
    expect(back.changes.map((c) => [c.direction, c.became, c.members, c.ports])).toEqual([['outgoing', 'denied', ['locked/a'], 'TCP 8080']]);
    // As text: the sentence, then the example's chain in each version.
    const text = await (await call('GET', `/v1/clusters/c/ask?q=${encodeURIComponent('what changed for locked/a since version 1')}`, undefined, { accept: 'text/plain' })).text();
    expect(text.split('\n').filter((l) => l.startsWith('  ')).map((l) => /^ {2}version (\d), web\/front → locked\/a on TCP 8080: (egress|ingress) .* ⇒ (allowed|denied)$/.exec(l)?.slice(1).join(' '))).toEqual(['1 egress allowed', '1 ingress denied', '2 egress allowed', '2 ingress allowed']);
    const same = (await (await get('what changed for web/api since version 1')).json()) as ChangedAnswer;
    expect(same.text).toMatch(/^Nothing changed for web\/api between version 1 and version 2: the same verdicts to and from 5 other pods on every port\.$/);
  });

  it('port ranges that became allowed or denied: the difference of the two versions\' ranges', () => {
    expect(subtractRanges([[1, 65535]], [[80, 80], [443, 8080]])).toEqual([[1, 79], [81, 442], [8081, 65535]]);
    expect(subtractRanges([[80, 80], [443, 443]], [[1, 100]])).toEqual([[443, 443]]);
    expect(subtractRanges([[5, 9]], [])).toEqual([[5, 9]]);
  });

  it('an unknown version is a 404 naming the latest; a snapshot sent along cannot answer it; nonsense is a 422', async () => {
    const { get, call } = await setup();
    const missing = await get('what changed for web/front since version 9');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toBe('version 9 of cluster c is not stored (or expired); the latest is version 2');
    const sent = await call('POST', '/v1/ask', { question: 'what changed for web/front since version 1', snapshot: { kind: 'List', items: objects() } });
    expect(sent.status).toBe(422);
    expect(((await sent.json()) as { message: string }).message).toMatch(/compares two stored versions of a cluster/);
    expect((await get('what changed for web/nope since version 1')).status).toBe(422);
    expect((await get('what changed for web/front since')).status).toBe(422);
  });
});

describe('past the limits: a 422 naming the limit and how to narrow the question', () => {
  // 300 pods from 10.1.0.1: 10.1.0.0/24 holds 255 of them (and one more region, 10.1.0.0), /23 all.
  const many = [node('n1', '172.18.0.2'), namespace('big'), ...Array.from({ length: 300 }, (_, i) => pod(`big/p${i}`, { ip: `10.1.${(i + 1) >> 8}.${(i + 1) & 255}`, node: 'n1', labels: { app: 'many' } }))];
  const big = clusterOf(many);
  const LIMITS: [string, RegExp][] = [
    ['can 10.1.0.0/23 reach big/p0 on 80', new RegExp(`^I can't answer that: 10\\.1\\.0\\.0/23 stands for at least 300 address regions that policies or endpoints tell apart; at most ${MAX_CIDR_REGIONS} are answered at once: ask about a smaller CIDR, or name the pods in it \\(namespace/label=value\\)\\.$`)],
    ['who can reach 10.1.0.0/16 on 80', /stands for at least 300 address regions .* at most 256 are answered at once/],
    ['who can reach big/app=many on 80', new RegExp(`big/app=many stands for 300 pods; "who can reach" answers at most ${MAX_SET_MEMBERS} one by one: narrow it`)],
    ['what can big/app=many reach', /big\/app=many stands for 300 pods; "what can … reach" answers at most 256/],
    ['can big/app=many reach 10.1.0.0/24 on 80', new RegExp(`the names stand for 300 × 256 pairs of endpoints; at most ${MAX_MEMBER_FLOWS} are answered at once`)],
  ];

  it.each(LIMITS)('%s', (question, said) => {
    expect(ask(big, question)).toMatchObject({ kind: 'error', text: expect.stringMatching(said) });
  });

  it('regions are counted by the rules that tell addresses apart: 300 rules of a /32 each are too many, one rule of 300 /32s or a /8 less 1,000 excepts are two', () => {
    const rules = (...ingress: object[]) => clusterOf([node('n1', '172.18.0.2'), namespace('big'), pod('big/p0', { ip: '10.1.0.1', node: 'n1' }), networkPolicy('big/np', { podSelector: {}, ingress })]);
    const peers = (from: object[]) => rules({ from });
    const single = (i: number) => ({ ipBlock: { cidr: `10.9.${i >> 8}.${i & 255}/32` } });
    const singles = rules(...Array.from({ length: 300 }, (_, i) => ({ from: [single(i)] })));
    const oneRule = ask(peers(Array.from({ length: 300 }, (_, i) => single(i))), 'can 10.9.0.0/16 reach big/p0 on 80') as Answer & { kind: 'can-group' };
    expect(oneRule.resolved).toEqual(['10.9.0.0/16 → 2 address regions (cut by 300 policy CIDRs)']);
    expect(ask(singles, 'can 10.9.0.0/16 reach big/p0 on 80')).toMatchObject({ kind: 'error', text: expect.stringMatching('10\\.9\\.0\\.0/16 stands for 301 address regions that policies or endpoints tell apart') });
    const except = Array.from({ length: 1000 }, (_, i) => `10.${i >> 8}.${i & 255}.7/32`);
    const excepted = peers([{ ipBlock: { cidr: '10.0.0.0/8', except } }]);
    const a = ask(excepted, 'can 10.0.0.0/8 reach big/p0 on 80') as Answer & { kind: 'can-group' };
    expect(a.kind).toBe('can-group');
    expect(a.resolved).toEqual(['10.0.0.0/8 → 3 address regions (cut by 1000 policy CIDRs and 1 pod address)']);
    expect(a.members.map((m) => [m.from, m.allowed])).toEqual([['10.0.0.0', true], ['10.0.0.7', false], ['10.1.0.1', true]]);
  });

  it(`at the limit, ${MAX_CIDR_REGIONS} regions, it answers`, () => {
    const a = ask(big, 'can 10.1.0.0/24 reach big/p0 on 80') as Answer & { kind: 'can-group' };
    expect(a.kind).toBe('can-group');
    expect(a.members.length + a.moreMembers).toBe(MAX_CIDR_REGIONS);
    expect(a.resolved).toEqual(['10.1.0.0/24 → 256 address regions (cut by 255 pod addresses)']);
  });

  it('over HTTP each is a 422 with the message, never a 500; the verdicts route too', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    for (const [question, said] of LIMITS) {
      const res = await app.request('/v1/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, snapshot: { kind: 'List', items: many } }) });
      expect(res.status, question).toBe(422);
      expect(((await res.json()) as { message: string }).message).toMatch(said);
    }
    const res = await app.request('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ snapshot: { kind: 'List', items: many }, flows: [{ from: '10.1.0.0/23', to: 'big/p0', port: 80 }] }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { issues: unknown }).issues).toEqual([{ path: '$.flows[0].from', message: expect.stringContaining(`at most ${MAX_CIDR_REGIONS} are answered at once`) }]);
  });
});
