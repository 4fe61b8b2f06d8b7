// A CIDR as a name, on a cluster whose policies of every tier name CIDRs: a NetworkPolicy
// ipBlock with an except (IPv4 and IPv6), an AdminNetworkPolicy, a BaselineAdminNetworkPolicy
// and a Baseline-tier ClusterNetworkPolicy with `networks`. Each region the answer lists is held
// against the verdict engine at the first and last address of each of its CIDRs; the verdicts
// route and the CLI answer the same regions.
import { describe, expect, it } from 'vitest';
// First: the app module loads @hono/zod-openapi, which must extend zod before any schema is built.
import { createApp } from '../../functions/app.js';
import { ask, type Answer, type GroupAnswer } from '../../core/ask/answer.js';
import { isParseFailure } from '../../core/ask/parse.js';
import type { AddressRegion } from '../../core/evaluate/cidr.js';
import { verdictFor, type GroupVerdict } from '../../core/evaluate/verdicts.js';
import { formatIp, parseCidr } from '../../core/net/ip.js';
import { adminNetworkPolicy, clusterNetworkPolicy, clusterOf, namespace, networkPolicy, node, pod, verdict, type K8sObject } from '../support/cluster-builders.js';

const all = { namespaces: {} };
const objects: K8sObject[] = [
  node('n1', '172.18.0.2', 'fc00::2'),
  namespace('app'),
  pod('app/api', { ip: ['10.1.0.10', 'fd00:1::10'], node: 'n1', labels: { app: 'api' } }),
  pod('app/worker', { ip: ['10.1.0.20', 'fd00:1::20'], node: 'n1', labels: { app: 'worker' } }),
  // HTTPS to api from 192.0.2.0/24 but its upper half, and from fd00:9::/64.
  networkPolicy('app/api-in', { podSelector: { matchLabels: { app: 'api' } }, policyTypes: ['Ingress'], ingress: [{ from: [{ ipBlock: { cidr: '192.0.2.0/24', except: ['192.0.2.128/25'] } }, { ipBlock: { cidr: 'fd00:9::/64' } }], ports: [{ port: 443 }] }] }),
  // Egress of every pod: denied to 198.51.100.0/26 (Admin), .96/27 (BANP), .128/25 (CNP Baseline).
  adminNetworkPolicy('deny-low', 10, { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['198.51.100.0/26'] }] }] }),
  { apiVersion: 'policy.networking.k8s.io/v1alpha1', kind: 'BaselineAdminNetworkPolicy', metadata: { name: 'default' }, spec: { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['198.51.100.96/27'] }] }] } },
  clusterNetworkPolicy('deny-high', 'Baseline', 10, { subject: all, egress: [{ action: 'Deny', to: [{ networks: ['198.51.100.128/25'] }] }] }),
];
const cluster = clusterOf(objects);

function answered<K extends Answer['kind']>(question: string, kind: K): Answer & { kind: K } {
  const a = ask(cluster, question);
  if (isParseFailure(a)) throw new Error(`unparsed: ${a.error}`);
  expect(a.kind, a.text).toBe(kind);
  return a as Answer & { kind: K };
}

/** The first and last address of each of the region's CIDRs. */
const addressesOf = (r: AddressRegion) => r.cidrs.flatMap((c) => {
  const range = parseCidr(c)!;
  return [formatIp(range.family, range.lo), formatIp(range.family, range.hi)];
});

/** Every member's outcome against the engine at every address its region stands for. */
function expectRegions(g: GroupAnswer, side: 'from' | 'to', other: string, port: number) {
  for (const m of g.members) {
    const region = m.regions![side]!;
    for (const address of addressesOf(region)) {
      const [from, to] = side === 'from' ? [address, other] : [other, address];
      expect(verdict(cluster, from, to, port).allowed, `${region.name} at ${address}`).toBe(m.allowed);
    }
  }
}

