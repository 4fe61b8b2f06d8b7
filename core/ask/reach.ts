// Which ports a flow is allowed on, and who reaches a fixed endpoint (or what it reaches),
// with bounded work: the other pods fall into classes that every rule treats alike (the
// compiler's policy signature, namespace, labels, address families, node of host-network pods,
// named ports of destinations, membership in the fixed endpoint's CIDR peers — what the fixed
// endpoint's own rules could tell apart, so none of these when it has none — and whether the
// pod runs on the fixed endpoint's node when that endpoint is a node; the keys are
// core/classes/features.ts's, in their order-keeping forms where a name resolves). A class is
// evaluated once for one port; for every port, each side once per segment of its own rules'
// port cuts, a side shared by classes (same signature) only once. Past MAX_EVALUATIONS engine
// calls the remaining classes are skipped. (M-sized bench snapshot: ~55k calls, under 0.5 s.)
import { cidrMembershipKey, familySequenceKey, labelKey, namedPortsInOrderKey } from '../classes/features.js';
import type { Cluster } from '../cluster.js';
import { groupOf, type Group } from '../compile/group.js';
import { subjectPod, type Endpoint, type Flow } from '../evaluate/endpoint.js';
import { evaluate } from '../evaluate/engine.js';
import { allowedRanges, formatPorts, intersectRanges, sideRuns, type PortRange, type PortRanges } from '../evaluate/side-runs.js';

