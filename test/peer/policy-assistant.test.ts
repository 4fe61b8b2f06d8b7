// Another analyzer's own test suite: the integration cases of kubernetes-sigs/network-policy-api's
// policy-assistant (test/fixtures/policy-assistant/README.md). Each case names its resources as
// its test builds them (namespaces labelled `ns`, pods labelled `pod` in every namespace, each
// serving every port × protocol on a port named serve-<port>-<protocol>), its policies, and
// the per-side connectivity it expects: a default for ingress and for egress, and the flows that
// flip it. Every ordered pair of distinct pods is answered on every port and protocol, each side
// on its own (policy-assistant leaves self pairs undefined), and both compiled forms (ir,
// ir-flat) are simulated on the same flows, their answer being both sides'.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { compile } from '../../core/compile/compile.js';
import { IrSimulator } from '../../core/compile/simulate.js';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import { formatIp } from '../../core/net/ip.js';
import type { Protocol } from '../../core/policy/model.js';
import type { PodInfo } from '../../core/snapshot/cluster.js';
import { loadSnapshot, readSources } from '../../functions/cli/input.js';
import { ask, chainLines, type Answer } from '../../core/ask/answer.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'policy-assistant');
// The numbered integration cases; walkthrough/ is the README demo (below).
const CASES = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory() && /^\d/.test(d.name)).map((d) => d.name).sort();

type Flow = [from: string, to: string, port: number, protocol: Protocol];
interface Expected {
  readonly name: string;
  readonly namespaces: readonly string[];
  readonly pods: readonly string[];
  readonly ports: readonly number[];
  readonly protocols: readonly Protocol[];
  readonly defaultIngress: 'allowed' | 'blocked';
  readonly defaultEgress: 'allowed' | 'blocked';
  readonly nonDefaultIngress: readonly Flow[];
  readonly nonDefaultEgress: readonly Flow[];
}

/** The resources policy-assistant's getResources makes (probe/resources.go, probe/pod.go), as manifests. */
function resources(e: Expected): string {
  const docs: string[] = [];
  let host = 10;
  for (const ns of e.namespaces) {
    docs.push(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { ns } } }));
    for (const pod of e.pods) {
      const containers = e.protocols.flatMap((protocol) => e.ports.map((port) => ({
        name: `cont-${port}-${protocol.toLowerCase()}`,
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.43',
        ports: [{ name: `serve-${port}-${protocol.toLowerCase()}`, containerPort: port, protocol }],
      })));
      const ip = `10.0.0.${host++}`;
      docs.push(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace: ns, labels: { pod } }, spec: { nodeName: 'node-1', containers }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } }));
    }
  }
  docs.push(JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'InternalIP', address: '192.168.0.1' }] } }));
  return docs.join('\n---\n');
}

const flowKey = (from: string, to: string, port: number, protocol: string) => `${from} → ${to} ${protocol}/${port}`;
/** Pairs × ports × protocols over every case (the cases run before the guard below, in this order). */
let compared_ = 0;

