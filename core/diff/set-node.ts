// What a node agent must change to go from one version's set form to another's, for its node
// only: set members added and removed per set id (Antrea's AddressGroupPatch), sets and tables
// the node starts or stops needing, and pods whose bindings changed. Sets keep their ids when
// members change and tables are content-addressed, so a one-pod relabel is a few elements.
import { parseAddressOrCidr } from '../net/ip.js';
import type { IrSet, PortElement, RuleTable, SetIr, SetNode, SetPod } from '../sets/ir.js';
import { own } from '../names-record.js';

/** One node's part of the set form: what its pods need and nothing of other nodes. */
export interface NodeSlice {
  readonly addresses: readonly string[];
  readonly pods: Readonly<Record<string, SetPod>>;
  readonly sets: Readonly<Record<string, IrSet>>;
  readonly tables: Readonly<Record<string, RuleTable>>;
}

export interface MemberChange {
  /** The set's members hash after the change. */
  readonly hash: string;
  readonly add: { readonly v4: readonly string[]; readonly v6: readonly string[] } | { readonly elements: readonly PortElement[] };
  readonly remove: { readonly v4: readonly string[]; readonly v6: readonly string[] } | { readonly elements: readonly PortElement[] };
}

export interface NodeDelta {
  /** The node's addresses, when they changed. */
  readonly addresses?: readonly string[];
  readonly setsAdded: Readonly<Record<string, IrSet>>;
  readonly setsRemoved: readonly string[];
  readonly setsChanged: Readonly<Record<string, MemberChange>>;
  readonly tablesAdded: Readonly<Record<string, RuleTable>>;
  readonly tablesRemoved: readonly string[];
  /** Pods added or whose addresses or table bindings changed; null for pods that are gone. */
  readonly bindingsChanged: Readonly<Record<string, SetPod | null>>;
}

/** A node's slice of a whole set form. */
export function sliceOf(ir: SetIr, node: string): NodeSlice | null {
  const n: SetNode | undefined = own(ir.nodes, node);
  if (!n) return null;
  return { addresses: n.addresses, pods: n.pods, sets: Object.fromEntries(n.sets.map((id) => [id, ir.sets.get(id)!])), tables: Object.fromEntries(n.tables.map((id) => [id, ir.tables.get(id)!])) };
}

const sorted = (xs: Iterable<string>) => [...xs].sort();
const without = <T>(list: readonly T[], drop: ReadonlySet<string>, key: (t: T) => string) => list.filter((x) => !drop.has(key(x)));
const elementKey = (e: PortElement) => e.join('|');
const samePod = (a: SetPod, b: SetPod) => a.ingress === b.ingress && a.egress === b.egress && a.ips.join(',') === b.ips.join(',');

function memberChange(from: IrSet, to: IrSet): MemberChange | null {
  if (from.hash === to.hash) return null;
  if (from.kind === 'addresses' && to.kind === 'addresses') {
    // b's Set is built once per list, not once per member of a (10⁴ members were 10⁸ inserts).
    const diff = (a: readonly string[], b: readonly string[]) => {
      const inB = new Set(b);
      return a.filter((x) => !inB.has(x));
    };
    return { hash: to.hash, add: { v4: diff(to.v4, from.v4), v6: diff(to.v6, from.v6) }, remove: { v4: diff(from.v4, to.v4), v6: diff(from.v6, to.v6) } };
  }
  if (from.kind === 'ports' && to.kind === 'ports') {
    const had = new Set(from.elements.map(elementKey));
    const has = new Set(to.elements.map(elementKey));
    return { hash: to.hash, add: { elements: to.elements.filter((e) => !had.has(elementKey(e))) }, remove: { elements: from.elements.filter((e) => !has.has(elementKey(e))) } };
  }
  throw new Error('a set id names one kind of set');
}

