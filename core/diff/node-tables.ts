// What a node agent must change to go from one version's tables to another's: tables to add
// (with their rules), tables to drop, and pods whose bindings changed. Content-addressed
// tables make this a set difference.
import type { IrPod } from '../compile/ir.js';

export interface NodeBindings {
  readonly pods: Readonly<Record<string, IrPod>>;
  readonly global: string | null;
  readonly tableIds: readonly string[];
}

export interface NodeDiff {
  readonly tablesAdded: readonly string[];
  readonly tablesRemoved: readonly string[];
  /** Pods added or whose addresses or table bindings changed; null for pods that are gone. */
  readonly bindingsChanged: Readonly<Record<string, IrPod | null>>;
  readonly globalChanged: boolean;
}

const samePod = (a: IrPod, b: IrPod) => a.ingress === b.ingress && a.egress === b.egress && a.ips.join(',') === b.ips.join(',');

export function diffNode(from: NodeBindings, to: NodeBindings): NodeDiff {
  const before = new Set(from.tableIds);
  const after = new Set(to.tableIds);
  const bindingsChanged: Record<string, IrPod | null> = {};
  for (const [key, pod] of Object.entries(to.pods).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const old = from.pods[key];
    if (!old || !samePod(old, pod)) bindingsChanged[key] = pod;
  }
  for (const key of Object.keys(from.pods).sort()) if (!(key in to.pods)) bindingsChanged[key] = null;
  return {
    tablesAdded: [...after].filter((id) => !before.has(id)).sort(),
    tablesRemoved: [...before].filter((id) => !after.has(id)).sort(),
    bindingsChanged,
    globalChanged: from.global !== to.global,
  };
}
