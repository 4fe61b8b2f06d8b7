// The CLI prints at most 100 problems, then how many more: a pipeline log stays readable.
import { describe, expect, it } from 'vitest';
import { issueLines } from '../../functions/cli/input.js';

describe('issueLines', () => {
  it('prints the first 100 problems with their object, then counts the rest', () => {
    const issues = Array.from({ length: 250 }, (_, i) => ({ path: `$.items[${i}].spec`, message: 'broken', object: { kind: 'Pod', namespace: 'a', name: `p${i}` } }));
    const lines = issueLines(issues, (p) => `f.yaml: ${p}`).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[0]).toBe('  f.yaml: $.items[0].spec (Pod a/p0): broken');
    expect(lines[100]).toBe('  … and 150 more problems');
    expect(issueLines(issues.slice(0, 3), (p) => p).split('\n')).toHaveLength(3);
  });

  it('shows a refused name escaped, on one line: a newline or a terminal escape in it cannot forge or hide a line of the log', () => {
    const line = issueLines([{ path: '$.metadata.name', message: 'must be a lowercase RFC 1123 subdomain', object: { kind: 'Pod', namespace: 'shop', name: 'web\nerror: all clear\u001b[2K' } }], (p) => p);
    expect(line).toBe('  $.metadata.name (Pod shop/web\\x0aerror: all clear\\x1b[2K): must be a lowercase RFC 1123 subdomain');
    expect(line.split('\n')).toHaveLength(1);
  });
});
