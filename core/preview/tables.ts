// The per-node rule-table delta of a preview: what each node agent would change going from the
// base to the head snapshot, in the set form agents load (format=ir): tables it starts and
// stops needing (content-addressed, so a changed table is one added and one removed), sets it
// starts and stops needing, and members added and removed in the sets it keeps (sets keep
// their ids when members change: a one-pod relabel is a few elements). The same delta the
// stored-snapshot route serves agents (diff/set-node.ts), counted. Its own stage: compiling
// both snapshots is the slow part of a preview.
import type { Cluster } from '../cluster.js';
import type { Sha256Hex } from '../compile/table-id.js';
import { nodeDelta, sliceOf, type MemberChange, type NodeSlice } from '../diff/set-node.js';
import { nameRecord } from '../names-record.js';
import { compileSets, type SetCompileStats } from '../sets/compile.js';
import type { RuleTable } from '../sets/ir.js';
import type { Both } from './classes.js';

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

export function tablesDelta(clusters: Both<Cluster>, sha256Hex?: Sha256Hex): TablesDelta {
  const base = compileSets(clusters.base, sha256Hex ? { sha256Hex } : {});
  const head = compileSets(clusters.head, sha256Hex ? { sha256Hex } : {});
  const names = [...new Set([...Object.keys(base.ir.nodes), ...Object.keys(head.ir.nodes)])].sort();
  const nodes = nameRecord<NodeTablesDelta>();
  let unchangedNodes = 0;
  for (const name of names) {
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
  return { nodes, unchangedNodes, stats: { base: base.stats, head: head.stats } };
}
