// A stored object group is checked by hashing each object's text where it lies in the stored
// bytes (infra/store/objects.ts decodeGroup, json-elements.ts), and that digest is kept as the
// parsed object's own. Held here: the element spans are JSON.stringify's text of each element,
// whatever the strings hold (quotes, backslashes, lone surrogates, control characters); a group
// decodes to its objects, each with the digest of its canonical JSON written afresh (so a text
// parses back to a value written alike, integer-like keys included); and bytes changed inside an
// element are refused.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalJson, objectDigest } from '../../core/snapshot/hash.js';
import { decodeGroup, encodeGroup, objectGroups } from '../../infra/store/objects.js';
import { arrayElementSpans } from '../../infra/store/json-elements.js';
import { StoreCorruptionError } from '../../infra/store/types.js';
import { nodeSha256Hex as sha256Hex } from '../../functions/node-sha256.js';
import { parseSnapshot, type SnapshotObject } from '../../schemas/snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

const RUNS = propertyRuns(1000);
const freshDigest = (text: string) => createHash('sha256').update(text).digest('hex');
const spansText = (text: string, at: number) => {
  const spans = arrayElementSpans(text, at);
  return spans && Array.from({ length: spans.length / 2 }, (_, i) => text.slice(spans[2 * i], spans[2 * i + 1]));
};

// Strings of any UTF-16 code units (lone surrogates and control characters among them), and
// ones made of what a JSON string escapes.
const hostileString = fc.oneof(fc.string({ unit: 'binary' }), fc.array(fc.constantFrom('"', '\\', '\\"', '\\\\"', '\u0000', '\n', '\u2028', '\ud800', '[', ']', '{', '}', ',', 'a')).map((parts) => parts.join('')));
// Annotation keys JS lists out of insertion order (array indices) and ones that sort around them.
const annotationKey = fc.constantFrom('1', '10', '2', '02', 'a', 'b/1', 'example.com/x', '9z');

describe('stored object groups (infra/store/objects.ts)', () => {
  it(`element spans are each element's JSON text, on ${RUNS} random arrays`, () => {
    assertProperty(
      fc.property(fc.array(fc.oneof(fc.jsonValue(), hostileString)), fc.string({ maxLength: 5 }), (values, prefix) => {
        const text = `${JSON.stringify(prefix)}:${JSON.stringify(values)}}`;
        expect(spansText(text, JSON.stringify(prefix).length + 1)).toEqual(values.map((v) => JSON.stringify(v)));
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(arrayElementSpans('{"a":1}', 0)).toBeNull();
    expect(arrayElementSpans('[1,"2', 0)).toBeNull();
    expect(arrayElementSpans('[[1,2],{"a":[3]},"]"]', 0)).toEqual([1, 6, 7, 16, 17, 20]);
  });

  it(`decode to their objects, each with its canonical digest, and refuse changed bytes, on ${RUNS} random snapshots`, () => {
    assertProperty(
      fc.property(snapshotArb, fc.array(fc.tuple(fc.nat(), fc.dictionary(annotationKey, hostileString, { maxKeys: 4 })), { maxLength: 4 }), fc.nat(), (snapshot, annotated, tamperAt) => {
        const items = snapshot.items.map((o) => structuredClone(o) as { metadata: { annotations?: Record<string, string> } });
        for (const [at, annotations] of annotated) {
          const o = items[at % items.length]!;
          o.metadata.annotations = { ...o.metadata.annotations, ...annotations };
        }
        const parsed = parseSnapshot({ ...snapshot, items });
        if (!parsed.ok) throw new Error(`generated snapshot invalid: ${JSON.stringify(parsed.issues.slice(0, 2))}`);
        const groups = objectGroups(parsed.snapshot.objects, sha256Hex);
        for (const g of groups) {
          const bytes = encodeGroup(g);
          const decoded = decodeGroup(g.id, bytes, sha256Hex);
          expect(decoded).toEqual(g.objects);
          decoded.forEach((o: SnapshotObject, i) => {
            expect(objectDigest(o, sha256Hex)).toBe(freshDigest(canonicalJson(o)));
            expect(objectDigest(o, sha256Hex)).toBe(objectDigest(g.objects[i]!, sha256Hex));
          });
        }
        // One letter inside the objects changed case: refused, by the spans and by the objects.
        const g = groups[tamperAt % groups.length]!;
        const text = new TextDecoder().decode(encodeGroup(g));
        const letters = [...text.matchAll(/"name":"([a-z])/g)].map((m) => m.index! + m[0].length - 1);
        const at = letters[tamperAt % letters.length]!;
        const tampered = new TextEncoder().encode(text.slice(0, at) + text[at]!.toUpperCase() + text.slice(at + 1));
        expect(() => decodeGroup(g.id, tampered, sha256Hex)).toThrow(StoreCorruptionError);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
