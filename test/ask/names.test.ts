// Names as people write them, table-tested on examples/services.yaml (a Deployment mid-rollout,
// a StatefulSet behind a Service, a NodePort, selector-less and ExternalName Services): every
// name form through the question grammar to its answer, the ambiguous and misspelt ones, and
// nonsense, which comes back as the accepted forms (never a throw; the HTTP route never a 500).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.js';
import { ask } from '../../core/ask/answer.js';
import { ACCEPTED_FORMS, isParseFailure, parseQuestion } from '../../core/ask/parse.js';
import { run } from '../support/cli.js';
import { clusterOf, loadYaml } from '../support/cluster-builders.js';

const FILE = join(import.meta.dirname, '..', '..', 'examples', 'services.yaml');
const objects = (loadYaml(FILE)[0] as unknown as { items: unknown[] }).items;
const cluster = clusterOf(objects);

const WEB_OLD = 'shop/web-7d9f8c6b5-x2k4p';

/** [question, the endpoint text the grammar reads for the destination, answer kind, text]. */
const FORMS: [string, string, string, RegExp][] = [
  // A pod, by namespace/name and by kubectl's pod/NAME.
  ['can shop/web-debug reach shop/db-0 on 5432?', 'shop/db-0', 'can', /^No: shop\/web-debug cannot reach shop\/db-0 on TCP 5432 — denied at ingress/],
  [`can ${WEB_OLD} reach shop/pod/db-0 on 5432?`, 'shop/pod/db-0', 'can', /^Yes: .* can reach shop\/db-0 on TCP 5432 — allowed by NetworkPolicy shop\/db-from-web rule 0/],
  // Workloads, with kubectl's names and short names: each of their pods.
  ['can shop/deployment/web reach shop/db-0 on 5432', 'shop/db-0', 'can-group', /^Yes: shop\/deployment\/web can reach shop\/db-0 on TCP 5432 \(shop\/deployment\/web → 2 pods \(Deployment web\)\) — all 2 pods: allowed by NetworkPolicy shop\/db-from-web rule 0/],
  ['can shop/web-debug reach shop/deploy/web on http', 'shop/deploy/web', 'can-group', /^Partly: .* — 1 of 2 pods: allowed by NetworkPolicy shop\/web-from-anywhere rule 0: shop\/web-7d9f8c6b5-x2k4p \(TCP 8080 \(http\)\); denied at ingress: .*: shop\/web-5c4d7f9b8-q7wzt \(TCP 8081 \(http\)\)/],
  ['can shop/web-debug reach shop/sts/db on 5432', 'shop/sts/db', 'can-group', /^No: .* \(shop\/statefulset\/db → 2 pods \(StatefulSet db\)\) — none of 2 pods: denied at ingress: isolated for ingress by db-from-web; no rule allows this flow: shop\/db-0, shop\/db-1/],
  ['can shop/deployments.apps/web reach shop/statefulset/db on 5432', 'shop/statefulset/db', 'can-group', /^Yes: .* — all 4 pod pairs: /],
  // Services: svc/service, a bare name that only a Service has, its ClusterIP, a node address on its NodePort.
  ['can shop/deploy/web reach shop/svc/db on 5432', 'shop/svc/db', 'can-group', /\(.*shop\/svc\/db → 2 backing pods \(selector app=db\), port 5432 → targetPort postgres \(5432\)\) — all 4 pod pairs/],
  ['can shop/deploy/web reach shop/service/db on postgres', 'shop/service/db', 'can-group', /port 5432 → targetPort postgres \(5432\)\) — all 4 pod pairs/],
  // Every port of a Service: each of its ports, each pod on its targetPort, denials named as such.
  ['can shop/web-debug reach shop/svc/web', 'shop/svc/web', 'can-group', /— 1 of 2 pods: allowed by .*: shop\/web-7d9f8c6b5-x2k4p \(TCP 8080\); denied at ingress: .*: shop\/web-5c4d7f9b8-q7wzt \(TCP 8081\)/],
  ['can shop/web-debug reach shop/cache on 6379', 'shop/cache', 'no-verdict', /shop\/svc\/cache has no ready backend pods \(selector app=cache matches no pod in namespace shop\)/],
  ['can shop/web-debug reach 10.96.0.20 on 5432', '10.96.0.20', 'can-group', /^No: shop\/web-debug cannot reach 10\.96\.0\.20 \(the ClusterIP of shop\/svc\/db\) on TCP 5432 \(shop\/svc\/db → 2 backing pods/],
  ['can 203.0.113.7 reach 172.18.0.2 on 30080', '172.18.0.2', 'can-group', /^Partly: 203\.0\.113\.7 can reach 172\.18\.0\.2 \(a node address, NodePort 30080 of shop\/svc\/web\) on TCP 30080 \(shop\/svc\/web → 3 backing pods \(selector app=web\), NodePort 30080 \(port 80\) → targetPort http/],
  // Label selectors: one label, several, a prefixed key, upper case kept.
  ['can monitoring/prometheus-0 reach shop/app=db on 5432', 'shop/app=db', 'can-group', /\(shop\/app=db → 2 pods \(selector app=db\)\) — none of 2 pods/],
  ['can shop/app=web,tier=front reach shop/db-1 on 5432', 'shop/db-1', 'can-group', /^Yes: shop\/app=web,tier=front can reach shop\/db-1 .* all 2 pods/],
  ['can shop/web-debug reach shop/statefulset.kubernetes.io/pod-name=db-0 on 5432', 'shop/statefulset.kubernetes.io/pod-name=db-0', 'can-group', /its one pod: denied at ingress/],
  // Nodes by name, and addresses (a pod's, an outside one).
  ['can node-1 reach shop/db-0 on 5432', 'shop/db-0', 'can', /^Yes: node node-1 can reach shop\/db-0 on TCP 5432 — traffic from the pod's own node is always allowed/],
  ['can node-2 reach shop/db-0 on 5432', 'shop/db-0', 'can', /^No: node node-2 cannot reach shop\/db-0/],
  ['can shop/web-debug reach 10.244.1.20 on 5432', '10.244.1.20', 'can', /^No: shop\/web-debug cannot reach 10\.244\.1\.20 \(pod shop\/db-0\)/],
  ['can shop/db-0 reach 8.8.8.8 on 53 udp', '8.8.8.8', 'can', /^Yes: shop\/db-0 can reach 8\.8\.8\.8 on UDP 53/],
  // Ambiguous bare names: which kinds, and how to pick one.
  // A workload and a Service of one name that pick the same pods are one set of endpoints: the
  // Service on one of its ports, else the workload; picking different pods, still ambiguous.
  ['can shop/web-debug reach shop/db on 5432', 'shop/db', 'can-group', /^No: shop\/web-debug cannot reach shop\/svc\/db on TCP 5432 \(shop\/svc\/db → 2 backing pods \(selector app=db\), port 5432 → targetPort postgres \(5432\)\)/],
  ['can shop/web-debug reach shop/db on 9187', 'shop/db', 'can-group', /^No: shop\/web-debug cannot reach shop\/statefulset\/db on TCP 9187 \(shop\/statefulset\/db → 2 pods \(StatefulSet db\)\)/],
  ['can shop/web reach shop/db-0 on 5432', 'shop/db-0', 'error', /"shop\/web" is ambiguous: it could be the Deployment web or the Service web; name one as shop\/deployment\/web or shop\/svc\/web/],
  // Close misses: did you mean.
  ['can shop/web-debug reach shop/svc/dbb on 5432', 'shop/svc/dbb', 'error', /no Service "shop\/dbb" in the snapshot; did you mean shop\/svc\/db or shop\/svc\/web\?$/],
  ['can shop/web-debug reach shop/db-3 on 5432', 'shop/db-3', 'error', /no pod "shop\/db-3" .*did you mean shop\/db-0, shop\/db-1 or shop\/statefulset\/db\?$/],
  ['can shop/web-debug reach shp/db-0 on 5432', 'shp/db-0', 'error', /there is no namespace "shp"; did you mean shop\/db-0\?$/],
  ['can shop/web-debug reach shop/deploy/wbe on 80', 'shop/deploy/wbe', 'error', /no workload "shop\/deploy\/wbe" .*did you mean shop\/deployment\/web or shop\/statefulset\/db\?$/],
  ['can node1 reach shop/db-0 on 5432', 'shop/db-0', 'error', /no pod or node "node1" .*did you mean node-1 or node-2\?$/],
  ['can shop/web-debug reach shop/app=dbx on 5432', 'shop/app=dbx', 'error', /no pod in namespace shop has app=dbx; did you mean shop\/app=db\?$/],
  // A Service as a source.
  ['can shop/svc/db reach shop/db-0 on 5432', 'shop/db-0', 'error', /shop\/svc\/db is a Service, and a Service sends nothing: its pods do; name them as shop\/app=db/],
  // CIDRs: a region per pod or node address in it and one for the rest (no ipBlock here cuts one).
  ['can 10.244.2.0/24 reach shop/db-0 on 5432', 'shop/db-0', 'can-group', /^Partly: 10\.244\.2\.0\/24 can reach shop\/db-0 on TCP 5432 \(10\.244\.2\.0\/24 → 4 address regions \(cut by 3 pod addresses\)\) — 1 of 4 regions: allowed by NetworkPolicy shop\/db-from-web rule 0: 10\.244\.2\.10 \(pod shop\/web-5c4d7f9b8-q7wzt\); denied at ingress: isolated for ingress by db-from-web; no rule allows this flow: 10\.244\.2\.0\/29 \+ 10\.244\.2\.8\/31 \+ 14 more CIDRs, 10\.244\.2\.20 \(pod shop\/db-1\), 10\.244\.2\.99 \(pod shop\/web-debug\)/],
  ['can 172.18.0.0/24 reach shop/db-0 on 5432', 'shop/db-0', 'can-group', /\(172\.18\.0\.0\/24 → 3 address regions \(cut by 2 node addresses\)\) — 1 of 3 regions: traffic from the pod's own node is always allowed: 172\.18\.0\.2 \(node node-1\); denied at ingress: .*: 172\.18\.0\.0\/31 \+ 172\.18\.0\.4\/30 \+ 5 more CIDRs, 172\.18\.0\.3 \(node node-2\)/],
  // A ClusterIP in it is its Service, as alone: the backing pods, or what it cannot answer, said.
  ['can shop/web-debug reach 10.96.0.0/24 on 5432', '10.96.0.0/24', 'can-group', /\(10\.96\.0\.0\/24 → 5 address regions \(cut by 4 ClusterIPs\); shop\/svc\/db → 2 backing pods .*\) — 1 of 3 endpoints: allowed by default: no policy decides: 10\.96\.0\.0\/28 \+ 10\.96\.0\.16\/30 \+ 15 more CIDRs; denied at ingress: .*: 10\.96\.0\.20 \(the ClusterIP of shop\/svc\/db\) → shop\/db-0, 10\.96\.0\.20 \(the ClusterIP of shop\/svc\/db\) → shop\/db-1 \(shop\/svc\/web has no TCP port 5432; .*; shop\/svc\/billing is selector-less: .*; shop\/svc\/cache has no TCP port 5432/],
  ['can 10.96.0.0/24 reach shop/db-0 on 5432', 'shop/db-0', 'can-group', /^No: 10\.96\.0\.0\/24 cannot reach shop\/db-0 .* — its one region: denied at ingress: .*: 10\.96\.0\.0\/28 \+ 10\.96\.0\.16\/30 \+ 15 more CIDRs \(4 ClusterIPs in 10\.96\.0\.0\/24 left out \(10\.96\.0\.20 \(the ClusterIP of shop\/svc\/db\), .*, …\): a Service sends nothing, its pods do\)/],
  // Node addresses in it on a NodePort: the Service, read once.
  ['can 203.0.113.7 reach 172.18.0.0/30 on 30080', '172.18.0.0/30', 'can-group', /^Partly: .* \(172\.18\.0\.0\/30 → 3 address regions \(cut by 2 node addresses\); shop\/svc\/web → 3 backing pods \(selector app=web\), NodePort 30080 \(port 80\) → targetPort http [^;]*\) — 3 of 5 endpoints: allowed by NetworkPolicy shop\/web-from-anywhere rule 0: 172\.18\.0\.2 \(node node-1\) → shop\/web-7d9f8c6b5-x2k4p \(TCP 8080\), 172\.18\.0\.3 \(node node-2\) → shop\/web-7d9f8c6b5-x2k4p \(TCP 8080\); allowed by default: no policy decides: 172\.18\.0\.0\/31 \(TCP 30080\)/],
  // A /32 is its one address; no shared family, nothing to answer.
  ['can shop/web-debug reach 10.244.1.20/32 on 5432', '10.244.1.20/32', 'can', /^No: shop\/web-debug cannot reach 10\.244\.1\.20 \(pod shop\/db-0\) on TCP 5432/],
  ['can shop/db-0 reach 2001:db8::/32 on 443', '2001:db8::/32', 'error', /source and destination share no IP family/],
  // CIDRs written wrong: what is wrong.
  ['can 10.0.0.0/33 reach shop/db-0 on 5432', 'shop/db-0', 'error', /"10\.0\.0\.0\/33" is not a CIDR: an IPv4 prefix length is at most 32, not 33/],
  ['can shop/db-0 reach fd00::/129 on 443', 'fd00::/129', 'error', /"fd00::\/129" is not a CIDR: an IPv6 prefix length is at most 128, not 129/],
  ['can 10.0.0.300/24 reach shop/db-0 on 5432', 'shop/db-0', 'error', /"10\.0\.0\.300\/24" is not a CIDR: 10\.0\.0\.300 is not an IPv4 or IPv6 address/],
  ['can 10.0.0.0/ reach shop/db-0 on 5432', 'shop/db-0', 'error', /"10\.0\.0\.0\/" is not a CIDR: no prefix length after the slash/],
  ['can 10.0.0.0/24/25 reach shop/db-0 on 5432', 'shop/db-0', 'error', /the prefix length "24\/25" is not a number/],
  ['can 10.0.0.7/24 reach shop/db-0 on 5432', 'shop/db-0', 'error', /"10\.0\.0\.7\/24" has bits set past its \/24 prefix: ask about 10\.0\.0\.0\/24 for the range, or about 10\.0\.0\.7 for the one address/],
  // Who and what for a name of several: what all share, and what differs member by member.
  ['who can reach shop/svc/db on 5432', 'shop/svc/db', 'who-group', /^2 pods can reach each of the 2 pods of shop\/svc\/db on TCP 5432 \(shop\/svc\/db → 2 backing pods \(selector app=db\), port 5432 → targetPort postgres \(5432\)\): pods tier=front in shop \(2\) — the same for each/],
  ['who can reach shop/app=db', 'shop/app=db', 'who-group', /^2 pods can reach each of the 2 pods of shop\/app=db \(shop\/app=db → 2 pods \(selector app=db\)\): pods tier=front in shop \(2\) \(TCP 5432\) — the same for each/],
  ['what can shop/deploy/web reach on 5432', 'shop/deploy/web', 'what-group', /^Each of the 2 pods of shop\/deployment\/web can reach 3 pods on TCP 5432 \(shop\/deployment\/web → 2 pods \(Deployment web\)\): monitoring\/prometheus-0, pods app=db in shop \(2\) — the same for each/],
  ['what can shop/app=web reach', 'shop/app=web', 'what-group', /^Each of the 3 pods of shop\/app=web can reach 4 pods \(.*\): pods app=web in shop \(3\) \(TCP 8080\), monitoring\/prometheus-0 \(all ports\); besides, shop\/web-5c4d7f9b8-q7wzt also reaches pods app=db in shop \(2\) \(TCP 5432\); shop\/web-7d9f8c6b5-x2k4p also reaches pods app=db in shop \(2\) \(TCP 5432\)/],
  ['who can reach shop/svc/web', 'shop/svc/web', 'who-group', /besides, shop\/web-7d9f8c6b5-x2k4p \(TCP 8080\) also from monitoring\/prometheus-0, pods app=db in shop \(2\), shop\/web-debug \(TCP 8080\) \(shop\/web-debug has no TCP port named http/],
  ['who can reach 10.244.1.0/24 on 5432', '10.244.1.0/24', 'who-group', /^1 pod can reach each of the 4 regions of 10\.244\.1\.0\/24 on TCP 5432 \(.*\): shop\/web-7d9f8c6b5-x2k4p; besides, 10\.244\.1\.0\/29 \+ 10\.244\.1\.8\/31 \+ 11 more CIDRs also from .*; 10\.244\.1\.20 \(pod shop\/db-0\) also from shop\/web-5c4d7f9b8-q7wzt; 10\.244\.1\.30 \(pod monitoring\/prometheus-0\) also from/],
  ['what can 10.244.2.0/24 reach on 8080', '10.244.2.0/24', 'what-group', /^Each of the 4 regions of 10\.244\.2\.0\/24 can reach 4 pods on TCP 8080 .*: monitoring\/prometheus-0, pods app=web in shop \(3\) — the same for each/],
  ['who can reach shop/app=db on http', 'shop/app=db', 'error', /shop\/db-0 has no port named "http"/],
];

describe('every name form, through the grammar to its answer', () => {
  it.each(FORMS)('%s', (question, to, kind, text) => {
    const q = parseQuestion(question);
    if (isParseFailure(q)) throw new Error(q.error);
    expect(q.kind === 'who' || q.kind === 'can' ? q.to : q.kind === 'what' ? q.from : null).toEqual(/^[\da-f.:]+(\/\S*)?$/.test(to) ? { ip: to } : { pod: to });
    const a = ask(cluster, question);
    if (isParseFailure(a)) throw new Error(a.error);
    expect(a.kind, a.text).toBe(kind);
    expect(a.text).toMatch(text);
    // The snapshot has a CiliumNetworkPolicy: every verdict says it was not evaluated.
    if (kind === 'can' || kind.endsWith('-group')) expect(a.text).toMatch(/ — but 1 CiliumNetworkPolicy was not evaluated and may (deny|allow|change) it\.$/);
  });
});

const NONSENSE: [string, RegExp][] = [
  ['can ../../10.0.0.0/24 reach shop/db-0 on 5432', /source/],
  ['can shop/svc/ reach shop/db-0', /source/],
  ['can shop/a=b=c reach shop/db-0', /source/],
  ['can shop/frob/db reach shop/db-0', /source/],
  ['can /db reach shop/db-0', /source/],
  ['can shop/deploy/web/x reach shop/db-0', /source/],
  ['can shop/app= reach shop/db-0', /at most a port|source|destination/],
];

describe('nonsense names come back as the accepted forms', () => {
  it.each(NONSENSE)('%s', (question, reason) => {
    const got = parseQuestion(question);
    if (!isParseFailure(got)) {
      // Read as a name: then the answer says what is wrong with it, never a throw.
      const a = ask(cluster, question);
      expect(isParseFailure(a) || a.kind === 'error', JSON.stringify(a)).toBe(true);
      return;
    }
    expect(got).toEqual({ error: expect.stringMatching(reason), acceptedForms: ACCEPTED_FORMS });
  });

  it('over HTTP every question of both tables is a 200 or a 422, never a 500', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    for (const question of [...FORMS.map((f) => f[0]), ...NONSENSE.map((f) => f[0]), 'can shop/=== reach ,,, on ,', 'can shop/app=web,,tier=front reach shop/db-0']) {
      const res = await app.request('/v1/ask', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, snapshot: { kind: 'List', items: objects } }) });
      expect([200, 422], question).toContain(res.status);
    }
  });
});

describe('the verdict endpoint and the CLI read the same names', () => {
  it('POST /v1/verdicts: a Service, a selector and a node name; unknown and ambiguous names are 422s on the flow', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const post = (flows: unknown[]) => app.request('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ snapshot: { kind: 'List', items: objects }, flows }) });
    const ok = (await (await post([
      { from: 'shop/deploy/web', to: 'shop/svc/db', port: 5432 },
      { from: 'node-2', to: 'shop/app=web', port: 'http' },
      { from: 'shop/web-debug', to: { ip: '10.96.0.20' }, port: 5432 },
    ])).json()) as any;
    expect(ok.verdicts.map((v: any) => [v.allowed, v.summary, v.members.length])).toEqual([[true, 'all 4 allowed', 4], [true, 'all 2 allowed', 2], [false, 'none of 2 allowed', 2]]);
    expect(ok.verdicts[0].resolved).toEqual(['shop/deployment/web → 2 pods (Deployment web)', 'shop/svc/db → 2 backing pods (selector app=db), port 5432 → targetPort postgres (5432)']);
    expect(ok.verdicts[1].notes).toEqual(['pod shop/web-debug has no TCP port named "http"']);
    const bad = await post([{ from: 'shop/web', to: 'shop/db-0', port: 5432 }, { from: 'shop/web-debug', to: 'shop/svc/billing', port: 443 }]);
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).issues).toEqual([
      { path: '$.flows[0].from', message: expect.stringContaining('ambiguous') },
      { path: '$.flows[1].to', message: expect.stringContaining('selector-less') },
    ]);
  });

  it('netpolc verdict: a group prints its summary, how the names were read, and each member', () => {
    const r = run(['verdict', '--from', 'shop/web-debug', '--to', 'shop/svc/web', '--port', '80', 'examples/services.yaml']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.split('\n').slice(0, 3)).toEqual([
      'shop/web-debug → shop/svc/web 80/TCP: DENIED (1 of 2 allowed)',
      '  shop/svc/web → 3 backing pods (selector app=web), port 80 → targetPort http (8081 on shop/web-5c4d7f9b8-q7wzt, 8080 on shop/web-7d9f8c6b5-x2k4p)',
      '  shop/web-debug has no TCP port named http, so it is not a backend for port 80',
    ]);
    expect(r.out).toContain('  shop/web-debug → shop/web-7d9f8c6b5-x2k4p 8080/TCP: ALLOWED');
  });
});
