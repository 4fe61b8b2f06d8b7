// Readable aggregates of a connectivity delta: class changes grouped by the workloads at each
// end (namespace + workload label), the ports, the kind of change and the rules that decided
// before and after — a reviewer reads "dev app=api → prod app=db, TCP 5432, now denied by …",
// not thousands of pod pairs. A group that covers every pod of a namespace is named by the
// namespace. Every aggregate keeps its parts (class pair, family) so it expands back to the
// exact pairs it stands for.
import type { SideVerdict } from '../evaluate/engine.js';
import { reasonOf } from '../evaluate/explain.js';
import { formatPorts, type PortRanges } from '../evaluate/side-runs.js';
import { PROTOCOLS } from '../policy/model.js';
import { workloadLabel } from '../snapshot/workload.js';
import type { Both, Classes, EndpointClass } from './classes.js';
import { flowKey, inLocality, type ClassChange, type FlowDecision } from './delta.js';

export type IpFamilyName = 'IPv4' | 'IPv6';

/** One end of an aggregate. */
export type EndpointGroup =
  /**
   * Pods of `namespaces`: one workload (`workload`), every pod of them (`whole`), or a mix;
   * `groups` names what was merged ("payments", "shop app=web"); `pods` of `of` pods present
   * in both snapshots (of the workload when there is one).
   */
  | { readonly kind: 'pods'; readonly namespaces: readonly string[]; readonly workload: string | null; readonly whole: boolean; readonly groups: readonly string[]; readonly pods: number; readonly of: number }
  | { readonly kind: 'nodes'; readonly nodes: readonly string[] }
  | { readonly kind: 'external'; readonly cidrs: readonly string[] };

/** The rule that decided one side (a side verdict without its trace); null rule/policy: NetworkPolicy isolation or the default. */
export type Decider = Omit<SideVerdict, 'trace'>;

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

/** The same decision with NetworkPolicy isolation named generically, for an aggregate over several namespaces. */
function generic(d: FlowDecision): FlowDecision {
  const side = (dir: 'egress' | 'ingress', v: SideVerdict | null): SideVerdict | null => {
    if (!v || v.tier !== 'networkpolicy' || v.policy !== null) return v;
    const last = v.trace[v.trace.length - 1]!;
    return { ...v, trace: [...v.trace.slice(0, -1), { ...last, message: `isolated for ${dir} by the NetworkPolicies of its namespace; no rule allows this flow` }] };
  };
  return { ...d, egress: side('egress', d.egress), ingress: side('ingress', d.ingress) };
}

function explain(d: FlowDecision, texts: ReadonlySet<string>): Explanation {
  const text = texts.size === 1 ? [...texts][0]! : reasonOf(generic(d));
  return { allowed: d.allowed, text, ...(d.reason ? { reason: d.reason } : {}), egress: decider(d.egress), ingress: decider(d.ingress) };
}

type End =
  | { readonly kind: 'pods'; readonly namespaces: readonly string[]; readonly workload: string | null; readonly whole: boolean; readonly groups: readonly string[] }
  | { readonly kind: 'nodes' | 'external' };

const endKey = (e: End) => (e.kind === 'pods' ? `pods|${e.namespaces.join(',')}|${e.workload ?? ''}|${e.whole ? 1 : 0}` : e.kind);

interface Acc {
  readonly change: Aggregate['change'];
  readonly ends: readonly [End, End];
  /** Everything but the ends: change, decisions before and after, ports. */
  readonly rest: string;
  readonly ranges: PortRanges;
  readonly decisions: readonly [FlowDecision, FlowDecision];
  readonly texts: readonly [Set<string>, Set<string>];
  readonly families: Set<IpFamilyName>;
  pairs: number;
  /** Class pairs counted in `pairs` (a pair changed in both families counts once). */
  readonly counted: Set<number>;
  readonly parts: PartRef[];
  readonly classes: readonly [Set<number>, Set<number>];
}

/** Pods by namespace and workload; every node together; every external range together. */
function endOf(c: EndpointClass): End {
  if (c.kind !== 'pods') return { kind: c.kind };
  const [ns, workload] = [c.rep.head.namespace, workloadLabel(c.rep.head.labels)];
  return { kind: 'pods', namespaces: [ns], workload, whole: false, groups: [`${ns} ${workload || '(no labels)'}`] };
}

function merge(group: readonly Acc[], at: 0 | 1, end: End): Acc {
  const first = group[0]!;
  const ends: [End, End] = at === 0 ? [end, first.ends[1]] : [first.ends[0], end];
  const out: Acc = { ...first, ends, texts: [new Set(), new Set()], families: new Set(), pairs: 0, counted: new Set(), parts: [], classes: [new Set(), new Set()] };
  for (const a of group) {
    out.pairs += a.pairs;
    for (const k of a.counted) out.counted.add(k);
    out.parts.push(...a.parts);
    for (const f of a.families) out.families.add(f);
    for (const i of [0, 1] as const) {
      for (const t of a.texts[i]) out.texts[i].add(t);
      for (const id of a.classes[i]) out.classes[i].add(id);
    }
  }
  return out;
}

