// fast-check generators of small but adversarial cluster snapshots: few labels so selectors
// collide, overlapping CIDRs and excepts around the pod and node addresses, named ports that
// differ per pod, every tier and action, dual-stack addresses, host-network pods.
import fc from 'fast-check';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { evaluate, type Verdict } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow } from '../../core/evaluate/resolve.js';

const NS = ['a', 'b', 'c'];
// 'constructor' is a valid label key that every plain object answers for: labels must be read as own properties.
const KEYS = ['app', 'constructor'];
const VALS = ['x', 'y'];
const PORTS = [53, 80, 81, 443, 5432, 8080];
const NAMES = ['web', 'dns', 'db'];
const PROTOS = ['TCP', 'UDP', 'SCTP'] as const;

export const NODES = [
  { name: 'n1', v4: '172.18.0.2', v6: 'fc00::2' },
  { name: 'n2', v4: '172.18.0.3', v6: 'fc00::3' },
];

/** Addresses flows may use beyond the pods and nodes: inside and outside the CIDR space below. */
export const EXTERNAL = ['10.0.1.77', '10.0.3.1', '192.0.2.9', '8.8.8.8', 'fd00::1:ff', 'fd00::3:1', '2001:db8::1'];

const CIDRS = ['10.0.0.0/16', '10.0.1.0/24', '10.0.1.0/25', '10.0.1.128/26', '10.0.2.0/24', '10.0.0.0/8', '0.0.0.0/0', '172.18.0.0/24', '172.18.0.2/32', 'fd00::/64', 'fd00::1:0/112', '::/0', 'fc00::/120'];

const labels = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALS), { maxKeys: 2 });
const selector = fc.oneof(
  { weight: 3, arbitrary: fc.record({ matchLabels: labels }) },
  { weight: 1, arbitrary: fc.record({ matchExpressions: fc.array(fc.oneof(fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('In', 'NotIn'), values: fc.uniqueArray(fc.constantFrom(...VALS), { minLength: 1 }) }), fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('Exists', 'DoesNotExist') })), { maxLength: 2 }) }) },
);
const nsSelector = fc.oneof(fc.constant({}), fc.record({ matchLabels: fc.record({ 'kubernetes.io/metadata.name': fc.constantFrom(...NS) }) }), fc.record({ matchLabels: labels }));
const proto = fc.constantFrom(...PROTOS);

/** An ipBlock whose excepts are strict subsets of its cidr (API validation). */
const ipBlock = fc.constantFrom(
  { cidr: '10.0.0.0/16', except: ['10.0.1.0/24', '10.0.1.0/25'] },
  { cidr: '10.0.0.0/16', except: ['10.0.1.128/26', '10.0.2.0/24', '10.0.1.0/25'] },
  { cidr: '10.0.1.0/24', except: [] as string[] },
  { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '10.0.1.0/24'] },
  { cidr: '172.18.0.0/24', except: ['172.18.0.2/32'] },
  { cidr: 'fd00::/64', except: ['fd00::1:0/112'] },
  { cidr: '::/0', except: ['fd00::/64'] },
);

const npPort = fc.oneof(
  fc.record({ protocol: proto, port: fc.constantFrom(...PORTS) }),
  fc.record({ port: fc.constantFrom(...PORTS) }),
  fc.constantFrom(...PORTS).chain((p) => fc.record({ protocol: proto, port: fc.constant(p), endPort: fc.constantFrom(p, p + 1, p + 500) })),
  fc.record({ protocol: proto, port: fc.constantFrom(...NAMES) }),
  fc.record({ protocol: proto }),
);
const npPeer = fc.oneof(
  fc.record({ podSelector: selector }),
  fc.record({ namespaceSelector: nsSelector }),
  fc.record({ podSelector: selector, namespaceSelector: nsSelector }),
  fc.record({ ipBlock }),
);
const npRule = (side: 'from' | 'to') => fc.record({ [side]: fc.option(fc.array(npPeer, { maxLength: 2 }), { nil: undefined }), ports: fc.option(fc.array(npPort, { maxLength: 2 }), { nil: undefined }) }, { requiredKeys: [] });

