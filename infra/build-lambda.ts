// `npm run build:lambda [-- OUTDIR]`: the Lambda bundle infra/template.yaml deploys (CodeUri
// ../dist/lambda, Handler functions/adapters/lambda.handler). One ESM file with every package
// inside, so the function needs no node_modules; test/adapters/lambda-bundle.test.ts runs this
// build and the file it writes, outside the repository.
import { build } from 'esbuild';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Where the handler file lands under the output directory (the template's Handler, as a path). */
export const LAMBDA_HANDLER_FILE = join('functions', 'adapters', 'lambda.mjs');

export async function buildLambda(outdir: string): Promise<string> {
  await build({
    absWorkingDir: ROOT,
    entryPoints: [join('functions', 'adapters', 'lambda.ts')],
    bundle: true,
    platform: 'node',
    // The template's runtime (nodejs22.x).
    target: 'node22',
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
