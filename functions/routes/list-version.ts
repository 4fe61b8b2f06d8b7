// metadata.resourceVersion of the List a YAML body carries. The YAML reader (body.ts) appends
// every document's items to one snapshot and keeps no List's metadata, so POST reads the
// version from the text: the top-level `kind:` and `metadata:` of each document, as kubectl
// prints them (at the start of a line), the `metadata:` block parsed alone. Only Lists count,
// and only one version: documents that disagree give none.
import { parse } from 'yaml';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A top-level key's YAML (its line and the indented lines after it), parsed alone; undefined if it does not parse. */
function topLevel(doc: string, key: 'kind' | 'metadata'): unknown {
  const m = new RegExp(`^${key}:.*(?:\\n(?:[ \\t].*|#.*|)(?=\\n|$))*`, 'm').exec(doc);
  if (!m) return undefined;
  try {
    const value: unknown = parse(m[0]);
    return isObject(value) ? value[key] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resourceVersion of the body's Lists: '' when they print it empty (kubectl does, for Lists
 * it builds), undefined when no List names one or two name different ones.
 */
export function yamlListVersion(text: string): string | undefined {
  const found = new Set<string>();
  // Documents are separated by `---` lines (a directives end marker, possibly with content after it).
  const lines = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  for (const doc of lines.split(/^---(?=[ \t]|$)/m)) {
    const kind = topLevel(doc, 'kind');
    if (typeof kind !== 'string' || !kind.endsWith('List')) continue;
    const metadata = topLevel(doc, 'metadata');
    if (isObject(metadata) && typeof metadata.resourceVersion === 'string') found.add(metadata.resourceVersion);
  }
  return found.size === 1 ? [...found][0] : undefined;
}
