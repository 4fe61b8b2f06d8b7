// Selectors are interned: each distinct selector is compiled once per snapshot and its
// answers for each pod, namespace and node are memoised, so every policy that uses the
// same selector shares one resolution (cilium's selector cache, in miniature).
import { compileSelector, canonicalSelectorKey, type CompiledSelector, type Labels, type LabelSelectorSpec } from '../../schemas/k8s/label-selector.js';

export type SelectorId = number;


const YES = 1;
const NO = 2;

export interface LabelledSets {
  readonly pods: readonly { readonly labels: Labels }[];
  readonly namespaces: readonly { readonly labels: Labels }[];
  readonly nodes: readonly { readonly labels: Labels }[];
}

export class SelectorCache {
  private readonly ids = new Map<string, SelectorId>();
  private readonly idsAsWritten = new Map<string, SelectorId>();
  private readonly compiled: CompiledSelector[] = [];
  // Memo arrays are allocated on first use: most selectors (a NetworkPolicy's podSelector) are
  // only ever asked about the pods of one namespace, and L-sized snapshots have ~10⁵ selectors.
  private readonly podMemo: (Uint8Array | undefined)[] = [];
  private readonly nsMemo: (Uint8Array | undefined)[] = [];
  private readonly nodeMemo: (Uint8Array | undefined)[] = [];
  private readonly podLists = new Map<SelectorId, number[]>();
  private readonly nsLists = new Map<SelectorId, number[]>();

  constructor(private readonly sets: LabelledSets) {}

  /**
   * A cache for other pods, namespaces and nodes that keeps this one's selector ids (and
   * compiled selectors), so policies built against this cache stay valid against the new one.
   * Answers about the same pod, namespace or node list (a change of pods carries the namespace
   * and node lists along, a change of policies all three) are shared: they are about the same
   * labels, and a change asks thousands of selectors about them again. Answers about other pods
   * are not kept.
   */
  forSets(sets: LabelledSets): SelectorCache {
    const next = new SelectorCache(sets);
    // Canonical keys carry over (selector ids must); texts as written are learnt again.
    for (const [key, id] of this.ids) next.ids.set(key, id);
    for (const c of this.compiled) next.compiled.push(c);
    carry(next.podMemo, this.podMemo, sets.pods === this.sets.pods, this.compiled.length);
    carry(next.nsMemo, this.nsMemo, sets.namespaces === this.sets.namespaces, this.compiled.length);
    carry(next.nodeMemo, this.nodeMemo, sets.nodes === this.sets.nodes, this.compiled.length);
    if (sets.namespaces === this.sets.namespaces) for (const [id, list] of this.nsLists) next.nsLists.set(id, list);
    if (sets.pods === this.sets.pods) for (const [id, list] of this.podLists) next.podLists.set(id, list);
    return next;
  }

  intern(sel: LabelSelectorSpec): SelectorId {
    // Policies from one template repeat their selectors as written: the text as written finds
    // the id without putting the selector in canonical form again.
    const written = JSON.stringify(sel);
    const known = this.idsAsWritten.get(written);
    if (known !== undefined) return known;
    const key = canonicalSelectorKey(sel);
    const found = this.ids.get(key);
    if (found !== undefined) {
      this.idsAsWritten.set(written, found);
      return found;
    }
    const id = this.compiled.length;
    this.ids.set(key, id);
    this.idsAsWritten.set(written, id);
    this.compiled.push(compileSelector(sel));
    this.podMemo.push(undefined);
    this.nsMemo.push(undefined);
    this.nodeMemo.push(undefined);
    return id;
  }

  get size(): number {
    return this.compiled.length;
  }

  selector(id: SelectorId): CompiledSelector {
    return this.compiled[id]!;
  }

  matchesPod(id: SelectorId, podIdx: number): boolean {
    return this.answer(this.podMemo, this.sets.pods, id, podIdx);
  }

  matchesNamespace(id: SelectorId, nsIdx: number): boolean {
    return this.answer(this.nsMemo, this.sets.namespaces, id, nsIdx);
  }

  matchesNode(id: SelectorId, nodeIdx: number): boolean {
    return this.answer(this.nodeMemo, this.sets.nodes, id, nodeIdx);
  }

  // No closure per question: these are asked millions of times while compiling.
  private answer(memos: (Uint8Array | undefined)[], items: readonly { readonly labels: Labels }[], id: SelectorId, idx: number): boolean {
    const cells = (memos[id] ??= new Uint8Array(items.length));
    const cell = cells[idx];
    if (cell === YES) return true;
    if (cell === NO) return false;
    const v = this.compiled[id]!.matches(items[idx]!.labels);
    cells[idx] = v ? YES : NO;
    return v;
  }

  /** Every pod index the selector matches, resolved once. */
  podsMatching(id: SelectorId): readonly number[] {
    return listOnce(this.podLists, id, this.sets.pods.length, (i) => this.matchesPod(id, i));
  }

  /** Every namespace index the selector matches, resolved once. */
  namespacesMatching(id: SelectorId): readonly number[] {
    return listOnce(this.nsLists, id, this.sets.namespaces.length, (i) => this.matchesNamespace(id, i));
  }
}

/**
 * Memo arrays for a new cache: the same arrays when the objects asked about are the same (the
 * cells are answers about their labels, filled by whichever cache asks first), empty otherwise.
 */
function carry(to: (Uint8Array | undefined)[], from: readonly (Uint8Array | undefined)[], same: boolean, length: number): void {
  to.length = length;
  if (same) for (let i = 0; i < length; i++) to[i] = from[i];
}

/** The indexes below count that match, resolved once per selector. */
function listOnce(lists: Map<SelectorId, number[]>, id: SelectorId, count: number, matches: (i: number) => boolean): readonly number[] {
  let list = lists.get(id);
  if (!list) {
    list = [];
    for (let i = 0; i < count; i++) if (matches(i)) list.push(i);
    lists.set(id, list);
  }
  return list;
}

