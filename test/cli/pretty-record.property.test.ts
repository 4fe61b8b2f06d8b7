// The CLI writes a record of nodes entry by entry (functions/cli/io.ts outPrettyRecord) so that
// no one string holds every node's output: the bytes must be JSON.stringify(record, null, 2)'s.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { outPrettyRecord } from '../../functions/cli/io.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(1000);

describe('outPrettyRecord', () => {
  it(`writes JSON.stringify(record, null, 2) and a newline, on ${RUNS} random records`, () => {
    assertProperty(
      fc.property(fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '')), fc.jsonValue()), (record) => {
        let written = '';
        outPrettyRecord({ out: (s) => (written += s.endsWith('\n') ? s : `${s}\n`) }, record);
        expect(written).toBe(`${JSON.stringify(record, null, 2)}\n`);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});
