// A CIDR's regions are ones every policy treats alike. On random snapshots (ipBlocks with
// excepts and ANP/BANP/ClusterNetworkPolicy `networks` around the pod and node addresses, one
// more ipBlock whose excepts nothing else names, host-network pods, a Service whose ClusterIP
// 10.0.3.7 sits in some of the asked ranges), "can X reach <CIDR>" and "can <CIDR> reach X", on
// one port or every port, against every pod and one outside address, answer each region by one
// address of it, and:
//   - the regions cover the CIDR exactly, once;
//   - each region's members are what the question about its address alone answers, with the
//     same reason (a pod, a node, an outside address, a ClusterIP's backing pods, or an error
//     that leaves it out);
//   - every other address of an outside region — the ends of some of its CIDRs, one drawn at
//     random, and each edge of every policy CIDR inside it (read from the objects) — gets the
//     region's answer when asked about alone;
//   - each pod, node and ClusterIP address in the CIDR is a region of its own;
//   - POST /v1/verdicts (verdictFor) answers each member as the question does.
// Removing a cut (the excepts, a tier's networks, the pod or node addresses) fails it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answer, type Answer, type GroupAnswer, type MemberAnswer } from '../../core/ask/answer.js';
import { reasonOf } from '../../core/evaluate/explain.js';
import { addressRegions, type AddressRegion } from '../../core/evaluate/cidr.js';
import { FlowError, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { verdictFor, type GroupVerdict } from '../../core/evaluate/verdicts.js';
import { formatIp, parseCidr, parseIp } from '../../core/net/ip.js';
import { PROTOCOLS } from '../../core/policy/model.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { EXTERNAL, NODES, snapshotArb, generatedCluster } from '../support/random-snapshot.js';

const RUNS = Math.max(50, Math.floor(propertyRuns(1000) / 8));

/**
 * One more NetworkPolicy in every snapshot, on every pod of a namespace: an ipBlock whose
 * excepts no other generated policy names as a range, so only the except tells them apart.
 */
const IP_BLOCKS = [
  { cidr: '10.0.0.0/16', except: ['10.0.1.64/27', '10.0.2.128/25'] },
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/9'] },
  { cidr: 'fd00::/48', except: ['fd00::1:8000/113'] },
  { cidr: '::/0', except: ['fd00::/56'] },
];
const extraPolicy = fc.record({ ns: fc.constantFrom('a', 'b', 'c'), ingress: fc.boolean(), block: fc.constantFrom(...IP_BLOCKS), port: fc.option(fc.constantFrom(53, 80, 443), { nil: undefined }) }).map((x) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'blocks', namespace: x.ns },
  spec: { podSelector: {}, policyTypes: [x.ingress ? 'Ingress' : 'Egress'], [x.ingress ? 'ingress' : 'egress']: [{ [x.ingress ? 'from' : 'to']: [{ ipBlock: x.block }], ...(x.port ? { ports: [{ port: x.port }] } : {}) }] },
}));

const ASKED = ['10.0.0.0/16', '10.0.1.0/24', '10.0.0.0/12', 'fd00::/52', '10.0.1.0/25', '10.0.0.0/8', '0.0.0.0/0', '10.0.3.0/24', '172.18.0.0/24', '172.18.0.0/31', 'fd00::/64', 'fd00::/48', '::/0', 'fc00::/120', 'fd00::1:0/112'];

/**
 * What one question says, comparably: each flow's outcome and why (the deciding rule, or the
 * allowed ports when every port was asked), by the pod behind the address when it is a ClusterIP
 * (its backing pods), or "none" when it cannot be answered (an error, no verdict).
 */
function outcome(a: Answer, side: 'from' | 'to'): string[] | 'none' {
  if (a.kind === 'can') return [`${a.allowed} ${reasonOf(a.verdict)}`];
  if (a.kind === 'can-ports') return [`${a.allowed} ${a.allowed ? a.ports : a.denial}`];
  if (a.kind === 'can-group') return a.members.map((m) => `${m[side]}: ${m.allowed} ${reasonOfMember(m)}`);
  if (a.kind === 'error' || a.kind === 'no-verdict') return 'none';
  throw new Error(`unexpected ${a.kind}: ${a.text}`);
}

/** The group's members for one region, as `outcome` writes them. */
function regionOutcome(a: GroupAnswer, side: 'from' | 'to', region: AddressRegion): string[] | 'none' {
  const mine = a.members.filter((m) => m.regions?.[side]?.address === region.address);
  return mine.length === 0 ? 'none' : mine.map((m) => `${m.regions![side]!.via ? `${m[side]}: ` : ''}${m.allowed} ${reasonOfMember(m)}`);
}

/** A member's reason as a single flow's answer gives it: the deciding rule, the allowed ports ("… only" as can-ports writes them), or why no port is. */
const reasonOfMember = (m: MemberAnswer) => (m.allowed && (m.port === 'every port' || !/\d/.test(m.port)) ? m.reason.replace(/ only$/, '') : m.reason);

