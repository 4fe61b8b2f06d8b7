// The per-node rule-table delta of a preview: what each node agent would install and drop
// going from the base to the head snapshot. Tables are content-addressed (compile/table-id.ts),
// so the delta is a set difference per node (diff/node-tables.ts), as the stored-snapshot route
// serves it to agents. Its own stage: compiling is the slow part of a preview.
import type { Cluster } from '../cluster.js';
import type { Sha256Hex } from '../compile/table-id.js';
import { compile, type CompileStats } from '../compile/compile.js';
import type { IrNode } from '../compile/ir.js';
import { diffNode, type NodeBindings } from '../diff/node-tables.js';
import type { Both } from './classes.js';
import { nameRecord, own } from '../names-record.js';

export interface NodeTablesDelta {
  readonly tablesAdded: readonly string[];
  readonly tablesRemoved: readonly string[];
  /** Rules in the added and in the removed tables. */
  readonly rulesAdded: number;
  readonly rulesRemoved: number;
  /** Pods added, removed, or bound to other tables or addresses. */
  readonly podsRebound: number;
  readonly globalChanged: boolean;
}

export interface TablesDelta {
  /** Only nodes where something changes, by name. */
  readonly nodes: Readonly<Record<string, NodeTablesDelta>>;
  readonly unchangedNodes: number;
  readonly stats: Both<CompileStats>;
}

const EMPTY: IrNode = { pods: {}, tables: {}, global: null };
const bindings = (n: IrNode): NodeBindings => ({ pods: n.pods, global: n.global, tableIds: Object.keys(n.tables) });

export function tablesDelta(clusters: Both<Cluster>, sha256Hex?: Sha256Hex): TablesDelta {
  const base = compile(clusters.base, sha256Hex ? { sha256Hex } : {});
  const head = compile(clusters.head, sha256Hex ? { sha256Hex } : {});
  const names = [...new Set([...Object.keys(base.ir.nodes), ...Object.keys(head.ir.nodes)])].sort();
  const nodes = nameRecord<NodeTablesDelta>();
  let unchangedNodes = 0;
  for (const name of names) {
    const [from, to] = [own(base.ir.nodes, name) ?? EMPTY, own(head.ir.nodes, name) ?? EMPTY];
    const d = diffNode(bindings(from), bindings(to));
    const podsRebound = Object.keys(d.bindingsChanged).length;
    if (d.tablesAdded.length === 0 && d.tablesRemoved.length === 0 && podsRebound === 0 && !d.globalChanged) {
      unchangedNodes++;
      continue;
    }
    const rules = (n: IrNode, ids: readonly string[]) => ids.reduce((sum, id) => sum + (n.tables[id]?.length ?? 0), 0);
    nodes[name] = { tablesAdded: d.tablesAdded, tablesRemoved: d.tablesRemoved, rulesAdded: rules(to, d.tablesAdded), rulesRemoved: rules(from, d.tablesRemoved), podsRebound, globalChanged: d.globalChanged };
  }
  return { nodes, unchangedNodes, stats: { base: base.stats, head: head.stats } };
}
