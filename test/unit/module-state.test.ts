// core keeps no mutable state between calls that a caller could observe: buffers a stage reuses
// belong to the call (core/compile/scratch.ts), so two compiles interleaved by an async caller or
// a re-entrant call never share one. What stays at module level is (a) constant tables, named in
// capitals, and (b) memos of pure functions: WeakMaps keyed by the immutable objects they
// describe. A module-level `let`/`var`, or any other Map/Set, fails here. schemas/ is held to the
// same: core reads addresses and selectors through its grammars (schemas/k8s/ip.ts once kept two
// process-wide text caches).
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

describe('module state in core and schemas', () => {
  const sources = [...files(join(ROOT, 'core')), ...files(join(ROOT, 'schemas'))].map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, 'utf8') }));

  it('reads every core and schemas module', () => {
    expect(sources.filter((s) => s.file.startsWith('core')).length).toBeGreaterThan(100);
    expect(sources.filter((s) => s.file.startsWith('schemas')).length).toBeGreaterThan(15);
  });

  it('has no module-level let or var', () => {
    const found = sources.flatMap(({ file, text }) => [...text.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)/gm)].map((m) => `${file}: ${m[1]}`));
    expect(found).toEqual([]);
  });

  it('keeps module-level Maps and Sets only as constant tables (CAPITALS); WeakMaps are memos keyed by immutable objects', () => {
    const found = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(Map|Set)\b/gm)].map((m) => ({ name: m[1]!, where: `${file}: ${m[1]}` })),
    );
    // The check sees the constant tables there are (a wrong pattern would pass vacuously).
    expect(found.length).toBeGreaterThan(3);
    expect(found.filter(({ name }) => !/^[A-Z][A-Z0-9_]*$/.test(name)).map((f) => f.where)).toEqual([]);
  });
});
