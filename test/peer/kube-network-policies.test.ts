// Another implementation's own test suite: the packet-evaluation tests of
// kubernetes-sigs/kube-network-policies, the network-policy-api reference dataplane
// (test/fixtures/kube-network-policies/README.md): each row's objects and packets, with the
// verdict its engine expects. Each packet is answered by the verdict engine from its addresses
// (an address of no pod or node is external), and, where every pod of the row is on a node,
// by both compiled forms (ir, ir-flat) simulated.
//
// The rows are unit tests, written without an API server, and some objects are ones it would
// refuse. netpolc refuses those too (each with the reason, checked below); the comparison then
// runs on the row with the smallest repair that keeps what the Go test evaluates (REPAIRS). Rows
// whose verdict comes from something a snapshot does not hold (a mocked evaluator, DNS
// answers) or from a reading the API server does not keep are listed with why, and compared
// against netpolc's documented answer instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { resolveFlow } from '../../core/evaluate/resolve.js';
import { compile } from '../../core/compile/compile.js';
import { IrSimulator } from '../../core/compile/simulate.js';
import { compileSets } from '../../core/sets/compile.js';
import { SetIrSimulator } from '../../core/sets/simulate.js';
import type { Protocol } from '../../core/policy/model.js';
import { InputError, loadSnapshot } from '../../functions/cli/input.js';

const ROOT = join(import.meta.dirname, '..', 'fixtures', 'kube-network-policies');
const GROUPS = ['networkpolicy', 'anp', 'banp', 'cnp', 'engine'] as const;
const ROWS = GROUPS.flatMap((g) => readdirSync(join(ROOT, g)).sort().map((d) => `${g}/${d}`));

interface Packet {
  readonly src: string;
  readonly dst: string;
  readonly dstPort: number | null;
  readonly protocol: Protocol | null;
  readonly allowed: boolean;
  /** cnp rows: the engine held only this tier's ClusterNetworkPolicies. */
  readonly tier?: 'Admin' | 'Baseline';
}
interface Row {
  readonly packets: readonly Packet[];
  readonly apiInvalid?: string;
}
type K8sObject = { kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown> } & Record<string, unknown>;

/** Why netpolc refuses a row as written, as the API server would. */
const REFUSALS: readonly RegExp[] = [
  /endPort \(NetworkPolicy [^)]+\): must be between 1 and 65535, inclusive/,
  /metadata\.name \(NetworkPolicy bar\/default-allow-ingress-ipBlock\): must be a lowercase RFC 1123 subdomain/,
  /Only one baseline admin network policy with metadata\.name="default" can be created in the cluster/,
];

/**
 * The smallest changes that make a row an object set the API server accepts, keeping what the Go
 * test evaluates: its pod lookup knows no pod of a namespace the row does not declare (so their
 * addresses are external there, and are here once dropped); an endPort above 65535 covers the
 * same packets as 65535; names are only names.
 */
