// "what changed for shop/web since version 3?": a pod's (or each pod of a workload's or a
// Service's) verdicts as source and as destination against every other pod, on every port
// (port ranges per protocol, as "who can reach" answers), in two stored versions; what became
// allowed and what became denied, grouped, with one example flow's decision chain in each
// version. Pods in only one of the versions are counted, not compared.
import type { Cluster } from '../cluster.js';
import { FlowError, type EndpointSpec } from '../evaluate/resolve.js';
import { subtractRanges } from '../evaluate/side-runs.js';
import { PROTOCOLS } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { exampleOf, type Example } from './chain.js';
import { describePods, MAX_GROUPS_IN_TEXT, MAX_ITEMS_IN_TEXT, MAX_MEMBERS, NotPods, podsNamed } from './describe.js';
import { hedge, hedged } from './hedge.js';
import type { Query } from './parse.js';
import { formatPorts, MAX_EVALUATIONS, newWork, reach, type PortRanges } from './reach.js';

type ChangedQuery = Extract<Query, { kind: 'changed' }>;

/** Pods of a name compared at most; more would be one answer per pod anyway. */
export const MAX_SUBJECTS = 10;

export interface Change {
  /** outgoing: the pod asked about is the source. */
  readonly direction: 'outgoing' | 'incoming';
  readonly pod: string;
  readonly became: 'allowed' | 'denied';
  readonly ports: string;
  readonly ranges: PortRanges;
  readonly pods: number;
  readonly members: readonly string[];
  readonly example: { readonly before: Example; readonly after: Example };
}
export interface ChangedAnswer {
  readonly kind: 'changed';
  readonly text: string;
  readonly query: Query;
  readonly since: string;
  readonly version: string;
  readonly pods: readonly string[];
  /** Other pods compared (in both versions). */
  readonly compared: number;
  readonly changes: readonly Change[];
  readonly notes: readonly string[];
}

/** The pods `spec` names in one version; null when it names nothing there. */
function podsOf(cluster: Cluster, spec: EndpointSpec): PodInfo[] | null {
  try {
    return podsNamed(cluster, spec, '"what changed"');
  } catch (e) {
    // Named nothing in this version (the other may have it); not a pod at all is the asker's to fix.
    if (e instanceof FlowError && !(e instanceof NotPods)) return null;
    throw e;
  }
}

/** One budget of engine calls for the whole answer (reach.ts's MAX_EVALUATIONS), and the peers it left unexamined. */
interface Budget {
  evaluations: number;
  skipped: number;
}

/** Peer pod key → allowed ranges, for one pod as source ('what') or destination ('who'). */
function verdicts(cluster: Cluster, kind: 'what' | 'who', key: string, budget: Budget): Map<string, PortRanges> {
  const q = kind === 'what' ? { kind, from: { pod: key }, port: null, protocol: null } as const : { kind, to: { pod: key }, port: null, protocol: null } as const;
  const out = new Map<string, PortRanges>();
  // Side results are never shared between calls: they depend on the fixed pod.
  const work = newWork();
  work.evaluations = budget.evaluations;
  const classes = reach(cluster, q, work);
  budget.evaluations = work.evaluations;
  for (const c of classes) {
    if (!c.ranges) budget.skipped += c.members.length;
    else for (const m of c.members) out.set(m.key, c.ranges);
  }
  return out;
}

