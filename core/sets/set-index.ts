// Which sets a pod change can reach, so the others keep their members without being looked at
// (10⁵ sets at L). A pod's share of a set depends on the set's pod selector and namespaces
// (incremental.ts): a relabel reaches only sets whose pod selector reads a label whose value
// changed; any pod change reaches only sets drawing from the pod's namespace by name (most
// NetworkPolicy peers) or from namespaces chosen otherwise (selectors, relative forms). CIDR
// and node sets are reached by no pod change (ports sets over CIDRs by any); node sets are
// listed for Node changes. Keyed by set id (the hash of the definition), so an index stays
// true for every version holding those ids and grows with the ids new versions add. Sets reading a label are grouped by their pod selector (thousands of
// sets share a few selectors, one per app label), so a relabel tries each selector once.
import { labelValue, type CompiledSelector, type Labels } from '../../schemas/k8s/label-selector.js';
import type { IdRecord } from './id-record.js';
import type { IrSet, SetDefinition, SetId } from './ir.js';
import { compiledPodSelector } from './resolve.js';

/** The sets whose pod selector is one selector, by the one namespace they draw from (null: several, or chosen otherwise). */
interface SelectorSets {
  readonly selector: CompiledSelector;
  readonly byNamespace: Map<string | null, SetId[]>;
}

/** A relabelled pod's namespace and labels before and after. */
export interface Relabel {
  readonly namespace: string;
  readonly before: Labels;
  readonly after: Labels;
}

export class SetIndex {
  private readonly byLabel = new Map<string, Map<string, SelectorSets>>();
  private readonly byNamespace = new Map<string, SetId[]>();
  private readonly anyNamespace: SetId[] = [];
  private readonly nodes: SetId[] = [];
  private readonly indexed = new Set<SetId>();

  static of(sets: IdRecord<IrSet>): SetIndex {
    const index = new SetIndex();
    for (const [id, set] of sets.entries()) index.add(id, set.definition);
    return index;
  }

  add(id: SetId, definition: SetDefinition): void {
    if (this.indexed.has(id)) return;
    this.indexed.add(id);
    const d = definition.type === 'named-port' ? definition.of : definition;
    if (d === null || d.type === 'cidrs' || d.type === 'named-port') {
      // Every pod (a ports set over any peer or over CIDRs): reached by every change, no relabel.
      if (definition.type === 'named-port') this.anyNamespace.push(id);
      return;
    }
    if (d.type === 'nodes') this.nodes.push(id);
    if (d.type !== 'pods') return;
    const ns = 'name' in d.namespaces ? d.namespaces.name : 'self' in d.namespaces ? d.namespaces.self : null;
    if (ns === null) this.anyNamespace.push(id);
    else push(this.byNamespace, ns, id);
    if (d.pods === null) return;
    const selector = compiledPodSelector(d.pods);
    // The label keys it reads, once each (compileSelector lists them).
    for (const key of selector.keys) {
      let bySelector = this.byLabel.get(key);
      if (!bySelector) this.byLabel.set(key, (bySelector = new Map()));
      let sets = bySelector.get(selector.key);
      if (!sets) bySelector.set(selector.key, (sets = { selector, byNamespace: new Map() }));
      const list = sets.byNamespace.get(ns);
      if (list) list.push(id);
      else sets.byNamespace.set(ns, [id]);
    }
  }

  /**
   * Every indexed set whose pod selector some relabelled pod matches on one side only: what the
   * relabels can reach. A selector that matches a pod on both sides or on neither keeps the pod's
   * share of its sets (incremental.ts), so its sets are not looked at; nor are sets of one named
   * namespace that no relabelled pod is in (most NetworkPolicy peers).
   */
  flippedBy(relabels: readonly Relabel[]): Set<SetId> {
    const out = new Set<SetId>();
    const tried = new Set<string>();
    for (const r of relabels) {
      for (const key of changedLabelKeys(r.before, r.after)) {
        for (const [selectorKey, sets] of this.byLabel.get(key) ?? []) {
          if (tried.has(selectorKey)) continue;
          tried.add(selectorKey);
          const flipped = relabels.filter((p) => sets.selector.matches(p.before) !== sets.selector.matches(p.after));
          if (flipped.length === 0) continue;
          for (const ns of new Set([null, ...flipped.map((p) => p.namespace)])) for (const id of sets.byNamespace.get(ns) ?? []) out.add(id);
        }
      }
    }
    return out;
  }

  /** Every indexed node set (what a Node change reaches). */
  nodeSets(): readonly SetId[] {
    return this.nodes;
  }

  /** Every indexed set a pod in one of `namespaces` can be in. */
  drawingFrom(namespaces: Iterable<string>): Set<SetId> {
    const out = new Set<SetId>(this.anyNamespace);
    for (const ns of namespaces) for (const id of this.byNamespace.get(ns) ?? []) out.add(id);
    return out;
  }
}

function push(m: Map<string, SetId[]>, key: string, id: SetId): void {
  const list = m.get(key);
  if (list) list.push(id);
  else m.set(key, [id]);
}

/**
 * Label keys whose value differs between two label maps (added, removed or changed). Own keys
 * only: `constructor` is a valid label key, and `'constructor' in a` is true of every object.
 */
export function changedLabelKeys(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const k of Object.keys(a)) if (labelValue(b, k) !== a[k]) out.push(k);
  for (const k of Object.keys(b)) if (!Object.hasOwn(a, k)) out.push(k);
  return out;
}
