// core keeps no mutable state between calls that a caller could observe: buffers a stage reuses
// belong to the call (core/compile/scratch.ts), so two compiles interleaved by an async caller or
// a re-entrant call never share one. What stays at module level is (a) constant tables, named in
// capitals, and (b) memos of pure functions: WeakMaps keyed by the immutable objects they
// describe, and the bounded text memo below. A module-level `let`/`var`, or any other Map/Set, fails here.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : name.endsWith('.ts') ? [path] : [];
  });
}

// A memo of a pure function of its text key, cleared when large (the family of a CIDR text).
const TEXT_MEMOS = new Set(['core/render/flat-tables.ts: families']);

describe('module state in core', () => {
  const sources = files(join(ROOT, 'core')).map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('reads every core module', () => {
    expect(sources.length).toBeGreaterThan(100);
  });

  it('has no module-level let or var', () => {
    const found = sources.flatMap(({ file, text }) => [...text.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)/gm)].map((m) => `${file}: ${m[1]}`));
    expect(found).toEqual([]);
  });

  it('keeps module-level Maps and Sets only as constant tables (CAPITALS) or bounded text memos; WeakMaps are memos keyed by immutable objects', () => {
    const found = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(Map|Set)\b/gm)].map((m) => ({ name: m[1]!, where: `${file}: ${m[1]}` })),
    );
    expect(found.filter(({ name, where }) => !/^[A-Z][A-Z0-9_]*$/.test(name) && !TEXT_MEMOS.has(where)).map((f) => f.where)).toEqual([]);
    // The allowance names modules that exist.
    for (const memo of TEXT_MEMOS) expect(found.map((f) => f.where)).toContain(memo);
  });
});