export { formatPorts, type PortRanges } from '../evaluate/side-runs.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../evaluate/resolve.js';
import { PROTOCOLS, type Direction, type Peer, type Protocol, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { namedPort, nodeOf, podOf, portOn } from './describe.js';
import type { Query } from './parse.js';

export const MAX_EVALUATIONS = 300_000;

export type SetQuery = Extract<Query, { kind: 'who' | 'what' }>;

/** Host-network pods are never subjects: none of their rules apply. */
export const rulesOf = (cluster: Cluster, pod: PodInfo | null, dir: Direction): readonly Rule[] => (pod && !pod.hostNetwork ? groupOf(cluster, pod, dir).rules : []);

/** Engine calls made (a whole flow or one side), and side results shared between classes. */
export interface Work {
  evaluations: number;
  readonly sides: Map<string, [number, number][]>;
}
export const newWork = (): Work => ({ evaluations: 0, sides: new Map() });

const EVERY: PortRange[] = [[1, 65535]];

/** Sides probed over every port: rules of each, keys to share a side's result between classes, which side to try first. */
export interface Sides {
  readonly egress: readonly Rule[];
  readonly ingress: readonly Rule[];
  readonly keys?: Partial<Record<Direction, string>>;
  readonly first?: Direction;
}

/**
 * Allowed port ranges of one flow: at `port` only, by one evaluation, or at every port. A
 * side's verdict is constant between the port cuts of its own rules (and the destination's
 * named ports), so each side is probed on its own segments and the two intersected; a side
 * that allows nothing spares the other; a side whose key was seen (same family) is reused.
 */
export function probe(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, protocols: readonly Protocol[], work: Work, at: number | Sides): PortRanges {
  const all = (r: [number, number][]): PortRanges => Object.fromEntries(protocols.map((p) => [p, r]));
  let flow: Flow;
  try {
    flow = resolveFlow(cluster, { from, to, port: typeof at === 'number' ? at : 1, protocol: protocols[0]! });
  } catch (e) {
    if (e instanceof FlowError) return all([]); // no shared address family: not reachable, as in the matrix
    throw e;
  }
  work.evaluations++;
  const whole = evaluate(cluster, flow);
  if (typeof at === 'number') return all(whole.allowed ? [[at, at]] : []);
  if (whole.reason) return all(EVERY); // loopback, node-local: any port
  const { keys = {}, first = 'egress' } = at;
  const [src, dst] = [subjectPod(flow.from), subjectPod(flow.to)];
  const side = (dir: Direction, subject: PodInfo | null, peer: Endpoint, rules: readonly Rule[], protocol: Protocol) => {
    if (!subject) return EVERY;
    const key = keys[dir] === undefined ? undefined : `${dir}|${protocol}|${flow.family}|${keys[dir]}`;
    const seen = key === undefined ? undefined : work.sides.get(key);
    if (seen) return seen;
    const allowed = allowedRanges(sideRuns(cluster, dir, subject, peer, rules, protocol, work));
    if (key !== undefined) work.sides.set(key, allowed);
    return allowed;
  };
  const egress = (protocol: Protocol) => side('egress', src, flow.to, at.egress, protocol);
  const ingress = (protocol: Protocol) => side('ingress', dst, flow.from, at.ingress, protocol);
  // The side shared by many classes first: when it allows nothing, the other is never evaluated.
  const [a, b] = first === 'egress' ? [egress, ingress] : [ingress, egress];
  return Object.fromEntries(protocols.map((p) => {
    const one = a(p);
    return [p, one.length === 0 ? [] : intersectRanges(one, b(p))];
  }));
}

export const protocolsOf = (q: { readonly protocol: Protocol | null }): readonly Protocol[] => (q.protocol ? [q.protocol] : PROTOCOLS);

/** Pods every rule treats alike, and what the one evaluated for them all found. */
export interface ReachClass {
  readonly members: readonly PodInfo[];
  /** null: not examined, for the reason in `skipped`. */
  readonly ranges: PortRanges | null;
  readonly skipped?: 'budget' | 'no-such-named-port';
  /** formatPorts of ranges, or the one port asked ("TCP 5432 (postgres)"); "" when not reachable. */
  readonly ports: string;
}

/** What a class key reads of a pod whatever the fixed endpoint: its group for one direction, and its namespace and labels as a peer, each numbered. */
interface PodParts {
  readonly group: Group | null;
  /** Numbers of the policy signature (host@node for a host-network pod) and of namespace and labels. */
  readonly signature: number;
  readonly peer: number;
}
// Once per cluster and direction: a name of several endpoints asks reach() once per member.
const partsByCluster = new WeakMap<Cluster, { readonly parts: Record<Direction, Map<PodInfo, PodParts>>; readonly ids: Map<string, number> }>();
function podParts(cluster: Cluster, pod: PodInfo, dir: Direction): PodParts {
  let c = partsByCluster.get(cluster);
  if (!c) partsByCluster.set(cluster, (c = { parts: { ingress: new Map(), egress: new Map() }, ids: new Map() }));
  let parts = c.parts[dir].get(pod);
  if (parts) return parts;
  const ids = c.ids;
  const id = (text: string) => ids.get(text) ?? ids.set(text, ids.size).get(text)!;
  const group = pod.hostNetwork ? null : groupOf(cluster, pod, dir);
  parts = { group, signature: id(group?.policySignature ?? `host@${pod.nodeName}`), peer: id(`${pod.namespace}|${labelKey(pod.labels)}`) };
  c.parts[dir].set(pod, parts);
  return parts;
}

interface PodClass {
  readonly members: PodInfo[];
  readonly rules: readonly Rule[];
  readonly signature: string;
  readonly identity: string;
}

// Per cluster, the last partitions made: a question over a port list partitions the pods the
// same way for every port (features and keys of 10⁴ pods were a quarter of a 16-port list).
const partitions = new WeakMap<Cluster, Map<string, readonly PodClass[]>>();
const KEPT_PARTITIONS = 16;

/**
 * The other pods in classes every rule treats alike, for a fixed endpoint. `cidrPeers`: the
 * fixed endpoint's CIDR peers when it has rules (it tells peers apart), else null. `namedPort`:
 * the question names its port.
 */
function classesOf(cluster: Cluster, who: boolean, fixed: EndpointSpec, fixedPod: PodInfo | null, fixedNode: { readonly name: string } | null, cidrPeers: readonly Extract<Peer, { type: 'cidrs' }>[] | null, namedPort: boolean, podsIn: string | undefined): readonly PodClass[] {
  const kept = partitions.get(cluster) ?? partitions.set(cluster, new Map()).get(cluster)!;
  const memoKey = `${who}|${namedPort}|${podsIn ?? ''}|${JSON.stringify(fixed)}`;
  const hit = kept.get(memoKey);
  if (hit) return hit;
  // A class key has two halves: what the pod's own side depends on (its policies: the group
  // signature) and what the fixed endpoint's side sees of it (its identity as a peer).
  const classes = new Map<string, PodClass>();
  for (const pod of podsAnswered(cluster, podsIn)) {
    if (pod === fixedPod) continue;
    const { group, signature: sig, peer } = podParts(cluster, pod, who ? 'egress' : 'ingress');
    const signature = `s${sig}`;
    const families = familySequenceKey(pod);
    const identity = cidrPeers
      ? [pod.hostNetwork ? `host@${pod.nodeName}` : '', peer, families, cidrMembershipKey(cidrPeers, pod), who ? '' : namedPortsInOrderKey(pod)].join('|')
      : [pod.hostNetwork ? `host@${pod.nodeName}` : '', families, !who && namedPort ? namedPortsInOrderKey(pod) : ''].join('|');
    const locality = fixedNode === null ? '' : pod.nodeName === fixedNode.name ? 'local' : 'remote';
    const key = `${signature}|${identity}|${locality}`;
    (classes.get(key) ?? classes.set(key, { members: [], rules: group?.rules ?? [], signature, identity }).get(key)!).members.push(pod);
  }
  const out = [...classes.values()];
  if (kept.size >= KEPT_PARTITIONS) kept.delete(kept.keys().next().value!);
  kept.set(memoKey, out);
  return out;
}

/** The pods a who/what question answers for: those of its namespace ("who in monitoring can reach …"), else every pod. */
export function podsAnswered(cluster: Cluster, podsIn: string | undefined): readonly PodInfo[] {
  return podsIn === undefined ? cluster.pods : (cluster.podsByNamespace.get(podsIn) ?? []);
}

/** How many pods a who/what question answers for, the fixed pod (never compared with itself) not counted. */
export function podsCounted(cluster: Cluster, podsIn: string | undefined, fixedPod: PodInfo | null): number {
  return podsAnswered(cluster, podsIn).length - (fixedPod && (podsIn === undefined || fixedPod.namespace === podsIn) ? 1 : 0);
}

/** How a sentence says which pods were answered: " in namespace shop", or "" for all. */
export const podsInText = (podsIn: string | undefined): string => (podsIn === undefined ? '' : ` in namespace ${podsIn}`);

/** Who reaches the fixed endpoint (or what it reaches), one evaluation per class and port segment. */
export function reach(cluster: Cluster, q: SetQuery, work: Work = newWork()): ReachClass[] {
  const who = q.kind === 'who';
  const fixed = who ? q.to : q.from;
  const fixedPod = podOf(cluster, fixed);
  if ('pod' in fixed && !fixedPod && !nodeOf(cluster, fixed)) throw new FlowError(who ? 'to' : 'from', `no pod "${fixed.pod}" in the snapshot`);
  // A namespace the snapshot does not hold is a typo, not "no pod": said, as an unknown name is.
  if (q.podsIn !== undefined && !cluster.nsByName.has(q.podsIn) && !cluster.podsByNamespace.has(q.podsIn)) throw new FlowError(who ? 'from' : 'to', `no namespace "${q.podsIn}" in the snapshot`);
  const fixedRules = rulesOf(cluster, fixedPod, who ? 'ingress' : 'egress');
  const cidrPeers = fixedRules.flatMap((r) => r.peers.filter((p): p is Extract<Peer, { type: 'cidrs' }> => p.type === 'cidrs'));
  const fixedPort = who && q.port !== null ? portOn(cluster, fixed, q.port, q.protocol) : null;
  // "traffic to and from the node where a Pod is running is always allowed": when the fixed
  // endpoint is a node (its address, or a host-network pod: its traffic is its node's), a pod
  // on that node and one elsewhere differ even if every rule treats them alike (engine.ts).
  const fixedNode = nodeOf(cluster, fixed);
  // A fixed endpoint without rules (an address outside the cluster, a node, a pod no policy
  // selects that way) tells no peer apart: its side decides alike for every pod, so only what
  // the engine reads besides rules splits the others — address families, node locality, and
  // the destinations' named ports when one is asked by name.
  const seesPeers = fixedRules.length > 0;

  const classes = classesOf(cluster, who, fixed, fixedPod, fixedNode, seesPeers ? cidrPeers : null, typeof q.port === 'string', q.podsIn);
  return classes.map(({ members, rules, signature, identity }): ReachClass => {
    const rep = members[0]!;
    const [from, to] = who ? [{ pod: rep.key }, fixed] : [fixed, { pod: rep.key }];
    if (work.evaluations >= MAX_EVALUATIONS) return { members, ranges: null, ports: '', skipped: 'budget' };
    if (q.port === null) {
      const sides: Sides = who
        ? { egress: rules, ingress: fixedRules, keys: { egress: signature, ingress: identity }, first: 'egress' }
        : { egress: fixedRules, ingress: rules, keys: { egress: identity, ingress: signature }, first: 'ingress' };
      const ranges = probe(cluster, from, to, protocolsOf(q), work, sides);
      return { members, ranges, ports: formatPorts(ranges, protocolsOf(q)) };
    }
    const p = fixedPort ?? (typeof q.port === 'number' || namedPort(rep, q.port, q.protocol) ? portOn(cluster, to, q.port, q.protocol) : null);
    if (!p) return { members, ranges: null, ports: '', skipped: 'no-such-named-port' };
    const ranges = probe(cluster, from, to, [p.protocol], work, p.port);
    return { members, ranges, ports: ranges[p.protocol]!.length > 0 ? p.text : '' };
  });
}
