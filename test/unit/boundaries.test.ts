// The one-way flow, checked on every import: schemas → core (stages, renderers) → functions, with
// infra behind functions. core is pure (no I/O, no HTTP framework, no AWS SDK), schemas knows
// nothing downstream, infra is never reached by core, functions and infra reach a core stage only
// through its index.ts (which core itself does not use), and no module of core imports itself
// back through others (a cycle hides which stage owns what); in functions, route files import no
// other route file and services no route. The rules live in
// .dependency-cruiser.cjs (`npm run lint:boundaries` runs them by hand); this test runs them in
// `npm test`, and plants each kind of back-import in a small tree to show the rule that catches it.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const LAYERS = ['schemas', 'core', 'infra', 'functions'] as const;
const TSCONFIG = join(ROOT, 'tsconfig.json');

const options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
const tsConfig = extractTSConfig(TSCONFIG);

/** Cruises the layers under baseDir with the repository's rules (paths come out relative to baseDir). */
async function cruiseLayers(baseDir: string): Promise<ICruiseResult> {
  const { output } = await cruise([...LAYERS], { ...options, baseDir, tsConfig: { fileName: TSCONFIG } }, {}, { tsConfig });
  if (typeof output === 'string') throw new Error(`dependency-cruiser returned a report, not a result: ${output}`);
  return output;
}

