// Readable aggregates of a connectivity delta: class changes grouped by the workloads at each
// end (namespace + workload label), the ports, the kind of change and the rules that decided
// before and after — a reviewer reads "dev app=api → prod app=db, TCP 5432, now denied by …",
// not thousands of pod pairs. A group that covers every pod of a namespace is named by the
// namespace. Every aggregate keeps its parts (class pair, family) so it expands back to the
// exact pairs it stands for.
import type { TraceTier } from '../evaluate/engine.js';
import { reasonOf } from '../evaluate/explain.js';
import { formatPorts, type PortRanges } from '../evaluate/side-runs.js';
import { PROTOCOLS, type PolicyRef } from '../policy/model.js';
import type { RuleRef } from '../evaluate/engine.js';
import { workloadLabel } from '../snapshot/workload.js';
import type { Both, Classes, EndpointClass } from './classes.js';
import type { ClassChange, FlowDecision } from './delta.js';

export type IpFamilyName = 'IPv4' | 'IPv6';

/** One end of an aggregate. */
export type EndpointGroup =
  /** `workload` null: the whole namespace. `pods` of `of` pods present in both snapshots. */
  | { readonly kind: 'pods'; readonly namespace: string; readonly workload: string | null; readonly pods: number; readonly of: number }
  | { readonly kind: 'nodes'; readonly nodes: readonly string[] }
  | { readonly kind: 'external'; readonly cidrs: readonly string[] };

/** The rule that decided one side; null rule/policy: NetworkPolicy isolation or the default. */
export interface Decider {
  readonly allowed: boolean;
  readonly tier: TraceTier;
  readonly policy: PolicyRef | null;
  readonly rule: RuleRef | null;
}

export interface Explanation {
  readonly allowed: boolean;
  /** One clause: "denied at ingress by NetworkPolicy shop/db rule 0", … */
  readonly text: string;
  readonly reason?: 'node-local';
  readonly egress: Decider | null;
  readonly ingress: Decider | null;
}

/** A class pair in one family (and, node → pod, one locality) — aggregates expand through these. */
export interface PartRef {
  readonly from: number;
  readonly to: number;
  readonly family: IpFamilyName;
  readonly locality?: Both<boolean>;
}

export interface Aggregate {
  /** removed: allowed before, denied after; added: the reverse. */
  readonly change: 'removed' | 'added';
  readonly from: EndpointGroup;
  readonly to: EndpointGroup;
  /** "TCP 5432", "all ports", … */
  readonly ports: string;
  readonly ranges: PortRanges;
  readonly families: readonly IpFamilyName[];
  /** Endpoint pairs (pod pairs, pod–node address, pod–external range). */
  readonly pairs: number;
  readonly before: Explanation;
  readonly after: Explanation;
  readonly parts: readonly PartRef[];
}

const familyName = (f: 4 | 6): IpFamilyName => (f === 4 ? 'IPv4' : 'IPv6');

function decider(s: FlowDecision['egress']): Decider | null {
  return s ? { allowed: s.allowed, tier: s.tier, policy: s.policy, rule: s.rule } : null;
}

function explain(d: FlowDecision): Explanation {
  return { allowed: d.allowed, text: reasonOf(d), ...(d.reason ? { reason: d.reason } : {}), egress: decider(d.egress), ingress: decider(d.ingress) };
}

interface Acc {
  readonly change: Aggregate['change'];
  readonly ends: [string, string];
  readonly rest: string;
  readonly ranges: PortRanges;
  readonly before: Explanation;
  readonly after: Explanation;
  readonly families: Set<IpFamilyName>;
  pairs: number;
  readonly parts: PartRef[];
  readonly classes: [Set<number>, Set<number>];
}

/** The group key of a class: pods by namespace and workload, every node together, every external range together. */
function groupKey(c: EndpointClass): string {
  if (c.kind === 'pods') return `pods\u0000${c.rep.head.namespace}\u0000${workloadLabel(c.rep.head.labels)}`;
  return c.kind;
}

