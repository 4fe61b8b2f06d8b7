// "is anything exposed to the internet in ns shop?": which pods of a namespace accept traffic
// from an address outside the cluster, on which ports. One evaluation from a representative
// public address (internet.ts) per class of pods whose ingress policies are the same (pods that
// share a policy signature have the same verdicts for the same reasons, compile/group.ts) and
// whose named ports are the same, with one example flow and its decision chain per class.
import { namedPortsInOrderKey } from '../classes/features.js';
import type { Cluster } from '../cluster.js';
import { groupOf } from '../compile/group.js';
import { FlowError } from '../evaluate/resolve.js';
import type { Family } from '../net/ip.js';
import { PROTOCOLS, type Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { exampleOf, type Example } from './chain.js';
import { describePods, MAX_GROUPS_IN_TEXT, MAX_ITEMS_IN_TEXT, MAX_MEMBERS, namedPort } from './describe.js';
import { hedge, hedged, SOURCE_REWRITE } from './hedge.js';
import { representative, type Representative } from './internet.js';
import type { Query } from './parse.js';
import { formatPorts, newWork, probe, rulesOf } from './reach.js';

type ExposedQuery = Extract<Query, { kind: 'exposed' }>;

export interface ExposedGroup {
  readonly from: string;
  /** As asked ("TCP 443"), or the allowed port ranges per protocol. */
  readonly ports: string;
  readonly pods: number;
  readonly members: readonly string[];
  readonly example: Example;
}
export interface ExposedAnswer {
  readonly kind: 'exposed';
  readonly text: string;
  readonly query: Query;
  readonly namespace: string;
  /** The address evaluated as "the internet", per family the namespace's pods have. */
  readonly representatives: readonly Representative[];
  readonly exposed: number;
  readonly of: number;
  /** Exposed pods by source address and ports, most pods first. */
  readonly groups: readonly ExposedGroup[];
  readonly caveats: readonly string[];
}

const familiesOf = (pods: readonly PodInfo[]): Family[] => {
  const f = new Set(pods.flatMap((p) => p.ips.map((i) => i.family)));
  return f.size === 0 ? [4] : [...f].sort();
};

export function answerExposed(cluster: Cluster, q: ExposedQuery): ExposedAnswer {
  if (!cluster.nsByName.has(q.namespace) && !cluster.podsByNamespace.has(q.namespace)) throw new FlowError('to', `no namespace "${q.namespace}" in the snapshot`);
  const pods = cluster.podsByNamespace.get(q.namespace) ?? [];
  const protocols: readonly Protocol[] = q.protocol ? [q.protocol] : PROTOCOLS;
  const reps = familiesOf(pods).map((f) => ({ family: f, rep: representative(cluster, f) }));
  const work = newWork();
  const exposedPods = new Set<PodInfo>();
  const groups = new Map<string, { from: string; ports: string; members: PodInfo[]; example: Example }>();
  const noNamedPort: PodInfo[] = [];
  for (const { family, rep } of reps) {
    // Pods the ingress side treats alike: the same policies, the same named ports; a host-network pod is its node.
    const classes = new Map<string, PodInfo[]>();
    for (const pod of pods) {
      if (pod.ips.length > 0 && !pod.ips.some((i) => i.family === family)) continue;
      const key = pod.hostNetwork ? `host@${pod.nodeName}` : `${groupOf(cluster, pod, 'ingress').policySignature}|${namedPortsInOrderKey(pod)}`;
      (classes.get(key) ?? classes.set(key, []).get(key)!).push(pod);
    }
    for (const members of classes.values()) {
      const dst = members[0]!;
      const [from, to] = [{ ip: rep.ip }, { pod: dst.key }];
      let ports: string;
      let at: [number, Protocol];
      if (q.port === null) {
        const ranges = probe(cluster, from, to, protocols, work, { egress: [], ingress: rulesOf(cluster, dst, 'ingress') });
        ports = formatPorts(ranges, protocols);
        const open = protocols.find((p) => (ranges[p]?.length ?? 0) > 0);
        if (!open) continue;
        at = [ranges[open]![0]![0], open];
      } else {
        const np = typeof q.port === 'string' ? namedPort(dst, q.port, q.protocol) : { port: q.port, protocol: q.protocol ?? 'TCP' };
        if (!np) {
          noNamedPort.push(...members);
          continue;
        }
        at = [np.port, np.protocol];
        ports = `${np.protocol} ${np.port}${typeof q.port === 'string' ? ` (${q.port})` : ''}`;
      }
      const example = exampleOf(cluster, from, to, at[0], at[1]);
      if (!example.allowed) continue;
      for (const m of members) exposedPods.add(m);
      const key = `${rep.ip}|${ports}`;
      const g = groups.get(key) ?? groups.set(key, { from: rep.ip, ports, members: [], example }).get(key)!;
      g.members.push(...members);
    }
  }
  const listed = [...groups.values()]
    .sort((a, b) => b.members.length - a.members.length || (a.ports < b.ports ? -1 : 1))
    .map((g): ExposedGroup => ({ from: g.from, ports: g.ports, pods: g.members.length, members: describePods(cluster, g.members, null).slice(0, MAX_MEMBERS), example: g.example }));

  const asFrom = reps.map((r) => r.rep.ip).join(' and ');
  const onPort = q.port === null ? (q.protocol ? ` on ${q.protocol}` : '') : ` on ${typeof q.port === 'number' ? `${q.protocol ?? 'TCP'} ${q.port}` : q.port}`;
  const items = (g: ExposedGroup) => `${g.members.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${g.members.length > MAX_ITEMS_IN_TEXT ? ` and ${g.members.length - MAX_ITEMS_IN_TEXT} more` : ''} (${g.ports}${reps.length > 1 ? ` from ${g.from}` : ''})`;
  const shown = listed.slice(0, MAX_GROUPS_IN_TEXT).map(items);
  if (listed.length > MAX_GROUPS_IN_TEXT) shown.push(`and ${listed.length - MAX_GROUPS_IN_TEXT} more port sets`);
  const holds = reps.flatMap(({ rep }) => [
    ...(rep.outside.length > 0 ? [`outside ${rep.outside.slice(0, 4).join(', ')}${rep.outside.length > 4 ? ` and ${rep.outside.length - 4} more` : ''}`] : []),
    ...(rep.inside.length > 0 ? [`inside ${rep.inside.slice(0, 4).join(', ')}`] : []),
  ]);
  const notes = [
    ...(holds.length > 0 ? [`this holds for public addresses ${holds.join(' and ')}, which policies name`] : []),
    ...(noNamedPort.length > 0 ? [`${noNamedPort.length} have no port named ${q.port}`] : []),
  ];
  const tail = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  const said = pods.length === 0
    ? `Nothing is exposed in namespace ${q.namespace}: it has no pods.`
    : exposedPods.size === 0
      ? `No: no pod of namespace ${q.namespace} accepts traffic from the internet${onPort} (evaluated from ${asFrom}; 0 of ${pods.length} pods)${tail}.`
      : `Yes: ${exposedPods.size} of ${pods.length} pods of namespace ${q.namespace} accept traffic from the internet${onPort} (evaluated from ${asFrom}): ${shown.join('; ')}${tail}.`;
  const caveats = [SOURCE_REWRITE];
  const h = hedge(cluster, exposedPods.size === 0 ? false : exposedPods.size === pods.length ? true : null, [...exposedPods]);
  const text = hedged(said, pods.length === 0 ? h : h === '' ? ` — but ${SOURCE_REWRITE}` : `${h}; ${SOURCE_REWRITE}`);
  return { kind: 'exposed', text, query: q, namespace: q.namespace, representatives: reps.map((r) => r.rep), exposed: exposedPods.size, of: pods.length, groups: listed, caveats };
}