const networkPolicy = (i: number) =>
  fc.record({
    ns: fc.constantFrom(...NS),
    podSelector: selector,
    policyTypes: fc.option(fc.subarray(['Ingress', 'Egress'], { minLength: 1 }), { nil: undefined }),
    ingress: fc.array(npRule('from'), { maxLength: 2 }),
    egress: fc.array(npRule('to'), { maxLength: 2 }),
  }).map((p) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: `np${i}`, namespace: p.ns },
    spec: { podSelector: p.podSelector, ...(p.policyTypes ? { policyTypes: p.policyTypes } : {}), ingress: p.ingress, egress: p.egress },
  }));

const clusterPorts = fc.array(
  fc.oneof(
    fc.record({ portNumber: fc.record({ protocol: proto, port: fc.constantFrom(...PORTS) }) }),
    fc.record({ portRange: fc.constantFrom(...PORTS).chain((s) => fc.record({ protocol: proto, start: fc.constant(s), end: fc.constantFrom(s + 1, s + 1000) })) }),
    fc.record({ namedPort: fc.constantFrom(...NAMES) }),
  ),
  { minLength: 1, maxLength: 2 },
);
const inClusterPeer = fc.oneof(fc.record({ namespaces: nsSelector }), fc.record({ pods: fc.record({ namespaceSelector: nsSelector, podSelector: selector }) }));
// The KEP-2091 draft's namespace forms relative to the subject's namespace (v1alpha1 spellings
// read as such: schemas/k8s/cluster-selection.ts): a table over them depends on where its subject is.
const relativeNamespaces = fc.oneof(
  fc.record({ related: fc.constantFrom('Self', 'NotSelf') }),
  fc.record({ sameLabels: fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1 }) }),
  fc.record({ notSameLabels: fc.uniqueArray(fc.constantFrom(...KEYS), { minLength: 1 }) }),
);
const relativePeer = fc.oneof(fc.record({ namespaces: relativeNamespaces }), fc.record({ pods: fc.record({ namespaces: relativeNamespaces, podSelector: selector }) }));
const v1alpha1InClusterPeer = fc.oneof({ weight: 3, arbitrary: inClusterPeer }, { weight: 1, arbitrary: relativePeer });
const outsidePeer = fc.oneof(fc.record({ nodes: fc.oneof(fc.constant({}), fc.record({ matchLabels: fc.record({ 'kubernetes.io/hostname': fc.constantFrom('n1', 'n2') }) })) }), fc.record({ networks: fc.uniqueArray(fc.constantFrom(...CIDRS), { minLength: 1, maxLength: 2 }) }));

/**
 * ANP/BANP rule; named ports only with in-cluster peers (upstream CEL), except that a v1alpha2
 * rule (`networksNamed`) may have them with networks peers: the standard-channel CRD admits it.
 */
const anpRule = (actions: string[], egress: boolean, networksNamed = false, relative = false) => {
  const inCluster = relative ? v1alpha1InClusterPeer : inClusterPeer;
  return fc
    .record({
      action: fc.constantFrom(...actions),
      peers: fc.array(egress ? fc.oneof(inCluster, outsidePeer) : inCluster, { minLength: 1, maxLength: 2 }),
      ports: fc.option(clusterPorts, { nil: undefined }),
    })
    .map((r) => {
      const outside = r.peers.some((p) => 'nodes' in p || ('networks' in p && !networksNamed));
      const ports = r.ports && outside ? r.ports.filter((p) => !('namedPort' in p)) : r.ports;
      return { action: r.action, [egress ? 'to' : 'from']: r.peers, ...(ports && ports.length > 0 ? { ports } : {}) };
    });
};

const subject = fc.oneof(fc.record({ namespaces: nsSelector }), fc.record({ pods: fc.record({ namespaceSelector: nsSelector, podSelector: selector }) }));

const anp = (i: number) =>
  fc.record({ priority: fc.integer({ min: 0, max: 3 }), subject, ingress: fc.array(anpRule(['Allow', 'Deny', 'Pass'], false, false, true), { maxLength: 2 }), egress: fc.array(anpRule(['Allow', 'Deny', 'Pass'], true, false, true), { maxLength: 2 }) }).map((spec) => ({
    apiVersion: 'policy.networking.k8s.io/v1alpha1',
    kind: 'AdminNetworkPolicy',
    metadata: { name: `anp${i}` },
    spec,
  }));

