// The canonical JSON written directly (core/snapshot/hash.ts canonicalJson) is byte for byte
// JSON.stringify of the key-sorted copy, on any JSON value and on objects holding what JSON
// leaves out (undefined members, undefined in arrays) and keys JSON must escape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonical, canonicalJson, objectJson, objectsJson } from '../../core/snapshot/hash.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(500);

/** Any JSON value, with undefined members and keys JSON must escape. */
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('v'), { maxKeys: 5 })),
})).v;

describe('canonical JSON', () => {
  it(`equals JSON.stringify(canonical(v)) (${RUNS} random values)`, () => {
    assertProperty(
      fc.property(value, (v) => {
        if (v === undefined) return;
        expect(canonicalJson(v)).toBe(JSON.stringify(canonical(v)));
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`on values already in key order (written by JSON.stringify) equals it too (${RUNS} random values)`, () => {
    assertProperty(
      fc.property(value, (v) => {
        if (v === undefined) return;
        const sorted = canonical(v);
        expect(canonicalJson(sorted)).toBe(JSON.stringify(sorted));
        // A toJSON or an inherited key is left to the builder, which writes neither (JSON.stringify would call toJSON).
        const odd = { b: sorted, c: { toJSON: () => 'x' }, d: Object.create({ e: 1 }) as object };
        expect(canonicalJson(odd)).toBe(`{"b":${JSON.stringify(sorted)},"c":{},"d":{}}`);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`per object, with key order checked once per object, is the same text, on lists of objects in and out of order, asked for twice (${RUNS} random lists)`, () => {
    const object = fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), value, { maxKeys: 5 });
    assertProperty(
      fc.property(fc.array(fc.tuple(object, fc.boolean()), { maxLength: 6 }), fc.boolean(), (drawn, objectsFirst) => {
        const objects = drawn.map(([o, sorted]) => (sorted ? canonical(o) : o) as unknown as SnapshotObject);
        const expected = `[${objects.map((o) => JSON.stringify(canonical(o))).join(',')}]`;
        // Either order of first use: a list before its objects were checked one by one, or after.
        if (objectsFirst) expect(objectsJson(objects)).toBe(expected);
        for (const o of objects) expect(objectJson(o)).toBe(JSON.stringify(canonical(o)));
        expect(objectsJson(objects)).toBe(expected);
        for (const o of objects) expect(objectJson(o)).toBe(JSON.stringify(canonical(o)));
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it('quotes every text as JSON.stringify does: the ASCII it writes as it is, and everything else', () => {
    const texts = ['', 'app.kubernetes.io/name', 'a b~', '"', '\\', 'x"y', 'tab\there', '\u0000', '\u001f', '\u007f', 'é', 'ünïcode', '\u2028', '\ud800', 'a\udc00b', '😀'];
    for (const t of texts) {
      expect(canonicalJson(t)).toBe(JSON.stringify(t));
      expect(canonicalJson({ [t]: t })).toBe(JSON.stringify({ [t]: t }));
    }
  });

  it('lists array-index keys first, numerically, as JS objects do (labels may be numbers)', () => {
    const v = { b: 1, '10': 2, a: [undefined, { z: 1, '2': 3 }], '2': 4, '01': 5, '4294967295': 6, '4294967294': 7, '': 8, u: undefined };
    expect(canonicalJson(v)).toBe(JSON.stringify(canonical(v)));
    expect(canonicalJson(v).startsWith('{"2":4,"10":2,"4294967294":7,"":8,"01":5,"4294967295":6')).toBe(true);
  });
});
