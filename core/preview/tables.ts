// The per-node rule-table delta of a preview: what each node agent would change going from the
// base to the head snapshot, in the set form agents load (format=ir): tables it starts and
// stops needing (content-addressed, so a changed table is one added and one removed), sets it
// starts and stops needing, and members added and removed in the sets it keeps (sets keep
// their ids when members change: a one-pod relabel is a few elements). The same delta the
// stored-snapshot route serves agents (diff/set-node.ts), counted. Its own stage: compiling
// the base is the slow part of a preview.
import type { Cluster } from '../cluster.js';
import type { Sha256Hex } from '../compile/table-id.js';
import { nodeDelta, sliceOf, type MemberChange, type NodeSlice } from '../diff/set-node.js';
import { nameRecord, own } from '../names-record.js';
import { compileSets, type SetCompileStats, type SetFormChange } from '../sets/compile.js';
import type { RuleTable, SetIr } from '../sets/ir.js';
import type { Both } from './classes.js';
import type { ParsedSnapshot, SnapshotObject } from '../../schemas/snapshot.js';
import { canonicalJson, snapshotObjectKey } from '../snapshot/hash.js';
import { changeReuse } from '../sets/incremental.js';
import type { ChangedObject } from '../sets/policy-subjects.js';
import { SetIndex } from '../sets/set-index.js';

export interface NodeTablesDelta {
  /** Table ids the node starts and stops needing. */
  readonly tablesAdded: readonly string[];
  readonly tablesRemoved: readonly string[];
  /** Rules in the added and in the removed tables. */
  readonly rulesAdded: number;
  readonly rulesRemoved: number;
  /** Set ids the node starts and stops needing. */
  readonly setsAdded: readonly string[];
  readonly setsRemoved: readonly string[];
  /** Sets the node keeps whose members change, and the members (address blocks, port elements) added and removed in them. */
  readonly setsChanged: readonly string[];
  readonly membersAdded: number;
  readonly membersRemoved: number;
  /** Pods added, removed, or bound to other tables or addresses. */
  readonly podsRebound: number;
  /** The node's own addresses changed (node-local allowances follow them). */
  readonly addressesChanged: boolean;
}

export interface TablesDelta {
  /** Only nodes where something changes, by name. */
  readonly nodes: Readonly<Record<string, NodeTablesDelta>>;
  readonly unchangedNodes: number;
  readonly stats: Both<SetCompileStats>;
}

const EMPTY: NodeSlice = { addresses: [], pods: {}, sets: {}, tables: {} };
const ruleCount = (t: RuleTable | undefined) => (t ? t.admin.length + t.networkPolicy.rules.length + t.baseline.length : 0);
const members = (side: MemberChange['add']) => ('elements' in side ? side.elements.length : side.v4.length + side.v6.length);

/**
 * The objects the head changes (applied, replaced or deleted), by key and content; null when a
 * side holds one key twice (then what changed is not told by key).
 */
export function changedObjects(snapshots: Both<ParsedSnapshot>): ChangedObject[] | null {
  const base = new Map<string, SnapshotObject>();
  for (const o of snapshots.base.objects) base.set(snapshotObjectKey(o), o);
  if (base.size !== snapshots.base.objects.length) return null;
  const out: ChangedObject[] = [];
  const seen = new Set<string>();
  const ref = (o: SnapshotObject): ChangedObject => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
  for (const o of snapshots.head.objects) {
    const key = snapshotObjectKey(o);
    if (seen.has(key)) return null;
    seen.add(key);
    const b = base.get(key);
    // The same object (a head from changes shares the base's), the same text, or the same canonical text (keys in another order).
    if (b === o || (b !== undefined && (JSON.stringify(b) === JSON.stringify(o) || canonicalJson(b) === canonicalJson(o)))) continue;
    out.push(ref(o));
  }
  for (const [key, o] of base) if (!seen.has(key)) out.push(ref(o));
  return out;
}

/**
 * Both snapshots' set forms. The head is compiled from the base's (as a version from changes
 * is: sets/incremental.ts), and whole when what changed cannot be told by key; either way
 * equal to a full compile of the head, except `stats.groups` (the groups this run compiled).
 */
export function compiledSides(clusters: Both<Cluster>, snapshots: Both<ParsedSnapshot>, sha256Hex?: Sha256Hex): Both<{ ir: SetIr; stats: SetCompileStats }> & { change: SetFormChange | null } {
  const opts = sha256Hex ? { sha256Hex } : {};
  const base = compileSets(clusters.base, opts);
  const changed = changedObjects(snapshots);
  const reuse = changed && changeReuse({ cluster: clusters.base, ir: base.ir, stats: base.stats }, clusters.head, changed, () => SetIndex.of(base.ir.sets));
  const head = compileSets(clusters.head, opts, reuse ?? undefined);
  return { base, head: { ir: head.ir, stats: head.stats }, change: head.change ?? null };
}

export function tablesDelta(clusters: Both<Cluster>, snapshots: Both<ParsedSnapshot>, sha256Hex?: Sha256Hex): TablesDelta {
  const { base, head, change } = compiledSides(clusters, snapshots, sha256Hex);
  return { ...nodeDeltas({ base: base.ir, head: head.ir }, change), stats: { base: base.stats, head: head.stats } };
}

/** What each node changes from the base's set form to the head's; `change`: the head's compile from the base's, when it was. */
export function nodeDeltas(ir: Both<SetIr>, change: SetFormChange | null): Omit<TablesDelta, 'stats'> {
  const [base, head] = [{ ir: ir.base }, { ir: ir.head }];
  const names = [...new Set([...Object.keys(base.ir.nodes), ...Object.keys(head.ir.nodes)])].sort();
  const nodes = nameRecord<NodeTablesDelta>();
  // From the base's set form: a node whose record is the base's and names no set with a new
  // body is unchanged, without slicing both sides (10³ nodes of 10³ sets each at L).
  const newSets = new Set(change?.sets);
  const kept = (name: string) => {
    const n = own(head.ir.nodes, name);
    return change !== null && n !== undefined && n === own(base.ir.nodes, name) && !n.sets.some((id) => newSets.has(id));
  };
  let unchangedNodes = 0;
  for (const name of names) {
    if (kept(name)) {
      unchangedNodes++;
      continue;
    }
    const [from, to] = [sliceOf(base.ir, name) ?? EMPTY, sliceOf(head.ir, name) ?? EMPTY];
    const d = nodeDelta(from, to);
    const changes = Object.values(d.setsChanged);
    const delta: NodeTablesDelta = {
      tablesAdded: Object.keys(d.tablesAdded),
      tablesRemoved: d.tablesRemoved,
      rulesAdded: Object.values(d.tablesAdded).reduce((n, t) => n + ruleCount(t), 0),
      rulesRemoved: d.tablesRemoved.reduce((n, id) => n + ruleCount(from.tables[id]), 0),
      setsAdded: Object.keys(d.setsAdded),
      setsRemoved: d.setsRemoved,
      setsChanged: Object.keys(d.setsChanged),
      membersAdded: changes.reduce((n, c) => n + members(c.add), 0),
      membersRemoved: changes.reduce((n, c) => n + members(c.remove), 0),
      podsRebound: Object.keys(d.bindingsChanged).length,
      addressesChanged: d.addresses !== undefined,
    };
    if (delta.tablesAdded.length + delta.tablesRemoved.length + delta.setsAdded.length + delta.setsRemoved.length + delta.setsChanged.length + delta.podsRebound === 0 && !delta.addressesChanged) {
      unchangedNodes++;
      continue;
    }
    nodes[name] = delta;
  }
  return { nodes, unchangedNodes };
}