const banp = fc.record({ subject, ingress: fc.array(anpRule(['Allow', 'Deny'], false, false, true), { maxLength: 2 }), egress: fc.array(anpRule(['Allow', 'Deny'], true, false, true), { maxLength: 2 }) }).map((spec) => ({
  apiVersion: 'policy.networking.k8s.io/v1alpha1',
  kind: 'BaselineAdminNetworkPolicy',
  metadata: { name: 'default' },
  spec,
}));

/** ClusterNetworkPolicy: same shapes, v1alpha2 spelling. */
const cnp = (i: number) =>
  fc.record({ tier: fc.constantFrom('Admin', 'Baseline'), priority: fc.integer({ min: 0, max: 3 }), subject, ingress: fc.array(anpRule(['Accept', 'Deny', 'Pass'], false), { maxLength: 2 }), egress: fc.array(anpRule(['Accept', 'Deny', 'Pass'], true, true), { maxLength: 2 }) }).map((s) => {
    const toProtocols = (rule: Record<string, unknown>) => {
      const { ports, ...rest } = rule as { ports?: Record<string, any>[] };
      if (!ports) return rest;
      return {
        ...rest,
        protocols: ports.map((p) =>
          p.namedPort ? { destinationNamedPort: p.namedPort } : p.portNumber ? { [p.portNumber.protocol.toLowerCase()]: { destinationPort: { number: p.portNumber.port } } } : { [p.portRange.protocol.toLowerCase()]: { destinationPort: { range: { start: p.portRange.start, end: p.portRange.end } } } },
        ),
      };
    };
    return {
      apiVersion: 'policy.networking.k8s.io/v1alpha2',
      kind: 'ClusterNetworkPolicy',
      metadata: { name: `cnp${i}` },
      spec: { tier: s.tier, priority: s.priority, subject: s.subject, ingress: s.ingress.map(toProtocols), egress: s.egress.map(toProtocols) },
    };
  });

const pod = (i: number) =>
  fc
    .record({
      ns: fc.constantFrom(...NS),
      labels,
      node: fc.constantFrom(0, 1),
      hostNetwork: fc.boolean().map((b) => b && i === 0),
      v4net: fc.constantFrom(0, 1, 2),
      v6: fc.boolean(),
      ports: fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), containerPort: fc.constantFrom(...PORTS), protocol: proto }), { maxLength: 2, selector: (p) => p.name }),
    })
    .map((p) => {
      const node = NODES[p.node]!;
      const v4 = p.hostNetwork ? node.v4 : `10.0.${p.v4net}.${10 + i * 40}`;
      const v6 = p.hostNetwork ? node.v6 : `fd00::${p.v4net}:${(10 + i * 40).toString(16)}`;
      const ips = p.v6 || p.hostNetwork ? [v4, v6] : [v4];
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `p${i}`, namespace: p.ns, labels: p.labels },
        spec: { nodeName: node.name, hostNetwork: p.hostNetwork, containers: [{ name: 'c', ports: p.ports }] },
        status: { phase: 'Running', podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) },
      };
    });

export const snapshotArb = fc
  .record({
    nsLabels: fc.tuple(labels, labels, labels),
    pods: fc.integer({ min: 2, max: 6 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => pod(i)))),
    nps: fc.integer({ min: 0, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => networkPolicy(i)))),
    anps: fc.integer({ min: 0, max: 2 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => anp(i)))),
    banp: fc.option(banp, { nil: undefined }),
    cnps: fc.integer({ min: 0, max: 2 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => cnp(i)))),
    legacyDeny: fc.constantFrom(...NS, 'none'),
  })
  .map((s) => ({
    apiVersion: 'v1',
    kind: 'List',
    items: [
      ...NS.map((name, i) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: s.nsLabels[i], ...(s.legacyDeny === name ? { annotations: { 'net.beta.kubernetes.io/network-policy': '{"ingress":{"isolation":"DefaultDeny"}}' } } : {}) },
      })),
      ...NODES.map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: n.name, labels: { 'kubernetes.io/hostname': n.name } }, status: { addresses: [{ type: 'InternalIP', address: n.v4 }, { type: 'InternalIP', address: n.v6 }] } })),
      ...s.pods,
      ...s.nps,
      ...s.anps,
      ...(s.banp ? [s.banp] : []),
      ...s.cnps,
    ],
  }));

