// Compiles a cluster into per-node rule tables: one ingress and one egress table per pod,
// computed once per policy signature and shared by content address.
import type { Cluster } from '../cluster.js';
import { formatIp, type IpAddr } from '../net/ip.js';
import type { Direction } from '../policy/model.js';
import { globalTable } from './combine.js';
import { emitTable } from './emit.js';
import { groupOf } from './group.js';
import type { Ir, IrNode, IrPod, IrRule } from './ir.js';
import { partition } from './partition.js';
import { tableId } from './table-id.js';

export interface CompileOptions {
  /** Only these nodes (all by default). */
  readonly nodes?: readonly string[];
}

export interface CompileStats {
  readonly pods: number;
  readonly groups: number;
  readonly tables: number;
  readonly rules: number;
}

export function compile(cluster: Cluster, opts: CompileOptions = {}): { ir: Ir; stats: CompileStats } {
  const bySignature = new Map<string, IrRule[]>();
  const want = opts.nodes ? new Set(opts.nodes) : null;
  const nodeNames = [...new Set([...cluster.nodes.map((n) => n.name), ...cluster.pods.flatMap((p) => (p.nodeName ? [p.nodeName] : []))])].sort();
  const nodes: Record<string, IrNode> = {};
  let pods = 0;
  let rules = 0;
  const allTables = new Set<string>();

  for (const nodeName of nodeNames) {
    if (want && !want.has(nodeName)) continue;
    const nodeIps: readonly IpAddr[] = cluster.nodeByName.get(nodeName)?.ips ?? [];
    const podEntries: Record<string, IrPod> = {};
    const tables: Record<string, IrRule[]> = {};
    // "The node's own addresses are permitted into its pods": one leading rule per address,
    // so the rest of the table is compiled once per signature and shared across nodes.
    const nodeRules: IrRule[] = nodeIps.map((ip) => ({
      action: 'PERMIT',
      protocol: 'ANY',
      srcNetwork: `${formatIp(ip.family, ip.value)}/${ip.family === 4 ? 32 : 128}`,
      srcPortRange: null,
      dstNetwork: '',
      dstPortRange: null,
    }));
    const tableFor = (pod: (typeof cluster.pods)[number], dir: Direction): string => {
      const group = groupOf(cluster, pod, dir);
      let base = bySignature.get(group.signature);
      if (!base) {
        base = emitTable(partition(cluster, group), dir);
        bySignature.set(group.signature, base);
      }
      const table = dir === 'ingress' && nodeRules.length > 0 ? [...nodeRules, ...base] : base;
      const id = tableId(table);
      tables[id] = table;
      return id;
    };
    for (const pod of cluster.pods) {
      // Host-network pods get no tables: they are not policy subjects.
      if (pod.nodeName !== nodeName || pod.hostNetwork || pod.ips.length === 0) continue;
      podEntries[pod.key] = { ips: pod.ips.map((ip) => formatIp(ip.family, ip.value)), ingress: tableFor(pod, 'ingress'), egress: tableFor(pod, 'egress') };
      pods++;
    }
    // Contiv's node-global table (from-pod orientation): local pods' ingress rules for traffic entering the node.
    const global = globalTable({ pods: podEntries, tables, global: null }, 'from-pod');
    const globalId = tableId(global);
    tables[globalId] = global;
    const sortedTables = Object.fromEntries(Object.keys(tables).sort().map((id) => [id, tables[id]!]));
    for (const [id, t] of Object.entries(sortedTables)) {
      allTables.add(id);
      rules += t.length;
    }
    nodes[nodeName] = { pods: podEntries, tables: sortedTables, global: globalId };
  }
  return { ir: { nodes }, stats: { pods, groups: bySignature.size, tables: allTables.size, rules } };
}