export function answerChanged(before: Cluster, after: Cluster, q: ChangedQuery, versions: { readonly since: string; readonly version: string }): ChangedAnswer {
  const [was, is] = [podsOf(before, q.subject), podsOf(after, q.subject)];
  const name = 'pod' in q.subject ? q.subject.pod : q.subject.ip;
  if (!was && !is) throw new FlowError('from', `"${name}" names no pod in version ${versions.since} nor in version ${versions.version}`);
  const beforeKeys = new Set((was ?? []).map((p) => p.key));
  const both = (is ?? []).filter((p) => beforeKeys.has(p.key)).sort((a, b) => (a.key < b.key ? -1 : 1));
  const notes: string[] = [];
  const onlyIn = (keys: string[], v: string) => (keys.length > 0 ? [`${keys.slice(0, 3).join(', ')}${keys.length > 3 ? ` and ${keys.length - 3} more` : ''} only in version ${v}`] : []);
  notes.push(...onlyIn([...beforeKeys].filter((k) => !both.some((p) => p.key === k)), versions.since), ...onlyIn((is ?? []).filter((p) => !beforeKeys.has(p.key)).map((p) => p.key), versions.version));
  if (both.length > MAX_SUBJECTS) notes.push(`compared the first ${MAX_SUBJECTS} of ${both.length} pods`);

  const budget: Budget = { evaluations: 0, skipped: 0 };
  const groups = new Map<string, { direction: Change['direction']; pod: string; became: Change['became']; ranges: PortRanges; members: PodInfo[] }>();
  const peers = new Set<string>();
  for (const subject of both.slice(0, MAX_SUBJECTS)) {
    for (const [kind, direction] of [['what', 'outgoing'], ['who', 'incoming']] as const) {
      const [b, a] = [verdicts(before, kind, subject.key, budget), verdicts(after, kind, subject.key, budget)];
      for (const [peer, ra] of a) {
        const rb = b.get(peer);
        const pod = after.podByKey.get(peer);
        if (!rb || !pod) continue;
        peers.add(peer);
        for (const [became, x, y] of [['allowed', ra, rb], ['denied', rb, ra]] as const) {
          const ranges: PortRanges = Object.fromEntries(PROTOCOLS.map((p) => [p, subtractRanges(x[p] ?? [], y[p] ?? [])]));
          const ports = formatPorts(ranges, PROTOCOLS);
          if (ports === '') continue;
          const key = `${direction}|${subject.key}|${became}|${ports}`;
          (groups.get(key) ?? groups.set(key, { direction, pod: subject.key, became, ranges, members: [] }).get(key)!).members.push(pod);
        }
      }
    }
  }
  if (budget.skipped > 0) notes.push(`stopped after ${MAX_EVALUATIONS} evaluations: ${budget.skipped} pod comparisons not made`);

  const changes = [...groups.values()].map((g): Change => {
    const protocol = PROTOCOLS.find((p) => (g.ranges[p]?.length ?? 0) > 0)!;
    const port = g.ranges[protocol]![0]![0];
    const [from, to] = g.direction === 'outgoing' ? [{ pod: g.pod }, { pod: g.members[0]!.key }] : [{ pod: g.members[0]!.key }, { pod: g.pod }];
    const subject = after.podByKey.get(g.pod) ?? null;
    const members = describePods(after, g.members, subject);
    return { direction: g.direction, pod: g.pod, became: g.became, ports: formatPorts(g.ranges, PROTOCOLS), ranges: g.ranges, pods: g.members.length, members: members.slice(0, MAX_MEMBERS), example: { before: exampleOf(before, from, to, port, protocol), after: exampleOf(after, from, to, port, protocol) } };
  });
  changes.sort((a, b) => (a.became < b.became ? -1 : a.became > b.became ? 1 : b.pods - a.pods));

  const several = both.length > 1;
  const item = (c: Change) => `${several ? `${c.pod} ` : ''}${c.direction === 'outgoing' ? 'to' : 'from'} ${c.members.slice(0, MAX_ITEMS_IN_TEXT).join(', ')}${c.members.length > MAX_ITEMS_IN_TEXT ? ` and ${c.members.length - MAX_ITEMS_IN_TEXT} more` : ''} (${c.ports})`;
  const part = (became: Change['became']) => {
    const cs = changes.filter((c) => c.became === became);
    if (cs.length === 0) return [];
    const shown = cs.slice(0, MAX_GROUPS_IN_TEXT).map(item);
    return [`newly ${became}: ${shown.join('; ')}${cs.length > MAX_GROUPS_IN_TEXT ? `; and ${cs.length - MAX_GROUPS_IN_TEXT} more` : ''}`];
  };
  const span = `between version ${versions.since} and version ${versions.version}`;
  const tail = notes.length > 0 ? ` (${notes.join('; ')})` : '';
  const said = both.length === 0
    ? `Nothing to compare for ${name} ${span}: no pod of it is in both versions${tail}.`
    : changes.length === 0
      ? `Nothing changed for ${name} ${span}: the same verdicts to and from ${peers.size} other pods on every port${tail}.`
      : `${name} changed ${span} (to and from ${peers.size} other pods, every port) — ${[...part('allowed'), ...part('denied')].join(' — ')}${tail}.`;
  return { kind: 'changed', text: hedged(said, hedge(after, null, [])), query: q, since: versions.since, version: versions.version, pods: both.map((p) => p.key), compared: peers.size, changes, notes };
}
