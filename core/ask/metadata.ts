// "which pods can reach the cloud metadata address?": egress from every pod to the instance
// metadata endpoint (169.254.169.254; fd00:ec2::254 for pods with IPv6 addresses), one
// evaluation per class of pods whose egress policies are the same (compile/group.ts: pods that
// share a policy signature have the same verdicts for the same reasons), with one example flow
// and its decision chain per class.
import type { Cluster } from '../cluster.js';
import { groupsByIdentity } from '../compile/group.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { exampleOf, type Example } from './chain.js';
import { describePods, MAX_ITEMS_IN_TEXT, MAX_MEMBERS } from './describe.js';
import { hedge, hedged } from './hedge.js';
import type { Query } from './parse.js';
import { formatPorts, newWork, podsAnswered, podsInText, probe, rulesOf, type PortRanges } from './reach.js';
import { FlowError } from '../evaluate/resolve.js';

type MetadataQuery = Extract<Query, { kind: 'metadata' }>;

/** The link-local address clouds serve instance metadata (and credentials) on; AWS's IPv6 one. */
export const METADATA_ADDRESSES: Readonly<Record<4 | 6, string>> = { 4: '169.254.169.254', 6: 'fd00:ec2::254' };

export interface MetadataClass {
  readonly family: 'IPv4' | 'IPv6';
  readonly pods: number;
  readonly members: readonly string[];
  /** As asked ("TCP 80") or the allowed port ranges; "" when denied. */
  readonly ports: string;
  readonly example: Example;
}
export interface MetadataAnswer {
  readonly kind: 'metadata';
  readonly text: string;
  readonly query: Query;
  readonly addresses: readonly string[];
  readonly allowed: number;
  readonly of: number;
  /** Pods allowed, by namespace. */
  readonly namespaces: readonly { readonly namespace: string; readonly pods: number; readonly members: readonly string[] }[];
  readonly classes: readonly MetadataClass[];
}

const familiesOf = (pod: PodInfo): (4 | 6)[] => (pod.ips.length === 0 ? [4] : [...new Set(pod.ips.map((i) => i.family))].sort());

interface EgressClass {
  readonly family: 4 | 6;
  readonly members: PodInfo[];
  /** The members as the answer names them (describePods), made when first asked for. */
  described?: readonly string[];
}

// Per cluster: what the answer evaluates once per class does not depend on the port, and a
// list of ports ("on 80-95") asks it once per port (M: 16 × 10⁴ pods' egress policies).
const egressClasses = new WeakMap<Cluster, readonly EgressClass[]>();

/** Pods (per address family) whose egress is decided by the same policies for the same reasons. */
function classesOf(cluster: Cluster): readonly EgressClass[] {
  let classes = egressClasses.get(cluster);
  if (!classes) {
    const groupOf = groupsByIdentity(cluster);
    const byClass = new Map<string, EgressClass>();
    for (const pod of cluster.pods) {
      // Host-network pods send as their node: keyed by it, never by policies that do not select them.
      const signature = pod.hostNetwork ? `host@${pod.nodeName}` : groupOf(pod, 'egress').policySignature;
      for (const family of familiesOf(pod)) {
        const key = `${family}|${signature}`;
        (byClass.get(key) ?? byClass.set(key, { family, members: [] }).get(key)!).members.push(pod);
      }
    }
    egressClasses.set(cluster, (classes = [...byClass.values()]));
  }
  return classes;
}

/** The classes with only the pods of namespace `ns` (those that have any), or all of them. */
function classesIn(cluster: Cluster, ns: string | undefined): readonly EgressClass[] {
  if (ns === undefined) return classesOf(cluster);
  return classesOf(cluster).flatMap((c) => {
    const members = c.members.filter((p) => p.namespace === ns);
    return members.length === 0 ? [] : [{ family: c.family, members }];
  });
}

