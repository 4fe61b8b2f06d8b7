// Label selector semantics of metav1.LabelSelector:
// "matchLabels and matchExpressions are ANDed. An empty label selector matches all objects."
// NotIn and DoesNotExist also match objects that lack the key (labels.Selector semantics).

export type Labels = Readonly<Record<string, string>>;

/**
 * The value of label `key`, or undefined when the object has no such label. Read as an own
 * property: `constructor` is a valid label key, and `labels.constructor` of an object without
 * that label is Object's, not undefined.
 */
export const labelValue = (labels: Labels, key: string): string | undefined => (Object.hasOwn(labels, key) ? labels[key] : undefined);

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  readonly values?: readonly string[] | undefined;
}

export interface LabelSelectorSpec {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
  readonly matchExpressions?: readonly SelectorRequirement[] | undefined;
}

/** A selector compiled to a canonical form: equal selectors get equal keys. */
export interface CompiledSelector {
  readonly key: string;
  readonly isEmpty: boolean;
  /** The label keys it reads, sorted and unique: objects equal on these get equal answers. */
  readonly keys: readonly string[];
  matches(labels: Labels): boolean;
}

export function canonicalSelectorKey(sel: LabelSelectorSpec): string {
  const labels = Object.entries(sel.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const exprs = (sel.matchExpressions ?? [])
    .map((e) => `${e.key}\u0000${e.operator}\u0000${[...new Set(e.values ?? [])].sort().join('\u0001')}`)
    .sort();
  return JSON.stringify([labels, [...new Set(exprs)]]);
}

export function compileSelector(sel: LabelSelectorSpec): CompiledSelector {
  const labels = Object.entries(sel.matchLabels ?? {});
  const exprs = (sel.matchExpressions ?? []).map((e) => ({ key: e.key, operator: e.operator, values: new Set(e.values ?? []) }));
  const key = canonicalSelectorKey(sel);
  return {
    key,
    isEmpty: labels.length === 0 && exprs.length === 0,
    keys: [...new Set([...labels.map(([k]) => k), ...exprs.map((e) => e.key)])].sort(),
    matches(target: Labels): boolean {
      // Direct reads: a value is a string, which no inherited member (constructor, …) equals.
      for (const [k, v] of labels) if (target[k] !== v) return false;
      for (const e of exprs) {
        const has = Object.prototype.hasOwnProperty.call(target, e.key);
        switch (e.operator) {
          case 'In':
            if (!has || !e.values.has(target[e.key]!)) return false;
            break;
          case 'NotIn':
            if (has && e.values.has(target[e.key]!)) return false;
            break;
          case 'Exists':
            if (!has) return false;
            break;
          case 'DoesNotExist':
            if (has) return false;
            break;
        }
      }
      return true;
    },
  };
}
