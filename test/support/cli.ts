// Runs the real CLI as a pipeline does: `node bin/netpolc.mjs …`, with stdin, stdout, stderr
// and the exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'netpolc.mjs');
export const CLUSTER = join(ROOT, 'examples', 'cluster.json');

export function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The example cluster's objects (a fresh copy). */
export const exampleItems = (): any[] => (JSON.parse(readFileSync(CLUSTER, 'utf8')) as { items: any[] }).items;

/** A temporary directory with these files written into it. */
export function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'netpolc-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
