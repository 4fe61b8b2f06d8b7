// examples/compiled-ir.json is what `netpolc compile examples/cluster.json` prints today: the
// docs quote it, so it must not drift from the compiler.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run, ROOT } from '../support/cli.js';

describe('examples/compiled-ir.json', () => {
  it('is the current set form of examples/cluster.json', () => {
    const r = run(['compile', join(ROOT, 'examples', 'cluster.json')]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(readFileSync(join(ROOT, 'examples', 'compiled-ir.json'), 'utf8'));
  });
});
