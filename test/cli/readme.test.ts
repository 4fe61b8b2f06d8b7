// The README's preview example is the CLI's real output for the files it names, so it cannot
// drift from what netpolc prints.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, run } from '../support/cli.js';

describe('README', () => {
  it('shows the preview that `netpolc preview … --output markdown` prints for the example change', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /<!-- preview-example:start -->\n([\s\S]*?)<!-- preview-example:end -->/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const r = run(['preview', '--base', 'examples/cluster.json', '--changes', 'examples/preview-change.json', '--output', 'markdown']);
    expect(r.code).toBe(1);
    expect(shown).toBe(r.out);
    expect(shown).toContain('```mermaid');
  });

  it('shows the preview of the pull-request example as `netpolc preview --head manifests/` prints it', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /<!-- pull-request-example:start -->\n([\s\S]*?)<!-- pull-request-example:end -->/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const r = run(['preview', '--base', 'examples/pull-request/live.yaml', '--head', 'examples/pull-request/manifests/', '--no-tables', '--output', 'markdown']);
    expect(r.code).toBe(1);
    expect(shown).toBe(r.out);
  });

  it('shows what `netpolc ask` answers about examples/services.yaml (stderr\'s warnings left out)', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const shown = /<!-- ask-example:start -->\n```\n([\s\S]*?)```\n<!-- ask-example:end -->/.exec(readme)?.[1];
    expect(shown).toBeDefined();
    const exchanges = shown!.split(/^\$ netpolc /m).filter((e) => e !== '');
    expect(exchanges.length).toBeGreaterThanOrEqual(4);
    for (const e of exchanges) {
      const [command, ...answer] = e.trimEnd().split('\n');
      const [, question, file] = /^ask "(.*)" (\S+)$/.exec(command!)!;
      const r = run(['ask', question!, file!]);
      expect([0, 2], command).toContain(r.code);
      expect(`${r.out}${r.err}`.split('\n').filter((l) => l !== '' && !l.startsWith('warning:')).join('\n'), command).toBe(answer.join('\n'));
    }
  });
});
