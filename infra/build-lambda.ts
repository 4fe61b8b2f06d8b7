// `npm run build:lambda [-- OUTDIR]`: the Lambda bundle infra/template.yaml deploys (CodeUri
// ../dist/lambda, Handler functions/adapters/lambda.handler). One ESM file with every package
// inside, so the function needs no node_modules; test/adapters/lambda-bundle.test.ts runs this
// build and the file it writes, outside the repository.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Where the handler file lands under the output directory (the template's Handler, as a path). */
export const LAMBDA_HANDLER_FILE = join('functions', 'adapters', 'lambda.mjs');

/** The Node major version of the template's runtime (`Runtime: nodejs24.x` → 24): the bundle's target. */
export function templateNodeVersion(): number {
  const m = /^\s+Runtime: nodejs(\d+)\.x$/m.exec(readFileSync(join(ROOT, 'infra', 'template.yaml'), 'utf8'));
  if (!m) throw new Error('infra/template.yaml names no nodejs<N>.x Runtime');
  return Number(m[1]);
}

export async function buildLambda(outdir: string): Promise<string> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join('functions', 'adapters', 'lambda.ts')],
    bundle: true,
    platform: 'node',
    // The syntax the template's runtime reads, so the bundle is built for what runs it.
    target: `node${templateNodeVersion()}`,
    format: 'esm',
    // The AWS SDK's packages name their ESM build under `module`.
    mainFields: ['module', 'main'],
    outbase: '.',
    outdir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  return join(outdir, LAMBDA_HANDLER_FILE);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const outdir = process.argv[2] ?? join(ROOT, 'dist', 'lambda');
  console.log(`wrote ${await buildLambda(outdir)}`);
}
