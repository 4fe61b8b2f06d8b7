// The cache of content-addressed items read: least recently used out first, bounded by bytes,
// items too large for it not kept, values frozen so no reader changes what the next one gets.
import { describe, expect, it } from 'vitest';
import { ContentCache } from '../../infra/store/content-cache.js';

describe('ContentCache', () => {
  it('keeps at most maxBytes, evicting the least recently used', () => {
    const cache = new ContentCache(100);
    cache.set('a', { v: 1 }, 20);
    cache.set('b', { v: 2 }, 20);
    cache.set('c', { v: 3 }, 20);
    expect(cache.get('a')).toEqual({ v: 1 }); // a is now the most recent
    for (const k of ['d', 'e', 'f']) cache.set(k, { v: k }, 20); // 120 bytes: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toEqual({ v: 1 });
    expect(cache.get('c')).toEqual({ v: 3 });
    cache.set('huge', { v: 0 }, 26); // over a quarter of the cache: not kept
    expect(cache.get('huge')).toBeUndefined();
  });

  it('freezes what it keeps, deeply', () => {
    const cache = new ContentCache(1000);
    const value = { members: { v4: ['10.0.0.0/8'] } };
    cache.set('s', value, 10);
    expect(() => (cache.get<typeof value>('s')!.members.v4 as string[]).push('x')).toThrow(TypeError);
  });
});