describe('a CIDR\'s regions: every address of one answers alike, as asked alone', () => {
  it(`on ${RUNS} random snapshots`, () => {
    const flow = fc.record({ asked: fc.constantFrom(...ASKED), other: fc.nat(), toCidr: fc.boolean(), port: fc.oneof(fc.constant(null), fc.constantFrom(53, 80, 443, 5432, 8080, 1)), protocol: fc.constantFrom(...PROTOCOLS), offset: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }) });
    const svc = fc.record({ key: fc.constantFrom('app', 'team'), value: fc.constantFrom('x', 'y'), protocol: fc.constantFrom(...PROTOCOLS) });
    assertProperty(
      fc.property(snapshotArb, extraPolicy, svc, flow, (snapshot, blocks, s, f) => {
        const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'a' }, spec: { selector: { [s.key]: s.value }, clusterIP: '10.0.3.7', ports: [{ port: f.port ?? 80, protocol: s.protocol }] } };
        const cluster = generatedCluster({ ...snapshot, items: [...snapshot.items, blocks, service] });
        const side = f.toCidr ? 'to' : 'from';
        const range = parseCidr(f.asked)!;
        const { regions } = addressRegions(cluster, range, f.asked, side);
        expect(coverage(regions), f.asked).toEqual([[range.lo, range.hi]]);
        // Each held address is a region of its own.
        const held = [...cluster.nodes.flatMap((n) => n.ips), ...cluster.pods.filter((p) => !p.hostNetwork).flatMap((p) => p.ips), parseIp('10.0.3.7')!];
        for (const ip of held.filter((x) => x.family === range.family && range.lo <= x.value && x.value <= range.hi)) {
          const text = formatIp(ip.family, ip.value);
          expect(regions.filter((r) => r.address === text).map((r) => [r.owner !== null, r.cidrs.length]), `${text} in ${f.asked}`).toEqual([[true, 1]]);
        }

        // Against every pod (their policies are what tell the CIDR's addresses apart) and one outside address.
        const edges = edgesOf([...snapshot.items, blocks]);
        const outside = [...EXTERNAL, NODES[1]!.v4, NODES[0]!.v6];
        for (const other of [...cluster.pods.map((p): EndpointSpec => ({ pod: p.key })), { ip: outside[f.other % outside.length]! }]) {
          const ask = (end: EndpointSpec) => answer(cluster, { kind: 'can', from: f.toCidr ? other : end, to: f.toCidr ? end : other, port: f.port, protocol: f.protocol });
          const group = ask({ ip: f.asked });
          for (const region of regions) {
            const where = `${f.asked} (${side}) region ${region.name} and ${'pod' in other ? other.pod : other.ip} on ${f.protocol} ${f.port}`;
            const alone = outcome(ask({ ip: region.address }), side);
            // As its address alone is answered; a whole question without members has none alone.
            if (group.kind === 'can-group') expect(regionOutcome(group, side, region), where).toEqual(alone);
            else expect([group.kind, alone], where).toEqual([expect.stringMatching(/^(error|no-verdict)$/), 'none']);
            if (region.owner) continue;
            // Every other address of an outside region is answered alike alone.
            for (const address of sampleOf(region, f.offset, edges)) expect(outcome(ask({ ip: address }), side), `${where} at ${address}`).toEqual(alone);
          }
          // The verdicts route (one port): the same members, the same outcomes.
          if (f.port === null) continue;
          const spec = { from: f.toCidr ? other : { ip: f.asked }, to: f.toCidr ? { ip: f.asked } : other, port: f.port, protocol: f.protocol };
          if (group.kind === 'can-group') expect((verdictFor(cluster, spec) as GroupVerdict).members.map((m) => m.allowed), f.asked).toEqual(group.members.map((m) => m.allowed));
          else expect(() => verdictFor(cluster, spec)).toThrow(FlowError);
        }
      }),
      { file: import.meta.url, numRuns: RUNS },
    );
  });
});

/** The covered intervals, merged: one [lo, hi] when the regions tile the range. */
function coverage(regions: readonly AddressRegion[]): [bigint, bigint][] {
  const pieces = regions.flatMap((r) => r.cidrs.map((c) => parseCidr(c)!)).sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
  const out: [bigint, bigint][] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && p.lo <= last[1]) return [[-1n, -1n]]; // overlap
    if (last && last[1] + 1n === p.lo) last[1] = p.hi;
    else out.push([p.lo, p.hi]);
  }
  return out;
}

/**
 * Where policies could tell addresses apart, read from the objects themselves (not from the code
 * under test): each end of every ipBlock cidr and except and every `networks` CIDR, and the
 * address on either side of it.
 */
function edgesOf(items: readonly unknown[]): bigint[] {
  const out: bigint[] = [];
  const walk = (x: unknown, key: string) => {
    if (typeof x === 'string' && (key === 'cidr' || key === 'except' || key === 'networks')) {
      const r = parseCidr(x);
      if (r) out.push(r.lo - 1n, r.lo, r.hi, r.hi + 1n);
    } else if (Array.isArray(x)) for (const y of x) walk(y, key);
    else if (typeof x === 'object' && x !== null) for (const [k, v] of Object.entries(x)) walk(v, k);
  };
  walk(items, '');
  return out;
}

/** Addresses of an outside region besides its own: the ends of a few of its CIDRs, one drawn by `offset`, and every policy edge inside it. */
function sampleOf(region: AddressRegion, offset: bigint, edges: readonly bigint[]): string[] {
  const ranges = region.cidrs.map((c) => parseCidr(c)!);
  const picked = [ranges[0]!, ranges[ranges.length - 1]!, ranges[Number(offset % BigInt(ranges.length))]!];
  const values = picked.flatMap((r) => [r.lo, r.hi, r.lo + (offset % (r.hi - r.lo + 1n))]);
  for (const e of edges) if (ranges.some((r) => r.lo <= e && e <= r.hi)) values.push(e);
  const family = ranges[0]!.family;
  return [...new Set(values.map((v) => formatIp(family, v)))].filter((a) => a !== region.address);
}
