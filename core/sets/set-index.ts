// Which sets a relabel can reach: sets by the label keys their pod selector reads. A relabel
// changes a pod's share of a set only if the set's pod selector reads a label whose value
// changed (incremental.ts); sets that read no pod label (namespace-only, empty-selector, CIDR
// and node sets) are never reached by one. Keyed by set id (the hash of the definition), so an
// index stays true for every version holding those ids, and grows with the ids new versions add.
import type { IrSet, SetDefinition, SetId } from './ir.js';

export class SetLabelIndex {
  private readonly byLabel = new Map<string, SetId[]>();
  private readonly indexed = new Set<SetId>();

  static of(sets: Readonly<Record<SetId, IrSet>>): SetLabelIndex {
    const index = new SetLabelIndex();
    for (const id in sets) index.add(id, sets[id]!.definition);
    return index;
  }

  add(id: SetId, definition: SetDefinition): void {
    if (this.indexed.has(id)) return;
    this.indexed.add(id);
    const d = definition.type === 'named-port' ? definition.of : definition;
    if (d === null || d.type !== 'pods' || d.pods === null) return;
    const keys = new Set([...Object.keys(d.pods.matchLabels ?? {}), ...(d.pods.matchExpressions ?? []).map((e) => e.key)]);
    for (const key of keys) {
      const list = this.byLabel.get(key);
      if (list) list.push(id);
      else this.byLabel.set(key, [id]);
    }
  }

  /** Every indexed set whose pod selector reads one of `keys`. */
  reading(keys: Iterable<string>): Set<SetId> {
    const out = new Set<SetId>();
    for (const key of keys) for (const id of this.byLabel.get(key) ?? []) out.add(id);
    return out;
  }
}

/** Label keys whose value differs between two label maps (added, removed or changed). */
export function changedLabelKeys(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const k in a) if (a[k] !== b[k]) out.push(k);
  for (const k in b) if (!(k in a)) out.push(k);
  return out;
}
