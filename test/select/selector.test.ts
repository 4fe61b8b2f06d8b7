// Label selector semantics and the interning cache against a brute-force reading of
// metav1.LabelSelector: matchLabels are In-requirements, everything is ANDed, NotIn and
// DoesNotExist hold for objects without the key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SelectorCache } from '../../core/select/cache.js';
import { canonicalSelectorKey, compileSelector, type LabelSelectorSpec, type SelectorRequirement } from '../../schemas/k8s/label-selector.js';
import { assertProperty } from '../support/property.js';

const KEYS = ['app', 'tier', 'env'];
const VALUES = ['a', 'b', 'c'];
const labels = fc.dictionary(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES), { maxKeys: 3 });
const requirement: fc.Arbitrary<SelectorRequirement> = fc.oneof(
  fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('In' as const, 'NotIn' as const), values: fc.uniqueArray(fc.constantFrom(...VALUES), { minLength: 1 }) }),
  fc.record({ key: fc.constantFrom(...KEYS), operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
);
const selector: fc.Arbitrary<LabelSelectorSpec> = fc.record({ matchLabels: labels, matchExpressions: fc.array(requirement, { maxLength: 3 }) });

function bruteForce(sel: LabelSelectorSpec, l: Record<string, string>): boolean {
  const reqs: SelectorRequirement[] = [
    ...Object.entries(sel.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'In' as const, values: [v] })),
    ...(sel.matchExpressions ?? []),
  ];
  return reqs.every((r) => {
    const has = r.key in l;
    if (r.operator === 'In') return has && r.values!.includes(l[r.key]!);
    if (r.operator === 'NotIn') return !has || !r.values!.includes(l[r.key]!);
    if (r.operator === 'Exists') return has;
    return !has;
  });
}

describe('label selectors', () => {
  it('match like the brute-force reading of the spec', () => {
    assertProperty(fc.property(selector, labels, (sel, l) => { expect(compileSelector(sel).matches(l)).toBe(bruteForce(sel, l)); }), { file: import.meta.url });
  });

  it('an empty selector matches everything', () => {
    assertProperty(fc.property(labels, (l) => { expect(compileSelector({}).matches(l)).toBe(true); }), { file: import.meta.url });
  });

  it('canonical keys ignore order and repeated values, and equal keys mean equal answers', () => {
    assertProperty(
      fc.property(selector, fc.array(labels, { minLength: 1, maxLength: 20 }), (sel, samples) => {
        const shuffled: LabelSelectorSpec = {
          matchLabels: Object.fromEntries(Object.entries(sel.matchLabels ?? {}).reverse()),
          matchExpressions: [...(sel.matchExpressions ?? [])].reverse().map((e) => ({ ...e, values: e.values ? [...e.values, ...e.values].reverse() : undefined })),
        };
        expect(canonicalSelectorKey(shuffled)).toBe(canonicalSelectorKey(sel));
        for (const l of samples) expect(compileSelector(shuffled).matches(l)).toBe(compileSelector(sel).matches(l));
      }),
      { file: import.meta.url },
    );
  });

  it('the cache interns equal selectors once and answers like the compiled selector', () => {
    assertProperty(
      fc.property(fc.array(selector, { minLength: 1, maxLength: 8 }), fc.array(labels, { minLength: 1, maxLength: 30 }), (sels, podLabels) => {
        const pods = podLabels.map((l) => ({ labels: l }));
        const cache = new SelectorCache({ pods, namespaces: [], nodes: [] });
        const ids = sels.map((s) => cache.intern(s));
        expect(cache.size).toBe(new Set(sels.map(canonicalSelectorKey)).size);
        sels.forEach((s, i) => {
          const expected = pods.map((p, idx) => (bruteForce(s, p.labels) ? idx : -1)).filter((x) => x >= 0);
          expect(cache.podsMatching(ids[i]!)).toEqual(expected);
          pods.forEach((p, idx) => expect(cache.matchesPod(ids[i]!, idx)).toBe(bruteForce(s, p.labels)));
        });
      }),
      { file: import.meta.url },
    );
  });
});