/** Accs that differ only in the pods end `at`, grouped by `extra` of that end (null: leave alone). */
function regroup(list: readonly Acc[], at: 0 | 1, extra: (e: End & { kind: 'pods' }) => string | null, combine: (group: readonly Acc[]) => End | null): Acc[] {
  const groups = new Map<string, Acc[]>();
  const out: Acc[] = [];
  for (const a of list) {
    const e = a.ends[at];
    const x = e.kind === 'pods' ? extra(e) : null;
    if (x === null) {
      out.push(a);
      continue;
    }
    const key = `${endKey(a.ends[1 - at]!)}\u0001${a.rest}\u0001${x}`;
    (groups.get(key) ?? groups.set(key, []).get(key)!).push(a);
  }
  for (const group of groups.values()) {
    const end = combine(group);
    if (end) out.push(merge(group, at, end));
    else out.push(...group);
  }
  return out;
}

/** A class pair (and node-locality group) as one number, for `classes` classes: the endpoint pairs a change stands for, in any family. */
export const pairKey = (ch: ClassChange, classes: number): number => (ch.from * classes + ch.to) * 5 + (ch.locality ? 1 + 2 * +ch.locality.base + +ch.locality.head : 0);

const podCount = (c: EndpointClass) => (c.kind === 'pods' ? c.members.length : 0);
/** Pods at one end of a group of accs (each class once). */
const podsAt = (classes: Classes, group: readonly Acc[], at: 0 | 1) => [...new Set(group.flatMap((a) => [...a.classes[at]]))].reduce((n, id) => n + podCount(classes.all[id]!), 0);