function repaired(objects: readonly K8sObject[]): K8sObject[] {
  const namespaces = new Set(objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name));
  // An object named twice: the informer store the Go test adds them to keeps the last.
  const last = new Map(objects.map((o, i) => [`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, i]));
  return objects
    .filter((o, i) => last.get(`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`) === i)
    .filter((o) => o.kind !== 'Pod' || namespaces.has(o.metadata.namespace!))
    .map((o) => {
      const copy = structuredClone(o);
      if (o.kind === 'NetworkPolicy') copy.metadata.name = o.metadata.name.toLowerCase();
      if (o.kind === 'BaselineAdminNetworkPolicy') copy.metadata.name = 'default';
      for (const rule of (copy.spec?.egress ?? []) as { ports?: { endPort?: number }[] }[]) for (const p of rule.ports ?? []) if (p.endPort !== undefined && p.endPort > 65535) p.endPort = 65535;
      return copy;
    });
}

/**
 * Rows whose Go verdict netpolc does not give, by design; netpolc's answer instead, and why.
 * Keyed by row and packet index.
 */
const BY_DESIGN: Record<string, { readonly allowed: boolean; readonly why: string }> = {
  // NetworkPolicySpec.ingress: "If this field is empty then this NetworkPolicy does not allow any
  // traffic"; the API server stores `ingress: []` as absent. The Go engine reads the empty list
  // it was handed as allow-all.
  'networkpolicy/05-allow-all-override-deny-ingress#0': { allowed: false, why: '`ingress: []` allows no traffic' },
  // v1alpha1 AdminNetworkPolicyEgressPeer.Nodes: "It selects the nodeIPs as the peer type by
  // matching on the IPs present in the node.Status.Addresses field of the node". The Go plugin
  // matches pods by their node's labels instead; bar/b is a pod, not a node address, so the
  // priority-110 Deny decides.
  'anp/07-multiport-allow-egress-node-port#0': { allowed: false, why: 'a `nodes` peer is node addresses, not the pods on those nodes' },
  // domainNames peers match no flow here: a snapshot holds no DNS answers (docs/semantics.md).
  // The Go test's resolver maps the rule's domain to the destination.
  'anp/19-deny-rule-matches-domain-and-ip#0': { allowed: true, why: 'no DNS answers: the Deny to a domain matches nothing' },
  'anp/26-rule-with-deny-all-domain-matches#0': { allowed: false, why: 'no DNS answers: the Allow to a domain matches nothing, the Deny to 0.0.0.0/0 decides' },
};

/** Rows whose verdict comes from a mocked evaluator's fixed answer, not from objects. */
const MOCKED = new Set(['engine/01-anp-allow-overrides-np-deny', 'engine/03-anp-deny-overrides-np-allow']);

const toText = (objects: readonly unknown[]) => objects.map((o) => JSON.stringify(o)).join('\n---\n');
/** Packets and simulations over every row (the rows run before the guard below, in this order). */
let compared_ = 0;
let sims_ = 0;

describe("kube-network-policies' packet tests", () => {
  it.each(ROWS)('%s: each packet as the Go engine decides it', (row) => {
    const r = JSON.parse(readFileSync(join(ROOT, row, 'expected.json'), 'utf8')) as Row;
    const literal = readFileSync(join(ROOT, row, 'objects.yaml'), 'utf8');
    let refusal: unknown = null;
    try {
      loadSnapshot([{ name: 'objects.yaml', text: literal }]);
    } catch (e) {
      refusal = e;
    }
    // Refused as written only for a reason the API server has, and only rows the fixture marks so.
    if (refusal) {
      expect(refusal).toBeInstanceOf(InputError);
      expect(REFUSALS.some((why) => why.test((refusal as Error).message)), (refusal as Error).message).toBe(true);
      expect(r.apiInvalid, 'refused, but the fixture does not say why the API server would').toBeDefined();
    }
    const objects = repaired(loadAll(literal) as K8sObject[]);
    if (MOCKED.has(row)) return;
    const policies = objects.filter((o) => /NetworkPolicy$/.test(o.kind));
    r.packets.forEach((p, i) => {
      // The cnp rows run one engine per tier: only that tier's ClusterNetworkPolicies.
      const held = p.tier ? objects.filter((o) => o.kind !== 'ClusterNetworkPolicy' || o.spec!.tier === p.tier) : objects;
      const { snapshot } = loadSnapshot([{ name: 'objects.yaml', text: toText(held) }]);
      const cluster = buildCluster(snapshot);
      // A Go packet without port or protocol matches only rules without ports: any port then.
      if (p.dstPort === null || p.protocol === null) expect(JSON.stringify(policies.map((o) => o.spec)), `${row}: a packet without a port, and rules with ports`).not.toMatch(/"ports"|"protocols"/);
      const [port, protocol] = [p.dstPort ?? 80, p.protocol ?? 'TCP'];
      const design = BY_DESIGN[`${row}#${i}`];
      const want = design?.allowed ?? p.allowed;
      const verdict = evaluate(cluster, resolveFlow(cluster, { from: { ip: p.src }, to: { ip: p.dst }, port, protocol }));
      expect(verdict.allowed, `${p.src} → ${p.dst} ${protocol}/${port}${design ? ` (differs by design: ${design.why})` : ''}`).toBe(want);
      compared_++;
      // Compiled forms: tables exist for pods on nodes.
      if (!cluster.pods.every((pod) => pod.nodeName && cluster.nodeByName.has(pod.nodeName))) return;
      const [sets, flat] = [new SetIrSimulator(compileSets(cluster).ir), new IrSimulator(compile(cluster).ir)];
      expect([sets.simulate(p.src, p.dst, protocol, port).allowed, flat.simulate(p.src, p.dst, protocol, port).allowed], `ir, ir-flat: ${p.src} → ${p.dst} ${protocol}/${port}`).toEqual([want, want]);
      sims_++;
    });
  });

  it('compares every row it can, not a handful', () => {
    // A guard on the comparison itself: rows silently skipped would compare nothing.
    expect(ROWS.length).toBeGreaterThanOrEqual(65);
    expect(compared_).toBeGreaterThanOrEqual(ROWS.length - MOCKED.size);
    expect(sims_).toBeGreaterThan(40);
  });
});
