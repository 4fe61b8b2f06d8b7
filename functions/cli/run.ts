// Process entry of the CLI: real stdio and exit code.
import { readFileSync } from 'node:fs';
import { main } from './main.js';

process.exitCode = main(process.argv.slice(2), {
  out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  err: (s) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`),
  stdin: () => readFileSync(0, 'utf8'),
});