type PodItem = { metadata: { name: string; namespace: string; labels: object }; spec: { nodeName: string; hostNetwork: boolean; containers: object[] }; status: { podIPs: { ip: string }[] } };

/**
 * snapshotArb with more of what node locality depends on, by bit masks over the pods: `twin`
 * gives a pod the namespace, labels, ports and subnet of the pod before it on the other node
 * (alike for every rule, apart in locality); `host` makes a pod host-network (its addresses
 * are its node's); `bare` leaves it Pending without an address.
 */
export const localitySnapshotArb = fc.tuple(snapshotArb, fc.nat(63), fc.nat(63), fc.nat(63)).map(([s, twin, host, bare]) => {
  const pods = s.items.filter((item) => item.kind === 'Pod') as unknown as PodItem[];
  const edited = new Map<unknown, unknown>();
  pods.forEach((p, i) => {
    const bit = 1 << i;
    const prev = pods[i - 1];
    let { metadata, spec } = p;
    let ips = p.status.podIPs.map((x) => x.ip);
    if ((twin & bit) !== 0 && prev && !prev.spec.hostNetwork && !p.spec.hostNetwork) {
      const own = 10 + i * 40;
      metadata = { ...metadata, namespace: prev.metadata.namespace, labels: prev.metadata.labels };
      spec = { ...spec, nodeName: NODES.find((n) => n.name !== prev.spec.nodeName)!.name, containers: prev.spec.containers };
      ips = prev.status.podIPs.map(({ ip }) => (ip.includes(':') ? ip.replace(/:[0-9a-f]+$/, `:${own.toString(16)}`) : ip.replace(/\.\d+$/, `.${own}`)));
    }
    const hostNetwork = spec.hostNetwork || (host & bit) !== 0;
    const node = NODES.find((n) => n.name === spec.nodeName)!;
    if (hostNetwork) ips = [node.v4, node.v6];
    if ((bare & bit) !== 0) ips = [];
    const status = { phase: ips.length > 0 ? 'Running' : 'Pending', ...(ips.length > 0 ? { podIP: ips[0] } : {}), podIPs: ips.map((ip) => ({ ip })) };
    edited.set(p, { ...p, metadata, spec: { ...spec, hostNetwork }, status });
  });
  return { ...s, items: s.items.map((item) => edited.get(item) ?? item) };
});

/**
 * localitySnapshotArb where, by a bit mask, a pod takes the namespace and labels of the pod
 * before it and keeps its own ports, addresses and node: pods alike in what selectors read and
 * apart in the rest, so a class key that misses a fact the rules read puts pods of different
 * verdicts in one class.
 */
export const lookalikeSnapshotArb = fc.tuple(localitySnapshotArb, fc.nat(63)).map(([s, mask]) => {
  const pods = s.items.filter((item) => (item as { kind?: string }).kind === 'Pod') as unknown as PodItem[];
  const edited = new Map<unknown, unknown>();
  pods.forEach((p, i) => {
    const prev = pods[i - 1];
    if ((mask & (1 << i)) === 0 || !prev) return;
    edited.set(p, { ...p, metadata: { ...p.metadata, namespace: prev.metadata.namespace, labels: prev.metadata.labels } });
  });
  return { ...s, items: s.items.map((item) => edited.get(item) ?? item) };
});

export const flowArb = fc.record({ from: fc.nat(), to: fc.nat(), port: fc.constantFrom(...PORTS, 1, 82, 1000, 65535), protocol: proto });

/** Every address a random flow may use: pod addresses from the compiled IR, node and external ones. */
export function flowAddresses(ir: { nodes: Record<string, { pods: Record<string, { ips: readonly string[] }> }> }): string[] {
  return [...new Set([...Object.values(ir.nodes).flatMap((n) => Object.values(n.pods).flatMap((p) => p.ips)), ...NODES.flatMap((n) => [n.v4, n.v6]), ...EXTERNAL])];
}

