// A set form's records by id (core/sets/id-record.ts) after any sequence of changes hold exactly
// what a plain map with the same changes holds, in id order (JSON included), and every earlier
// record still holds what it held: versions share records, so a change must never reach back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdRecord } from '../../core/sets/id-record.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(300);
// Ids as the set form makes them (a letter first: never an integer-like object key).
const idArb = fc.stringMatching(/^s[a-f0-9]{1,3}$/);
// Few changes over many ids (as versions from changes are), so layers get merged, not only flattened.
const changeArb = fc.record({ set: fc.array(fc.tuple(idArb, fc.integer()), { maxLength: 3 }), drop: fc.array(idArb, { maxLength: 3 }) });

const plain = (m: ReadonlyMap<string, number>) => Object.fromEntries([...m.keys()].sort().map((k) => [k, m.get(k)!]));

describe('records by id', () => {
  it(`equal a plain map after every change, and earlier records stay as they were (${RUNS} random sequences)`, () => {
    assertProperty(
      fc.property(fc.array(fc.tuple(idArb, fc.integer()), { minLength: 100, maxLength: 400 }), fc.array(changeArb, { minLength: 1, maxLength: 16 }), fc.constantFrom('entries', 'record in order', 'record in any order'), (start, changes, from) => {
        let model = new Map(start);
        // From entries, or from a plain record (a stored node's slice): one in id order is kept as it is.
        let record =
          from === 'entries' ? IdRecord.of([...model]) : IdRecord.fromObject(from === 'record in order' ? plain(model) : Object.fromEntries(model));
        const history: [IdRecord<number>, Record<string, number>][] = [[record, plain(model)]];
        for (const c of changes) {
          const set = new Map(c.set);
          const dropped = new Set(c.drop.filter((id) => model.has(id) && !set.has(id)));
          model = new Map(model);
          for (const [id, v] of set) model.set(id, v);
          for (const id of dropped) model.delete(id);
          record = record.after({ set, dropped });
          history.push([record, plain(model)]);
        }
        for (const [r, expected] of history) {
          expect(JSON.stringify(r)).toBe(JSON.stringify(expected));
          expect([...r.ids()]).toEqual(Object.keys(expected));
          expect(r.size).toBe(Object.keys(expected).length);
          for (const id of Object.keys(expected)) expect(r.get(id)).toBe(expected[id]);
          for (const id of ['zz', '__proto__', 'constructor', 'toString', ...Object.keys(expected).map((k) => `${k}x`)]) {
            expect(r.has(id)).toBe(false);
            expect(r.get(id)).toBeUndefined();
          }
          expect(Object.keys(r)).toEqual([]);
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
