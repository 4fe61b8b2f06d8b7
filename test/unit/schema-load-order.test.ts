// The API's documented schemas work whichever module a process loads first: an entry that
// opens the store (and with it the snapshot schemas) before the app, a script that parses a
// snapshot and then serves. zod 4 gives each schema its methods when it is made, so before
// schemas/zod.ts a schema made before the OpenAPI extension had no `.openapi()`, and building
// the app then threw. A fresh process, since the order is a property of one module graph.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('schema load order', () => {
  it('the app builds and serves its OpenAPI document after the snapshot schemas were loaded first', () => {
    const script = [
      "await import('./schemas/k8s/meta.ts');",
      "await import('./schemas/snapshot.ts');",
      "const { createApp } = await import('./functions/app.ts');",
      "const res = await createApp({}).request('/openapi.json');",
      'console.log(res.status, Object.keys((await res.json()).paths).length > 10);',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr.split('\n').filter((l) => /Error/.test(l))).toEqual([]);
    expect(r.stdout.trim()).toBe('200 true');
  });
});