describe('a CIDR is answered region by region, cut by every tier', () => {
  it('an ipBlock except cuts a source range: the allowed half and the excepted one', () => {
    const g = answered('can 192.0.2.0/24 reach app/api on 443', 'can-group');
    expect(g.text).toMatch(/^Partly: 192\.0\.2\.0\/24 can reach app\/api on TCP 443 \(192\.0\.2\.0\/24 → 2 address regions \(cut by 1 policy CIDR\)\) — 1 of 2 regions: allowed by NetworkPolicy app\/api-in rule 0: 192\.0\.2\.0\/25; denied at ingress: isolated for ingress by api-in; no rule allows this flow: 192\.0\.2\.128\/25\.$/);
    expect(g.members.map((m) => [m.from, m.regions!.from!.cidrs, m.allowed])).toEqual([['192.0.2.0', ['192.0.2.0/25'], true], ['192.0.2.128', ['192.0.2.128/25'], false]]);
    expectRegions(g, 'from', 'app/api', 443);
  });

  it('ANP, BANP and ClusterNetworkPolicy networks cut a destination range', () => {
    const g = answered('can app/worker reach 198.51.100.0/24 on 80', 'can-group');
    expect(g.resolved).toEqual(['198.51.100.0/24 → 4 address regions (cut by 3 policy CIDRs)']);
    expect(g.members.map((m) => [m.regions!.to!.name, m.allowed])).toEqual([['198.51.100.0/26', false], ['198.51.100.64/27', true], ['198.51.100.96/27', false], ['198.51.100.128/25', false]]);
    expect(g.groups.map((x) => x.reason)).toEqual([
      'allowed by default: no policy decides',
      'denied at egress by AdminNetworkPolicy deny-low rule 0',
      'denied at egress by BaselineAdminNetworkPolicy default rule 0',
      'denied at egress by ClusterNetworkPolicy deny-high rule 0',
    ]);
    expectRegions(g, 'to', 'app/worker', 80);
  });

  it('IPv6: a /63 half inside the ipBlock; the pods\' and the node\'s addresses are their endpoints', () => {
    const g = answered('can fd00:9::/63 reach app/api on 443', 'can-group');
    expect(g.members.map((m) => [m.regions!.from!.name, m.allowed])).toEqual([['fd00:9::/64', true], ['fd00:9:0:1::/64', false]]);
    expectRegions(g, 'from', 'app/api', 443);
    const held = answered('can app/worker reach fd00:1::/120 on 80', 'can-group');
    expect(held.members.map((m) => [m.regions!.to!.name, m.to, m.allowed, m.reason])).toEqual([
      ['fd00:1::/124 + fd00:1::11/128 + 10 more CIDRs', 'fd00:1::', true, 'allowed by default: no policy decides'],
      ['fd00:1::10 (pod app/api)', 'fd00:1::10', false, 'denied at ingress: isolated for ingress by api-in; no rule allows this flow'],
      ['fd00:1::20 (pod app/worker)', 'fd00:1::20', true, 'a pod can always reach itself'],
    ]);
    expectRegions(held, 'to', 'app/worker', 80);
    const nodes = answered('can fc00::/120 reach app/api on 443', 'can-group');
    expect(nodes.members.map((m) => [m.regions!.from!.name, m.reason])).toEqual([
      ['fc00::/127 + fc00::3/128 + 6 more CIDRs', 'denied at ingress: isolated for ingress by api-in; no rule allows this flow'],
      ['fc00::2 (node n1)', "traffic from the pod's own node is always allowed"],
    ]);
    expectRegions(nodes, 'from', 'app/api', 443);
  });

  it('what a range can reach, and who can reach one: per region, what all share', () => {
    const what = answered('what can 198.51.100.0/24 reach on 443', 'what-group');
    expect(what.text).toBe('Each of the 4 regions of 198.51.100.0/24 can reach 1 pod on TCP 443 (198.51.100.0/24 → 4 address regions (cut by 3 policy CIDRs)): app/worker — the same for each.');
    const who = answered('who can reach 198.51.100.0/24 on 80', 'who-group');
    expect(who.members.map((m) => [m.member, m.reachable])).toEqual([['198.51.100.0/26', 0], ['198.51.100.64/27', 2], ['198.51.100.96/27', 0], ['198.51.100.128/25', 0]]);
    expect(who.commonPods).toBe(0);
    for (const m of who.members) {
      const at = m.region!.address;
      expect(m.reachable, m.member).toBe(['app/api', 'app/worker'].filter((p) => verdict(cluster, p, at, 80).allowed).length);
    }
  });
});

