// The one-way flow, checked on every import: schemas → core (stages, renderers) → functions, with
// infra behind functions. core is pure (no I/O, no HTTP framework, no AWS SDK), schemas knows
// nothing downstream, infra is never reached by core, and no module of core imports itself back
// through others (a cycle hides which stage owns what).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LAYERS = ['schemas', 'core', 'infra', 'functions'] as const;
type Layer = (typeof LAYERS)[number];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Import {
  readonly from: string;
  readonly spec: string;
  /** Repository-relative .ts path for relative imports; null for packages. */
  readonly target: string | null;
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  // Static imports and re-exports (type-only ones too: a type import still couples the layers), and dynamic import('…').
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\('([^']+)'\)/g)) {
    const spec = (m[1] ?? m[2])!;
    const target = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts') : null;
    out.push({ from: relative(ROOT, file), spec, target });
  }
  return out;
}

const all = LAYERS.flatMap((layer) => files(join(ROOT, layer))).flatMap(importsOf);
const layerOf = (path: string): Layer | null => (LAYERS as readonly string[]).includes(path.split('/')[0]!) ? (path.split('/')[0] as Layer) : null;

/** What each layer may import from the others. */
const MAY_IMPORT: Readonly<Record<Layer, readonly Layer[]>> = {
  schemas: ['schemas'],
  core: ['core', 'schemas'],
  infra: ['infra', 'core', 'schemas'],
  functions: ['functions', 'core', 'schemas', 'infra'],
};
// Packages core may not use: I/O, the HTTP framework, the AWS SDK, the store.
const IMPURE = /^(node:|hono|@hono\/|@aws-sdk\/|dynalite)/;

describe('import boundaries', () => {
  it('each layer imports only the layers upstream of it', () => {
    // Read every layer (a wrong root would pass vacuously).
    expect(new Set(all.map((i) => layerOf(i.from)))).toEqual(new Set(LAYERS));
    expect(all.length).toBeGreaterThan(500);
    const crossings = all.filter((i) => i.target !== null && layerOf(i.target) !== null && !MAY_IMPORT[layerOf(i.from)!].includes(layerOf(i.target)!));
    expect(crossings.map((i) => `${i.from} → ${i.target}`)).toEqual([]);
  });

  it('core is pure: no node: modules, HTTP framework or AWS SDK', () => {
    expect(all.filter((i) => i.from.startsWith('core/') && IMPURE.test(i.spec)).map((i) => `${i.from} → ${i.spec}`)).toEqual([]);
  });

  it('no import cycles among core modules', () => {
    const graph = new Map<string, string[]>();
    for (const i of all) if (i.from.startsWith('core/') && i.target?.startsWith('core/')) graph.set(i.from, [...(graph.get(i.from) ?? []), i.target]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: string, path: string[]): void => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') return void cycles.push([...path.slice(path.indexOf(node)), node].join(' → '));
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });
});