export function answerMetadata(cluster: Cluster, q: MetadataQuery): MetadataAnswer {
  const protocols: readonly Protocol[] = q.protocol ? [q.protocol] : PROTOCOLS;
  const work = newWork();
  const reaching = new Set<PodInfo>();
  // A namespace the snapshot does not hold is a typo, not "no pod".
  if (q.podsIn !== undefined && !cluster.nsByName.has(q.podsIn) && !cluster.podsByNamespace.has(q.podsIn)) throw new FlowError('from', `no namespace "${q.podsIn}" in the snapshot`);
  const classes = classesIn(cluster, q.podsIn).map((c): MetadataClass & { all: PodInfo[] } => {
    const { family, members } = c;
    const rep = members[0]!;
    const [from, to] = [{ pod: rep.key }, { ip: METADATA_ADDRESSES[family] }];
    let ports: string;
    let at: [number, Protocol];
    if (typeof q.port === 'number') {
      at = [q.port, q.protocol ?? 'TCP'];
      ports = '';
    } else {
      const ranges: PortRanges = probe(cluster, from, to, protocols, work, { egress: rulesOf(cluster, rep, 'egress'), ingress: [] });
      ports = formatPorts(ranges, protocols);
      const open = protocols.find((p) => (ranges[p]?.length ?? 0) > 0);
      at = open ? [ranges[open]![0]![0], open] : [80, protocols[0]!];
    }
    const example = exampleOf(cluster, from, to, at[0], at[1]);
    if (typeof q.port === 'number' && example.allowed) ports = `${at[1]} ${at[0]}`;
    if (ports !== '') for (const m of members) reaching.add(m);
    c.described ??= describePods(cluster, members, null).slice(0, MAX_MEMBERS);
    return { family: family === 4 ? 'IPv4' : 'IPv6', pods: members.length, members: [...c.described], ports, example, all: members };
  });
  classes.sort((a, b) => Number(b.ports !== '') - Number(a.ports !== '') || b.pods - a.pods);

  const byNs = new Map<string, PodInfo[]>();
  for (const p of reaching) (byNs.get(p.namespace) ?? byNs.set(p.namespace, []).get(p.namespace)!).push(p);
  const namespaces = [...byNs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([namespace, pods]) => ({ namespace, pods: pods.length, members: describePods(cluster, pods, null).slice(0, MAX_MEMBERS) }));

  const v6 = cluster.pods.some((p) => p.ips.some((i) => i.family === 6));
  const addresses = v6 ? [METADATA_ADDRESSES[4], METADATA_ADDRESSES[6]] : [METADATA_ADDRESSES[4]];
  const asked = typeof q.port === 'number' ? `${q.protocol ?? 'TCP'} ${q.port}` : q.protocol ? `any ${q.protocol} port` : 'any port';
  const target = `the cloud metadata address (${addresses.join(', ')}) on ${asked}`;
  const answered = podsAnswered(cluster, q.podsIn);
  const of = answered.length;
  const listed = describePods(cluster, [...reaching], null);
  const portSets = new Set(classes.filter((c) => c.ports !== '').map((c) => c.ports));
  const which = `${listed.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${listed.length > MAX_ITEMS_IN_TEXT ? ` and ${listed.length - MAX_ITEMS_IN_TEXT} more` : ''}`;
  const ports = typeof q.port !== 'number' && portSets.size > 0 ? ` (${[...portSets].slice(0, 3).join('; ')}${portSets.size > 3 ? '; …' : ''})` : '';
  const host = answered.filter((p) => p.hostNetwork).length;
  const within = podsInText(q.podsIn);
  const said = reaching.size === 0
    ? `No pod${within} can reach ${target} (0 of ${of} pods).`
    : `${reaching.size} of ${of} pods${within} can reach ${target}: ${which}${ports}${host > 0 ? `; ${host} host-network pod${host === 1 ? ' is' : 's are'} answered as ${host === 1 ? 'its node' : 'their nodes'}` : ''}.`;
  return {
    kind: 'metadata',
    text: hedged(said, hedge(cluster, reaching.size === 0 ? false : reaching.size === of ? true : null, [])),
    query: q,
    addresses,
    allowed: reaching.size,
    of,
    namespaces,
    classes: classes.map(({ all: _all, ...c }) => c),
  };
}
