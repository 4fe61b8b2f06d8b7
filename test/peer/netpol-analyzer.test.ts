// Another analyzer's own test suite: np-guard/netpol-analyzer's connlist cases
// (test/fixtures/netpol-analyzer/README.md), each directory read as netpolc reads a repository,
// every pair of its endpoints answered on every port and compared with the analyzer's expected
// line (a pair it does not list has no connection). External ranges are checked at their first
// address. Pairs with a host-network pod are not compared: "NetworkPolicy behaviour for
// hostNetwork pods is undefined", and netpolc answers them as their node's traffic
// (docs/semantics.md) where netpol-analyzer answers them as pods. The analyzer's
// `{ingress-controller}` endpoint (Routes and Ingresses) has no counterpart here. Where pods
// have addresses, both compiled forms (ir, ir-flat) are simulated at the edges of every range.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import { InputError, loadSnapshot, readSources } from '../../functions/cli/input.js';
import { allowed, analyzerNames, readConnlist } from '../support/connlist.js';
import { compile } from '../../core/compile/compile.js';
import { IrSimulator } from '../../core/compile/simulate.js';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import { formatIp } from '../../core/net/ip.js';
import type { Protocol } from '../../core/policy/model.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'netpol-analyzer');
const ACCEPTED = readdirSync(join(ROOT, 'accepted')).sort();
const quiet = { stdin: () => '', err: () => {} };

const load = (dir: string) => loadSnapshot(readSources([dir], quiet)).snapshot;
/** Pairs compared over every case, and compiled-form simulations (the cases run before the guard below, in this order). */
let compared_ = 0;
let sims_ = 0;

/** A connlist connection as port ranges per protocol ("All Connections": every port of all three). */
function rangesOf(conn: string): Record<Protocol, [number, number][]> {
  const out: Record<Protocol, [number, number][]> = { TCP: [], UDP: [], SCTP: [] };
  if (conn === 'All Connections') return { TCP: [[1, 65535]], UDP: [[1, 65535]], SCTP: [[1, 65535]] };
  if (conn === 'No Connections') return out;
  let protocol: Protocol = 'TCP';
  for (const part of conn.split(',')) {
    const [head, rest] = part.includes(' ') ? [part.slice(0, part.indexOf(' ')), part.slice(part.indexOf(' ') + 1)] : [null, part];
    if (head) protocol = head as Protocol;
    const [lo, hi] = rest.split('-').map(Number);
    out[protocol].push([lo!, hi ?? lo!]);
  }
  return out;
}

/** Ports to probe: 1, 65535, and each range's ends and the ports just outside them. */
const edges = (ranges: readonly [number, number][]): number[] => [...new Set([1, 65535, ...ranges.flatMap(([lo, hi]) => [lo - 1, lo, hi, hi + 1])].filter((p) => p >= 1 && p <= 65535))];

