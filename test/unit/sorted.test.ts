import { describe, expect, it } from 'vitest';
import { joinRuns } from '../../core/sorted.js';

describe('joinRuns', () => {
  it('joins runs in order, few of them (concat) or very many (pushed)', () => {
    for (const count of [0, 3, 4096, 4097, 20000]) {
      const runs = Array.from({ length: count }, (_, i) => (i % 3 === 0 ? [] : Array.from({ length: i % 5 }, (_, k) => `${i}.${k}`)));
      const expected: string[] = [];
      for (const run of runs) expected.push(...run);
      expect(joinRuns(runs)).toEqual(expected);
    }
  });
});
