// The conditional updates and attribute removal the store builds publish order on: the DynamoDB
// backend against a real in-process dynalite and the memory backend must answer alike.
import { describe, expect, it } from 'vitest';
import { realAndMemoryBackends } from './support.js';

const backends = realAndMemoryBackends();

let n = 0;
describe.each(Object.keys(backends))('%s backend', (kind) => {
  it('updates only when every condition holds: equal, absent or below, absent or above', async () => {
    const b = backends[kind]!();
    const key = { pk: `cond-${kind}-${++n}`, sk: 'x' };
    expect(await b.updateIfExists(key, { a: 1 })).toBe(false); // never creates
    await b.putItems([{ ...key, tag: 't' }]);
    expect(await b.updateIfExists(key, { seq: 5 }, { attribute: 'seq', absentOrBelow: 5 })).toBe(true);
    expect(await b.updateIfExists(key, { seq: 4 }, { attribute: 'seq', absentOrBelow: 4 })).toBe(false);
    expect(await b.updateIfExists(key, { seq: 5 }, { attribute: 'seq', absentOrBelow: 5 })).toBe(false);
    expect(await b.updateIfExists(key, { seq: 7 }, { attribute: 'seq', absentOrBelow: 7 })).toBe(true);
    expect(await b.updateIfExists(key, { at: 100 }, { attribute: 'at', absentOrAbove: 100 })).toBe(true);
    expect(await b.updateIfExists(key, { at: 200 }, { attribute: 'at', absentOrAbove: 200 })).toBe(false);
    expect(await b.updateIfExists(key, { at: 50 }, [{ attribute: 'at', absentOrAbove: 50 }, { attribute: 'tag', equals: 'other' }])).toBe(false);
    expect(await b.updateIfExists(key, { at: 50 }, [{ attribute: 'at', absentOrAbove: 50 }, { attribute: 'tag', equals: 't' }])).toBe(true);
    expect(await b.getItem(key)).toEqual({ ...key, tag: 't', seq: 7, at: 50 });
  });

  it('removes attributes from an existing item only, under the same conditions', async () => {
    const b = backends[kind]!();
    const key = { pk: `rm-${kind}-${++n}`, sk: 'x' };
    expect(await b.removeIfExists(key, ['at'])).toBe(false);
    expect(await b.getItem(key)).toBeNull();
    await b.putItems([{ ...key, tag: 't', at: 10, other: 1 }]);
    expect(await b.removeIfExists(key, ['at'], { attribute: 'tag', equals: 'u' })).toBe(false);
    expect(await b.removeIfExists(key, ['at', 'other'], { attribute: 'tag', equals: 't' })).toBe(true);
    expect(await b.getItem(key)).toEqual({ ...key, tag: 't' });
    // Removing what is not there is no error.
    expect(await b.removeIfExists(key, ['at'])).toBe(true);
  });
});