describe("netpol-analyzer's connlist cases", () => {
  it.each(ACCEPTED)('%s: every pair as the analyzer lists it', (name) => {
    const snapshot = load(join(ROOT, 'accepted', name, 'input'));
    const cluster = buildCluster(snapshot);
    const lines = readConnlist(readFileSync(join(ROOT, 'accepted', name, 'connlist.txt'), 'utf8'));
    const { name: nameOf, finished } = analyzerNames(snapshot);
    const endpoints = new Map<string, PodInfo>();
    for (const p of cluster.pods) if (!endpoints.has(nameOf(p))) endpoints.set(nameOf(p), p);
    const external = (n: string) => n.endsWith('[External]');
    // Every endpoint the analyzer lists is one of ours (none silently left out of the comparison).
    const listed = new Set(lines.flatMap((l) => [l.from, l.to]).filter((n) => !external(n) && n !== '{ingress-controller}' && !(finished.has(n) && !endpoints.has(n))));
    expect([...listed].filter((n) => !endpoints.has(n)), 'endpoints netpolc does not have').toEqual([]);

    const expected = new Map(lines.map((l) => [`${l.from} => ${l.to}`, l.conn]));
    const differ: string[] = [];
    let compared = 0;
    const pod = (p: PodInfo) => ({ pod: p.key });
    for (const [a, pa] of endpoints) {
      for (const [b, pb] of endpoints) {
        if (a === b || pa.hostNetwork || pb.hostNetwork) continue;
        compared++;
        const [ours, theirs] = [allowed(cluster, pod(pa), pod(pb)), expected.get(`${a} => ${b}`) ?? 'No Connections'];
        if (ours !== theirs) differ.push(`${a} => ${b}: netpolc ${ours}, netpol-analyzer ${theirs}`);
      }
    }
    for (const l of lines.filter((x) => external(x.from) !== external(x.to))) {
      const side = (n: string) => (external(n) ? { ip: n.slice(0, -'[External]'.length).split('-')[0]! } : endpoints.get(n));
      const [f, t] = [side(l.from), side(l.to)];
      if (!f || !t || ('hostNetwork' in f && f.hostNetwork) || ('hostNetwork' in t && t.hostNetwork)) continue;
      compared++;
      const ours = allowed(cluster, 'ip' in f ? f : pod(f), 'ip' in t ? t : pod(t));
      if (ours !== l.conn) differ.push(`${l.from} => ${l.to}: netpolc ${ours}, netpol-analyzer ${l.conn}`);
    }
    expect(differ).toEqual([]);
    compared_ += compared;

    // The compiled forms say the same for pods with addresses: the set form and the flat tables,
    // simulated at each edge of every range the analyzer allows (and just outside it).
    const addressed = [...endpoints.values()].filter((p) => !p.hostNetwork && p.ips.some((ip) => ip.family === 4));
    if (addressed.length < 2) return;
    const [sets, flat] = [new SetIrSimulator(compileSets(cluster).ir), new IrSimulator(compile(cluster).ir)];
    const v4 = (p: PodInfo) => formatIp(4, p.ips.find((ip) => ip.family === 4)!.value);
    const wrong: string[] = [];
    for (const a of addressed) {
      for (const b of addressed) {
        if (a === b) continue;
        const conn = expected.get(`${nameOf(a)} => ${nameOf(b)}`) ?? 'No Connections';
        for (const [protocol, ranges] of Object.entries(rangesOf(conn))) {
          for (const port of edges(ranges)) {
            const want = ranges.some(([lo, hi]) => lo <= port && port <= hi);
            const [viaSets, viaFlat] = [sets.simulate(v4(a), v4(b), protocol as Protocol, port).allowed, flat.simulate(v4(a), v4(b), protocol, port).allowed];
            sims_++;
            if (viaSets !== want || viaFlat !== want) wrong.push(`${a.key} → ${b.key} ${protocol} ${port}: ${conn}; ir ${viaSets}, ir-flat ${viaFlat}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // Cases made only of host-network pods compare nothing; every other one compares its pairs.
    if (cluster.pods.some((p) => !p.hostNetwork)) expect(compared).toBeGreaterThan(0);
  });

  it('compares thousands of pairs over the cases, not a handful', () => {
    // A guard on the comparison itself: were names mapped wrongly, pairs would silently drop out.
    expect(ACCEPTED.length).toBeGreaterThanOrEqual(70);
    // 1,485 simulations of each compiled form at the commit the fixtures name.
    expect(sims_).toBeGreaterThan(1000);
    // 5,004 pairs at the commit the fixtures name.
    expect(compared_).toBeGreaterThan(4000);
  });
});

/**
 * Cases whose input the API server would refuse, which netpol-analyzer reads anyway: netpolc
 * refuses them (422 in the API, exit 2 in the CLI) at the path, saying why.
 */
const REFUSED: [string, RegExp][] = [
  // KEP-2091: "PodSelector … This field is NOT optional"; the v1alpha1 type has no omitempty.
  ['anp_test_3_pass_traffic', /policies\.yaml \(document 1\): \$\.spec\.egress\[0\]\.to\[0\]\.pods\.podSelector .*Required value: podSelector must be set/],
  ['example_pods_w_same_owner_and_labels_gap_anp_good', /\$\.spec\.ingress\[0\]\.from\[0\]\.pods\.namespaceSelector .*Required value: v1alpha1 NamespacedPod requires namespaceSelector/],
  // apps/v1 ValidateDeploymentSpec: "selector does not match template labels".
  ['anp_test_1_deny_traffic_at_cluster_level', /\(Deployment sensitive-ns\/sensitive\): selector does not match template labels/],
  // The v1alpha1 CRD's rule on egress ports with networks/nodes peers.
  ['anp_test_named_ports_multiple_peers', /\$\.spec\.egress\[0\]\.ports\[2\] .*cannot be set with named ports/],
  // An ownerReference names its kind ("kind: Required value").
  ['example_pods_w_same_owner_and_labels_gap_no_policy', /\$\.metadata\.ownerReferences\[0\]\.kind \(Pod pod-1\): Required value/],
  // Object names are RFC 1123 subdomains: no underscores.
  ['example_pods_w_same_owner_and_labels_gap_with_good_match_expression', /\$\.metadata\.name \(NetworkPolicy use_common_labels_same_values\): must be a lowercase RFC 1123 subdomain/],
  // `containerport:` (miscased) leaves the required containerPort out.
  ['netpol_named_port_test', /\$\.spec\.template\.spec\.containers\[0\]\.ports\[1\]\.containerPort \(Deployment helloworld\/pod-a\)/],
];

describe('netpol-analyzer cases the API server would refuse', () => {
  it.each(REFUSED)('%s', (name, why) => {
    let error: unknown;
    try {
      load(join(ROOT, 'refused', name));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(why);
  });
});