/** Source and destination of a random flow: two different addresses of one family, or null. */
export function pickFlow(addresses: readonly string[], f: { from: number; to: number }): [string, string] | null {
  const src = addresses[f.from % addresses.length]!;
  const dst = addresses[(f.from + 1 + (f.to % (addresses.length - 1))) % addresses.length]!;
  return src.includes(':') === dst.includes(':') ? [src, dst] : null;
}

/** The verdict engine's answer for a flow between addresses; null where the flow cannot exist. */
export function engineVerdict(cluster: Cluster, src: string, dst: string, f: { port: number; protocol: 'TCP' | 'UDP' | 'SCTP' }): Verdict | null {
  try {
    return evaluate(cluster, resolveFlow(cluster, { from: { ip: src }, to: { ip: dst }, port: f.port, protocol: f.protocol }));
  } catch (e) {
    if (e instanceof FlowError) return null;
    throw e;
  }
}

/**
 * A random change to a snapshot, as a pull request makes one: objects of another random
 * snapshot applied (same kind and name replace the old object: relabelled pods and
 * namespaces, edited or new policies, moved or readdressed pods) and objects deleted.
 */
export const changeArb = fc.record({ other: snapshotArb, apply: fc.uniqueArray(fc.nat(), { maxLength: 4 }), delete: fc.uniqueArray(fc.nat(), { maxLength: 3 }) });

type Item = { kind: string; metadata: { name: string; namespace?: string } };

export function changeOf(base: { items: readonly unknown[] }, c: { other: { items: readonly unknown[] }; apply: readonly number[]; delete: readonly number[] }) {
  const items = base.items as Item[];
  const others = c.other.items as Item[];
  const pick = <T>(list: readonly T[], picks: readonly number[]) => (list.length === 0 ? [] : [...new Set(picks.map((i) => i % list.length))].map((i) => list[i]!));
  return {
    apply: pick(others, c.apply),
    delete: pick(items, c.delete).map((o) => ({ kind: o.kind, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}), name: o.metadata.name })),
  };
}

/** A random flow resolved to two addresses of one family, with the engine's verdict for it. */
export interface CheckedFlow {
  readonly src: string;
  readonly dst: string;
  readonly port: number;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly verdict: Verdict;
}

/** The random flows the property tests compare: those with a family-matched address pair the engine can answer. */
export function checkedFlows(cluster: Cluster, ir: Parameters<typeof flowAddresses>[0], flows: readonly { from: number; to: number; port: number; protocol: 'TCP' | 'UDP' | 'SCTP' }[]): CheckedFlow[] {
  const addresses = flowAddresses(ir);
  const out: CheckedFlow[] = [];
  for (const f of flows) {
    const pair = pickFlow(addresses, f);
    const verdict = pair && engineVerdict(cluster, pair[0], pair[1], f);
    if (pair && verdict) out.push({ src: pair[0], dst: pair[1], port: f.port, protocol: f.protocol, verdict });
  }
  return out;
}

/**
 * Every ordered pair of two different addresses of one family, each on the given ports, with the
 * engine's verdicts: random flows seldom pick the few pairs where a table is wrong (two subjects
 * told apart only by their namespace, for a peer relative to it).
 */
export function allPairFlows(cluster: Cluster, ir: Parameters<typeof flowAddresses>[0], ports: readonly { port: number; protocol: 'TCP' | 'UDP' | 'SCTP' }[]): CheckedFlow[] {
  const addresses = flowAddresses(ir);
  const out: CheckedFlow[] = [];
  for (const src of addresses) {
    for (const dst of addresses) {
      if (src === dst || src.includes(':') !== dst.includes(':')) continue;
      for (const f of ports) {
        const verdict = engineVerdict(cluster, src, dst, f);
        if (verdict) out.push({ src, dst, port: f.port, protocol: f.protocol, verdict });
      }
    }
  }
  return out;
}

/** The cluster of a generated snapshot: it must parse (a generator bug otherwise, said with its first issues). */
export function generatedCluster(snapshot: unknown): Cluster {
  const parsed = parseSnapshot(snapshot);
  if (!parsed.ok) throw new Error(`generator produced an invalid snapshot: ${JSON.stringify(parsed.issues.slice(0, 3))}`);
  return buildCluster(parsed.snapshot);
}