export function nodeDelta(from: NodeSlice, to: NodeSlice): NodeDelta {
  const setsAdded: Record<string, IrSet> = {};
  const setsChanged: Record<string, MemberChange> = {};
  for (const id of sorted(Object.keys(to.sets))) {
    const before = from.sets[id];
    if (!before) setsAdded[id] = to.sets[id]!;
    else {
      const change = memberChange(before, to.sets[id]!);
      if (change) setsChanged[id] = change;
    }
  }
  const tablesAdded: Record<string, RuleTable> = {};
  for (const id of sorted(Object.keys(to.tables))) if (!from.tables[id]) tablesAdded[id] = to.tables[id]!;
  const bindingsChanged: Record<string, SetPod | null> = {};
  for (const key of sorted(Object.keys(to.pods))) {
    const old = from.pods[key];
    if (!old || !samePod(old, to.pods[key]!)) bindingsChanged[key] = to.pods[key]!;
  }
  for (const key of sorted(Object.keys(from.pods))) if (!(key in to.pods)) bindingsChanged[key] = null;
  return {
    ...(from.addresses.join(',') !== to.addresses.join(',') ? { addresses: to.addresses } : {}),
    setsAdded,
    setsRemoved: sorted(Object.keys(from.sets).filter((id) => !(id in to.sets))),
    setsChanged,
    tablesAdded,
    tablesRemoved: sorted(Object.keys(from.tables).filter((id) => !(id in to.tables))),
    bindingsChanged,
  };
}

/** CIDR blocks in address order, as compileSets writes them. */
const byAddress = (a: string, b: string) => {
  const [x, y] = [parseAddressOrCidr(a)!, parseAddressOrCidr(b)!];
  return x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : x.hi < y.hi ? -1 : x.hi > y.hi ? 1 : 0;
};

/** Port elements in compileSets' order: family, address, protocol, port. */
const byElement = (a: PortElement, b: PortElement) => {
  const [x, y] = [parseAddressOrCidr(a[0])!, parseAddressOrCidr(b[0])!];
  return x.family - y.family || (x.lo < y.lo ? -1 : x.lo > y.lo ? 1 : 0) || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || a[2] - b[2];
};

function applyChange(set: IrSet, change: MemberChange): IrSet {
  if (set.kind === 'addresses' && 'v4' in change.add && 'v4' in change.remove) {
    const [add, remove] = [change.add, change.remove];
    const next = (list: readonly string[], plus: readonly string[], minus: readonly string[]) => [...without(list, new Set(minus), (x) => x), ...plus].sort(byAddress);
    return { ...set, v4: next(set.v4, add.v4, remove.v4), v6: next(set.v6, add.v6, remove.v6), hash: change.hash };
  }
  if (set.kind === 'ports' && 'elements' in change.add && 'elements' in change.remove) {
    return { ...set, elements: [...without(set.elements, new Set(change.remove.elements.map(elementKey)), elementKey), ...change.add.elements].sort(byElement), hash: change.hash };
  }
  throw new Error('a member change of another kind of set');
}

/** from + nodeDelta(from, to) = to: what an agent does with a delta. */
export function applyNodeDelta(from: NodeSlice, delta: NodeDelta): NodeSlice {
  const sets: Record<string, IrSet> = {};
  for (const [id, set] of Object.entries(from.sets)) if (!delta.setsRemoved.includes(id)) sets[id] = delta.setsChanged[id] ? applyChange(set, delta.setsChanged[id]!) : set;
  Object.assign(sets, delta.setsAdded);
  const tables: Record<string, RuleTable> = {};
  for (const [id, t] of Object.entries(from.tables)) if (!delta.tablesRemoved.includes(id)) tables[id] = t;
  Object.assign(tables, delta.tablesAdded);
  const pods: Record<string, SetPod> = { ...from.pods };
  for (const [key, pod] of Object.entries(delta.bindingsChanged)) {
    if (pod) pods[key] = pod;
    else delete pods[key];
  }
  const sortKeys = <T>(r: Record<string, T>) => Object.fromEntries(sorted(Object.keys(r)).map((k) => [k, r[k]!]));
  return { addresses: delta.addresses ?? from.addresses, pods: sortKeys(pods), sets: sortKeys(sets), tables: sortKeys(tables) };
}