export function aggregate(classes: Classes, changes: readonly ClassChange[]): Aggregate[] {
  const accs = new Map<string, Acc>();
  // Class pairs alike share their change's objects (delta.ts): what is read of those, once.
  const reasons = new Map<FlowDecision, string>();
  const reason = (d: FlowDecision) => reasons.get(d) ?? reasons.set(d, reasonOf(d)).get(d)!;
  const rests = new Map<PortRanges, { before: FlowDecision; after: FlowDecision; ranges: PortRanges; rest: string; id: number }>();
  // Ends and rests interned as small numbers: the acc key is short whatever the decisions' text.
  const ends = new Map<EndpointClass, { end: End; id: number }>();
  const endIds = new Map<string, number>();
  const end = (c: EndpointClass) => {
    let e = ends.get(c);
    if (!e) {
      const made = endOf(c);
      const k = endKey(made);
      ends.set(c, (e = { end: made, id: endIds.get(k) ?? endIds.set(k, endIds.size).get(k)! }));
    }
    return e;
  };
  const restIds = new Map<string, number>();
  for (const ch of changes) {
    let r = rests.get(ch.ranges);
    if (!r || r.before !== ch.before || r.after !== ch.after) {
      const ranges: PortRanges = Object.fromEntries(PROTOCOLS.filter((p) => ch.ranges[p]).map((p) => [p, ch.ranges[p]!]));
      const rest = `${ch.change}\u0001${flowKey(ch.before)}\u0001${flowKey(ch.after)}\u0001${JSON.stringify(ranges)}`;
      rests.set(ch.ranges, (r = { before: ch.before, after: ch.after, ranges, rest, id: restIds.get(rest) ?? restIds.set(rest, restIds.size).get(rest)! }));
    }
    const { ranges, rest } = r;
    const [from, to] = [end(classes.all[ch.from]!), end(classes.all[ch.to]!)];
    const key = `${from.id},${to.id},${r.id}`;
    let acc = accs.get(key);
    if (!acc) accs.set(key, (acc = { change: ch.change, ends: [from.end, to.end], rest, ranges, decisions: [ch.before, ch.after], texts: [new Set(), new Set()], families: new Set(), pairs: 0, counted: new Set(), parts: [], classes: [new Set(), new Set()] }));
    acc.texts[0].add(reason(ch.before));
    acc.texts[1].add(reason(ch.after));
    acc.families.add(familyName(ch.family));
    const pair = pairKey(ch, classes.all.length);
    if (!acc.counted.has(pair)) {
      acc.counted.add(pair);
      acc.pairs += ch.pairs;
    }
    acc.parts.push({ from: ch.from, to: ch.to, family: familyName(ch.family), ...(ch.locality ? { locality: ch.locality } : {}) });
    acc.classes[0].add(ch.from);
    acc.classes[1].add(ch.to);
  }
  let list = [...accs.values()];
  for (const at of [0, 1] as const) {
    // Workloads that together are every pod of their namespace: the namespace.
    list = regroup(list, at, (e) => (e.namespaces.length === 1 ? e.namespaces[0]! : null), (group) => {
      const ns = (group[0]!.ends[at] as End & { kind: 'pods' }).namespaces[0]!;
      return podsAt(classes, group, at) === classes.podsPerNamespace.get(ns) ? { kind: 'pods', namespaces: [ns], workload: null, whole: true, groups: [ns] } : null;
    });
  }
  for (const at of [0, 1] as const) {
    // The same change in several namespaces: one aggregate naming them.
    list = regroup(list, at, () => '', (group) => {
      if (group.length === 1) return null;
      const ends = group.map((a) => a.ends[at] as End & { kind: 'pods' });
      const workloads = new Set(ends.map((e) => e.workload));
      const namespaces = [...new Set(ends.flatMap((e) => e.namespaces))].sort();
      const groups = [...new Set(ends.flatMap((e) => e.groups))].sort();
      return { kind: 'pods', namespaces, workload: workloads.size === 1 ? [...workloads][0]! : null, whole: ends.every((e) => e.whole), groups };
    });
  }
  return list
    .map((a): Aggregate => ({
      change: a.change,
      from: describeEnd(classes, a, 0),
      to: describeEnd(classes, a, 1),
      ports: formatPorts(a.ranges, PROTOCOLS),
      ranges: a.ranges,
      families: [...a.families].sort(),
      pairs: a.pairs,
      before: explain(a.decisions[0], a.texts[0]),
      after: explain(a.decisions[1], a.texts[1]),
      parts: a.parts,
    }))
    .sort((a, b) => (a.change === b.change ? 0 : a.change === 'removed' ? -1 : 1) || b.pairs - a.pairs || cmp(groupText(a.from), groupText(b.from)) || cmp(groupText(a.to), groupText(b.to)) || cmp(a.ports, b.ports));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function describeEnd(classes: Classes, a: Acc, at: 0 | 1): EndpointGroup {
  const end = a.ends[at];
  const members = [...a.classes[at]].map((id) => classes.all[id]!);
  if (end.kind === 'pods') {
    const pods = members.reduce((n, c) => n + podCount(c), 0);
    const inNamespaces = classes.pods.filter((c) => end.namespaces.includes(c.rep.head.namespace));
    const of = end.whole ? pods : inNamespaces.filter((c) => end.workload === null || workloadLabel(c.rep.head.labels) === end.workload).reduce((n, c) => n + c.members.length, 0);
    return { kind: 'pods', namespaces: end.namespaces, workload: end.workload, whole: end.whole, groups: end.groups, pods, of };
  }
  if (end.kind === 'nodes') {
    // Node → pod parts hold only the nodes whose pairs are in their locality group.
    const nodes = new Set<string>();
    for (const part of a.parts) {
      const node = classes.all[at === 0 ? part.from : part.to]!;
      const pod = classes.all[at === 0 ? part.to : part.from]!;
      if (node.kind !== 'nodes') continue;
      for (const m of node.members) if (pod.kind !== 'pods' || pod.nodes.some((where) => inLocality(m.node, where, part.locality))) nodes.add(m.node);
    }
    return { kind: 'nodes', nodes: [...nodes].sort() };
  }
  return { kind: 'external', cidrs: members.flatMap((c) => (c.kind === 'external' ? c.cidrs : [])) };
}

/**
 * "shop app=web (2 of 3 pods)", "namespace dev (all 12 pods)", "app=api in namespaces a, b
 * (4 pods)", "payments, shop app=web (2 of 3 pods)", "nodes node-1, node-2", "external 0.0.0.0/5, …".
 */
export function groupText(g: EndpointGroup): string {
  if (g.kind === 'pods') {
    const count = g.whole && g.pods > 1 ? `all ${g.pods} pods` : g.pods === g.of ? `${g.pods} pod${g.pods === 1 ? '' : 's'}` : `${g.pods} of ${g.of} pods`;
    const one = g.namespaces.length === 1;
    const nss = `namespace${one ? '' : 's'} ${listed(g.namespaces)}`;
    if (g.whole) return `${nss} (${count})`;
    if (g.workload !== null) return one ? `${g.namespaces[0]} ${g.workload || '(no labels)'} (${count})` : `${g.workload || '(no labels)'} in ${nss} (${count})`;
    return `${listed(g.groups)} (${count})`;
  }
  if (g.kind === 'nodes') return `node${g.nodes.length === 1 ? '' : 's'} ${listed(g.nodes)}`;
  return `external ${listed(g.cidrs)}`;
}

function listed(items: readonly string[], n = 4): string {
  return items.length > n ? `${items.slice(0, n).join(', ')} and ${items.length - n} more` : items.join(', ');
}