export function aggregate(classes: Classes, changes: readonly ClassChange[]): Aggregate[] {
  const accs = new Map<string, Acc>();
  for (const ch of changes) {
    const [before, after] = [explain(ch.before), explain(ch.after)];
    const ranges: PortRanges = Object.fromEntries(PROTOCOLS.filter((p) => ch.ranges[p]).map((p) => [p, ch.ranges[p]!]));
    const rest = `${ch.change}\u0001${before.text}\u0001${after.text}\u0001${JSON.stringify(ranges)}`;
    const ends: [string, string] = [groupKey(classes.all[ch.from]!), groupKey(classes.all[ch.to]!)];
    const key = `${ends.join('\u0001')}\u0001${rest}`;
    let acc = accs.get(key);
    if (!acc) accs.set(key, (acc = { change: ch.change, ends, rest, ranges, before, after, families: new Set(), pairs: 0, parts: [], classes: [new Set(), new Set()] }));
    acc.families.add(familyName(ch.family));
    acc.pairs += ch.pairs;
    acc.parts.push({ from: ch.from, to: ch.to, family: familyName(ch.family), ...(ch.locality ? { locality: ch.locality } : {}) });
    acc.classes[0].add(ch.from);
    acc.classes[1].add(ch.to);
  }
  let list = [...accs.values()];
  list = wholeNamespaces(classes, list, 0);
  list = wholeNamespaces(classes, list, 1);
  return list
    .map((a): Aggregate => ({
      change: a.change,
      from: describeEnd(classes, a.ends[0], a.classes[0]),
      to: describeEnd(classes, a.ends[1], a.classes[1]),
      ports: formatPorts(a.ranges, PROTOCOLS),
      ranges: a.ranges,
      families: [...a.families].sort(),
      pairs: a.pairs,
      before: a.before,
      after: a.after,
      parts: a.parts,
    }))
    .sort((a, b) => (a.change === b.change ? 0 : a.change === 'removed' ? -1 : 1) || b.pairs - a.pairs || cmp(groupText(a.from), groupText(b.from)) || cmp(groupText(a.to), groupText(b.to)) || cmp(a.ports, b.ports));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Merges the workloads of a namespace at one end into the namespace when, together, they are all of its pods. */
function wholeNamespaces(classes: Classes, list: Acc[], end: 0 | 1): Acc[] {
  const byRest = new Map<string, Acc[]>();
  for (const a of list) {
    const [kind, ns] = a.ends[end].split('\u0000');
    const key = kind === 'pods' ? `${a.ends[1 - end]}\u0001${a.rest}\u0001${ns}` : `\u0002${byRest.size}`;
    (byRest.get(key) ?? byRest.set(key, []).get(key)!).push(a);
  }
  const out: Acc[] = [];
  for (const group of byRest.values()) {
    const first = group[0]!;
    const [kind, ns] = first.ends[end].split('\u0000');
    const members = new Set(group.flatMap((a) => [...a.classes[end]]));
    const pods = [...members].reduce((n, id) => n + podCount(classes.all[id]!), 0);
    if (kind !== 'pods' || pods !== classes.podsPerNamespace.get(ns!)) {
      out.push(...group);
      continue;
    }
    const ends: [string, string] = end === 0 ? [`pods\u0000${ns}`, first.ends[1]] : [first.ends[0], `pods\u0000${ns}`];
    const merged: Acc = { ...first, ends, families: new Set(group.flatMap((a) => [...a.families])), pairs: 0, parts: [], classes: [new Set(), new Set()] };
    for (const a of group) {
      merged.pairs += a.pairs;
      merged.parts.push(...a.parts);
      for (const i of [0, 1] as const) for (const id of a.classes[i]) merged.classes[i].add(id);
    }
    out.push(merged);
  }
  return out;
}

const podCount = (c: EndpointClass) => (c.kind === 'pods' ? c.members.length : 0);

function describeEnd(classes: Classes, key: string, ids: ReadonlySet<number>): EndpointGroup {
  const members = [...ids].map((id) => classes.all[id]!);
  const [kind, ns, workload] = key.split('\u0000');
  if (kind === 'pods') {
    const pods = members.reduce((n, c) => n + podCount(c), 0);
    const of = workload === undefined
      ? classes.podsPerNamespace.get(ns!) ?? pods
      : classes.pods.filter((c) => c.rep.head.namespace === ns && workloadLabel(c.rep.head.labels) === workload).reduce((n, c) => n + c.members.length, 0);
    return { kind: 'pods', namespace: ns!, workload: workload ?? null, pods, of };
  }
  if (kind === 'nodes') return { kind: 'nodes', nodes: [...new Set(members.flatMap((c) => (c.kind === 'nodes' ? c.members.map((m) => m.node) : [])))].sort() };
  return { kind: 'external', cidrs: members.flatMap((c) => (c.kind === 'external' ? c.cidrs : [])) };
}

/** "shop app=web (2 of 3 pods)", "namespace dev (all 12 pods)", "nodes node-1, node-2", "external 0.0.0.0/5, …". */
export function groupText(g: EndpointGroup): string {
  if (g.kind === 'pods') {
    const count = g.pods === g.of ? `${g.pods === 1 ? '1 pod' : g.workload === null ? `all ${g.pods} pods` : `${g.pods} pods`}` : `${g.pods} of ${g.of} pods`;
    return g.workload === null ? `namespace ${g.namespace} (${count})` : `${g.namespace} ${g.workload || '(no labels)'} (${count})`;
  }
  if (g.kind === 'nodes') return `node${g.nodes.length === 1 ? '' : 's'} ${listed(g.nodes)}`;
  return `external ${listed(g.cidrs)}`;
}

function listed(items: readonly string[], n = 4): string {
  return items.length > n ? `${items.slice(0, n).join(', ')} and ${items.length - n} more` : items.join(', ');
}