describe("policy-assistant's integration cases", () => {
  it.each(CASES)('%s: each side of every pair as policy-assistant expects', (dir) => {
    const e = JSON.parse(readFileSync(join(ROOT, dir, 'expected.json'), 'utf8')) as Expected;
    const { snapshot } = loadSnapshot([{ name: 'resources.yaml', text: resources(e) }, { name: 'policies.yaml', text: readFileSync(join(ROOT, dir, 'policies.yaml'), 'utf8') }]);
    const cluster = buildCluster(snapshot);
    const flipped = (flows: readonly Flow[]) => new Set(flows.map(([f, t, port, protocol]) => flowKey(f, t, port, protocol)));
    const [ingressFlipped, egressFlipped] = [flipped(e.nonDefaultIngress), flipped(e.nonDefaultEgress)];
    const pods = new Map<string, PodInfo>(cluster.pods.map((p) => [p.key, p]));
    // Every flow the case names is between pods it has (a misspelt flow would flip nothing).
    for (const [f, t] of [...e.nonDefaultIngress, ...e.nonDefaultEgress]) expect([pods.has(f), pods.has(t)], `${f} → ${t}`).toEqual([true, true]);

    const [sets, flat] = [new SetIrSimulator(compileSets(cluster).ir), new IrSimulator(compile(cluster).ir)];
    const v4 = (p: PodInfo) => formatIp(4, p.ips[0]!.value);
    const differ: string[] = [];
    for (const [a, pa] of pods) {
      for (const [b, pb] of pods) {
        if (a === b) continue;
        for (const protocol of e.protocols) {
          for (const port of e.ports) {
            const key = flowKey(a, b, port, protocol);
            const want = {
              ingress: (e.defaultIngress === 'allowed') !== ingressFlipped.has(key),
              egress: (e.defaultEgress === 'allowed') !== egressFlipped.has(key),
            };
            const v = evaluate(cluster, { from: { kind: 'pod', pod: pa, ip: pa.ips[0]! }, to: { kind: 'pod', pod: pb, ip: pb.ips[0]! }, port, protocol, family: 4 });
            const ours = { ingress: v.ingress!.allowed, egress: v.egress!.allowed };
            if (ours.ingress !== want.ingress || ours.egress !== want.egress) differ.push(`${key}: netpolc ingress ${ours.ingress} egress ${ours.egress}, policy-assistant ingress ${want.ingress} egress ${want.egress}`);
            const both = want.ingress && want.egress;
            const [viaSets, viaFlat] = [sets.simulate(v4(pa), v4(pb), protocol, port).allowed, flat.simulate(v4(pa), v4(pb), protocol, port).allowed];
            if (viaSets !== both || viaFlat !== both) differ.push(`${key}: expected ${both}; ir ${viaSets}, ir-flat ${viaFlat}`);
            compared_++;
          }
        }
      }
    }
    expect(differ).toEqual([]);
  });

  it('compares every case, not a handful of flows', () => {
    // A guard on the comparison itself: a case whose pods went missing would compare nothing.
    expect(CASES.length).toBeGreaterThanOrEqual(21);
    expect(compared_).toBeGreaterThan(21 * 12 * 2);
  });
});

/**
 * policy-assistant's walkthrough demo (cmd/policy-assistant/examples/demos/walkthrough/README.md):
 * its policies, Deployment a and Pod b as they are, read as a repository, and the three flows its
 * README walks through, each with the verdict and the ingress walkthrough it prints there.
 */
describe("policy-assistant's walkthrough demo", () => {
  const { snapshot } = loadSnapshot(readSources([join(ROOT, 'walkthrough')], { stdin: () => '', err: () => {} }));
  const cluster = buildCluster(snapshot);
  it.each([
    // | demo/deployment/a -> demo/pod/b:80 (TCP) | Allowed | [ANP] Allow (allow-80) | no policies targeting egress |
    ['can demo/deployment/a reach demo/pod/b on 80', true, /ingress of demo\/b\S*: Allow by AdminNetworkPolicy anp1 rule 0 "allow-80" ⇒ allowed/],
    // | demo/deployment/a -> demo/pod/b:81 (TCP) | Denied | [ANP] No-Op -> [BANP] Deny (baseline-deny) |
    ['can demo/deployment/a reach demo/pod/b on 81', false, /ingress of demo\/b\S*: no Admin-tier rule matches → no NetworkPolicy selects the pod for ingress → Deny by BaselineAdminNetworkPolicy default rule 0 "baseline-deny" ⇒ denied/],
    // | demo2/[app=nginx] -> demo/deployment/a:81 (TCP) | Denied | [ANP] Pass (development-ns) -> [NPv1] Dropped (demo/deny-anything-to-pod-a) |
    ['can demo2/nginx reach demo/deployment/a on 81', false, /ingress of demo\/(deployment\/)?a\S*: Pass by AdminNetworkPolicy anp2 rule 0 "development-ns" → isolated for ingress by deny-anything-to-pod-a; no rule allows this flow ⇒ denied/],
  ] as const)('%s', (question, allowed, ingress) => {
    const a = ask(cluster, question) as Answer & { text: string };
    expect(a.kind, a.text).toMatch(/^can/);
    expect(a.text.startsWith(allowed ? 'Yes' : 'No'), a.text).toBe(true);
    // Each side's chain; the egress side is policy-assistant's "no policies targeting egress".
    const chain = chainLines(a).join('\n');
    expect(chain).toMatch(ingress);
    expect(chain).toMatch(/egress of [^"]*: no Admin-tier rule matches → no NetworkPolicy selects the pod for egress → no Baseline-tier rule matches → no tier decided; default allow ⇒ allowed/);
  });
});