describe('a range full of Services', () => {
  // Six Services on port 80 in 10.96.0.0/28, all selecting api: asked on another port, each says why it has no member.
  const services = Array.from({ length: 6 }, (_, i): K8sObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: `s${i}`, namespace: 'app' }, spec: { selector: { app: 'api' }, clusterIP: `10.96.0.${i + 1}`, ports: [{ port: 80 }] } }));
  const withServices = clusterOf([...objects, ...services]);

  it('the sentence carries the first notes and how many more; the JSON all of them', () => {
    const a = ask(withServices, 'can app/worker reach 10.96.0.0/28 on 9999') as GroupAnswer;
    expect(a.kind).toBe('can-group');
    expect(a.notes).toHaveLength(6);
    expect(a.notes[0]).toBe('app/svc/s0 has no TCP port 9999; its ports: 80/TCP');
    expect(a.text).toMatch(/\(app\/svc\/s0 has no TCP port 9999; its ports: 80\/TCP; .*; app\/svc\/s3 has no TCP port 9999; its ports: 80\/TCP; and 2 more\)\.$/);
    // On their port: each ClusterIP is its Service's backing pod.
    const on80 = ask(withServices, 'can app/worker reach 10.96.0.0/28 on 80') as GroupAnswer;
    expect(on80.members.filter((m) => m.regions?.to?.via).map((m) => [m.regions!.to!.via, m.to])).toEqual(services.map((x) => [`app/svc/${x.metadata.name}`, 'app/api']));
  });
});

describe('the verdicts route and the CLI answer the same regions', () => {
  it('POST /v1/verdicts: each region a member, with its CIDRs; a wrong CIDR is a 422 on the flow', async () => {
    const app = createApp({ access: { kind: 'anonymous' }, logError: (e) => { throw e; } });
    const post = (flows: unknown[]) => app.request('/v1/verdicts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ snapshot: { kind: 'List', items: objects }, flows }) });
    const ok = (await (await post([{ from: '192.0.2.0/24', to: 'app/api', port: 443 }, { from: 'app/worker', to: { ip: '198.51.100.0/24' }, port: 80 }])).json()) as { verdicts: GroupVerdict[] };
    expect(ok.verdicts.map((v) => [v.allowed, v.summary])).toEqual([[false, '1 of 2 allowed'], [false, '1 of 4 allowed']]);
    expect(ok.verdicts[0]!.members.map((m) => [m.flow.from, m.regions!.from!.cidrs, m.allowed])).toEqual([['192.0.2.0', ['192.0.2.0/25'], true], ['192.0.2.128', ['192.0.2.128/25'], false]]);
    const group = ask(cluster, 'can app/worker reach 198.51.100.0/24 on 80') as GroupAnswer;
    expect(ok.verdicts[1]!.members.map((m) => m.allowed)).toEqual(group.members.map((m) => m.allowed));
    const bad = await post([{ from: '192.0.2.0/33', to: 'app/api', port: 443 }, { from: 'app/api', to: { ip: '192.0.2.7/24' }, port: 443 }]);
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { issues: unknown }).issues).toEqual([
      { path: '$.flows[0].from', message: '"192.0.2.0/33" is not a CIDR: an IPv4 prefix length is at most 32, not 33' },
      { path: '$.flows[1].to', message: '"192.0.2.7/24" has bits set past its /24 prefix: ask about 192.0.2.0/24 for the range, or about 192.0.2.7 for the one address' },
    ]);
  });

  it('verdictFor and ask agree on every region, IPv6 too', () => {
    for (const [from, to, port] of [['192.0.2.0/24', 'app/api', 443], ['fd00:9::/63', 'app/api', 443], ['app/worker', '198.51.100.0/24', 80]] as const) {
      const v = verdictFor(cluster, { from: from.includes('/') && !from.startsWith('app') ? { ip: from } : { pod: from }, to: { pod: to }, port, protocol: 'TCP' }) as GroupVerdict;
      const g = ask(cluster, `can ${from} reach ${to} on ${port}`) as GroupAnswer;
      expect(v.members.map((m) => m.allowed), `${from} → ${to}`).toEqual(g.members.map((m) => m.allowed));
    }
  });
});