const describeViolation = (v: IViolation): string =>
  `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})` : ''}`;

describe('import boundaries (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  // One cruise for both checks, started by the first test that needs it.
  let cruised: Promise<ICruiseResult> | undefined;
  const real = (): Promise<ICruiseResult> => (cruised ??= cruiseLayers(ROOT));

  it('the repository has no violations', async () => {
    expect((await real()).summary.violations.map(describeViolation)).toEqual([]);
  });

  it('the cruise read every source file of every layer (a wrong root would pass vacuously)', async () => {
    const { modules, summary } = await real();
    const onDisk = LAYERS.flatMap((layer) =>
      readdirSync(join(ROOT, layer), { recursive: true, encoding: 'utf8' })
        .filter((name) => /\.(ts|mjs)$/.test(name))
        .map((name) => `${layer}/${name}`),
    );
    const local = modules.map((m) => m.source).filter((source) => LAYERS.some((layer) => source.startsWith(`${layer}/`)));
    expect(local.sort()).toEqual(onDisk.sort());
    expect(local.length).toBeGreaterThan(200);
    expect(summary.totalDependenciesCruised).toBeGreaterThan(500);
  });
});

// A clean miniature of the layers; each case adds files to it and must trip exactly its rule.
const CLEAN: Readonly<Record<string, string>> = {
  'schemas/s.ts': 'export type S = string;\n',
  'core/c.ts': "import type { S } from '../schemas/s.js';\nexport const c = (s: S): S => s;\n",
  // A stage, reached from other layers through its door.
  'core/s/inner.ts': "import { c } from '../c.js';\nexport const inner = c;\n",
  'core/s/index.ts': "export { inner } from './inner.js';\n",
  'infra/i.ts': "import { c } from '../core/c.js';\nexport const i = c;\n",
  'functions/f.ts': "import { c } from '../core/c.js';\nimport { inner } from '../core/s/index.js';\nimport { i } from '../infra/i.js';\nimport type { S } from '../schemas/s.js';\nexport const f = (s: S): S => i(inner(c(s)));\n",
  'functions/y.ts': 'export const y = 1;\n',
};

// Each plant must give exactly one violation: this line, naming its rule.
const PLANTED: ReadonlyArray<{ readonly what: string; readonly files: Readonly<Record<string, string>>; readonly violation: string }> = [
  {
    what: 'core importing functions',
    files: { 'core/x.ts': "import { y } from '../functions/y.js';\nexport const x = y;\n" },
    violation: 'core-not-to-infra-or-functions: core/x.ts → functions/y.ts',
  },
  {
    what: 'core importing infra, type-only',
    files: { 'core/x.ts': "import type {} from '../infra/i.js';\n" },
    violation: 'core-not-to-infra-or-functions: core/x.ts → infra/i.ts',
  },
  {
    what: 'core importing functions dynamically',
    files: { 'core/x.ts': "export const x = () => import('../functions/y.js');\n" },
    violation: 'core-not-to-infra-or-functions: core/x.ts → functions/y.ts',
  },
  {
    what: 'core importing node:fs',
    files: { 'core/x.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n" },
    // dependency-cruiser names built-ins without the node: prefix.
    violation: 'core-no-node-builtins: core/x.ts → fs',
  },
  {
    what: 'core importing fs without the node: prefix',
    files: { 'core/x.ts': "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n" },
    violation: 'core-no-node-builtins: core/x.ts → fs',
  },
  {
    what: 'core importing hono, type-only',
    files: { 'core/x.ts': "import type { Hono } from 'hono';\nexport type X = Hono;\n" },
    // No node_modules in the miniature: the package stays unresolved, named as written.
    violation: 'core-no-server-or-store-packages: core/x.ts → hono',
  },
  {
    what: 'core importing @aws-sdk/client-dynamodb from node_modules',
    files: {
      'core/x.ts': "import type {} from '@aws-sdk/client-dynamodb';\n",
      'node_modules/@aws-sdk/client-dynamodb/package.json': '{ "name": "@aws-sdk/client-dynamodb", "main": "index.js" }\n',
      'node_modules/@aws-sdk/client-dynamodb/index.js': 'export {};\n',
    },
    violation: 'core-no-server-or-store-packages: core/x.ts → node_modules/@aws-sdk/client-dynamodb/index.js',
  },
  {
    what: 'a two-file cycle in core',
    files: {
      'core/p.ts': "import { q } from './q.js';\nexport const p = (): number => q();\n",
      'core/q.ts': "import { p } from './p.js';\nexport const q = (): number => p();\n",
    },
    violation: 'core-no-circular: core/p.ts → core/q.ts (cycle: core/p.ts → core/q.ts → core/p.ts)',
  },
  {
    what: 'schemas importing core',
    files: { 'schemas/x.ts': "export { c } from '../core/c.js';\n" },
    violation: 'schemas-not-to-downstream: schemas/x.ts → core/c.ts',
  },
  {
    what: 'infra importing functions',
    files: { 'infra/x.ts': "import { f } from '../functions/f.js';\nexport const x = f;\n" },
    violation: 'infra-not-to-functions: infra/x.ts → functions/f.ts',
  },
  {
    what: 'functions importing a core stage past its door',
    files: { 'functions/x.ts': "import { inner } from '../core/s/inner.js';\nexport const x = inner;\n" },
    violation: 'core-through-its-doors: functions/x.ts → core/s/inner.ts',
  },
  {
    what: 'infra importing a core stage past its door, type-only',
    files: { 'infra/x.ts': "import type {} from '../core/s/inner.js';\n" },
    violation: 'core-through-its-doors: infra/x.ts → core/s/inner.ts',
  },
  {
    what: 'core importing a stage through its door',
    files: { 'core/x.ts': "import { inner } from './s/index.js';\nexport const x = inner;\n" },
    violation: 'core-not-through-doors: core/x.ts → core/s/index.ts',
  },
  {
    what: 'a route file importing another',
    files: { 'functions/routes/a.ts': "import { b } from './b.js';\nexport const a = b;\n", 'functions/routes/b.ts': 'export const b = 1;\n' },
    violation: 'routes-not-to-routes: functions/routes/a.ts → functions/routes/b.ts',
  },
  {
    what: 'a route importing the store, type-only',
    files: { 'functions/routes/a.ts': "import type {} from '../../infra/store/types.js';\n", 'infra/store/types.ts': 'export const t = 1;\n' },
    violation: 'routes-not-to-infra: functions/routes/a.ts → infra/store/types.ts',
  },
  {
    what: 'a service importing a route file, type-only',
    files: { 'functions/services/s.ts': "import type {} from '../routes/b.js';\n", 'functions/routes/b.ts': 'export const b = 1;\n' },
    violation: 'services-not-to-routes: functions/services/s.ts → functions/routes/b.ts',
  },
  {
    what: 'a relative import of no file',
    files: { 'core/x.ts': "export { gone } from '../functions/gone.js';\n" },
    // Unresolved, it keeps its written path, which no layer rule matches; hence this rule.
    violation: 'relative-import-resolves: core/x.ts → ../functions/gone.js',
  },
];

describe('the rules catch a planted back-import', () => {
  async function violationsIn(files: Readonly<Record<string, string>>): Promise<string[]> {
    const dir = mkdtempSync(join(tmpdir(), 'netpolc-boundaries-'));
    try {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(dir, dirname(path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      return (await cruiseLayers(dir)).summary.violations.map(describeViolation);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('the clean miniature passes', async () => {
    expect(await violationsIn(CLEAN)).toEqual([]);
  });

  it.each(PLANTED)('$what', async ({ files, violation }) => {
    expect(await violationsIn({ ...CLEAN, ...files })).toEqual([violation]);
  });
});
