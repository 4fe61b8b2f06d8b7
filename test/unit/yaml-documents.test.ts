// Reading multi-document YAML: document boundaries as YAML 1.2 draws them, values as the core
// schema reads them, errors with their line in the whole text, and aliases that would expand a
// document beyond its size refused. Checked against another YAML library's writer on random
// values (what it writes, this reads back equal).
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { yamlDocuments } from '../../functions/yaml-documents.js';
import { assertProperty } from '../support/property.js';

const values = (text: string) => yamlDocuments(text).map((d) => ('value' in d ? d.value : d.error));

describe('yamlDocuments', () => {
  it('cuts documents at --- lines, as kubectl and Helm write them', () => {
    expect(values('a: 1\n---\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
    // Comments before the first marker belong to no document of their own.
    expect(values('# rendered by helm\n---\na: 1\n---\n# Source: x.yaml\nb: 2\n')).toEqual([{ a: 1 }, { b: 2 }]);
    // Empty documents count, as the document numbers in errors must.
    expect(values('---\n---\na: 1\n')).toEqual([null, { a: 1 }]);
    // Content on the marker's line; `...` ends a document; CRLF.
    expect(values('--- {a: 1}\n...\n--- [1, 2]\r\n---\r\nb: x\r\n')).toEqual([{ a: 1 }, [1, 2], { b: 'x' }]);
    // `---` inside a block scalar is content, not a marker, when indented.
    expect(values('a: |\n  x\n  ---\n  y\n---\nb: 1\n')).toEqual([{ a: 'x\n---\ny\n' }, { b: 1 }]);
    // `----` and `---x` are not markers.
    expect(values('a: |\n  x\n----: 1\n')).toEqual([{ a: 'x\n', '----': 1 }]);
  });

  it('reads the YAML 1.2 core schema: no timestamps, no yes/no booleans, no merge keys', () => {
    expect(values('a: 2024-01-01\nb: on\nc: yes\nd: 0o14\ne: ~\nf: "1"\ng: 1e3\n<<: {h: 1}\n')).toEqual([{ a: '2024-01-01', b: 'on', c: 'yes', d: 12, e: null, f: '1', g: 1000, '<<': { h: 1 } }]);
  });

  it('names the document and line of a syntax error, and reads the other documents', () => {
    const docs = yamlDocuments('a: 1\n---\nb: [unclosed\n---\nc: 3\n---\nd: 1\nd: 2\n');
    expect(docs[0]).toEqual({ value: { a: 1 } });
    expect(docs[1]!.error).toMatch(/line \d+/);
    expect(docs[2]).toEqual({ value: { c: 3 } });
    expect(docs[3]!.error).toMatch(/duplicated mapping key at line 8/);
  });

  it('refuses aliases that expand beyond the document, and cycles; reads modest ones', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)];
    expect(yamlDocuments(levels.join('\n'))[0]!.error).toMatch(/aliases expand this document beyond its size/);
    expect(yamlDocuments('a: &a [1, *a]\n')[0]!.error).toMatch(/aliases expand|a cycle/);
    expect(values('labels: &l {app: web}\nselector: *l\n')).toEqual([{ labels: { app: 'web' }, selector: { app: 'web' } }]);
  });

  it('reads back what another YAML library writes, value for value', () => {
    const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    assertProperty(
      fc.property(fc.array(json, { minLength: 1, maxLength: 4 }), (docs) => {
        const text = docs.map((d) => stringify(d)).join('---\n');
        expect(yamlDocuments(text).map((d) => d.error ?? d.value)).toEqual(docs.map((d) => (d === undefined ? null : d)));
      }),
      { file: import.meta.url, numRuns: 300 },
    );
  });
});
