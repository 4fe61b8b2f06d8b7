// Multi-document YAML (kubectl output, repositories, rendered Helm and kustomize) read document
// by document, so a malformed document can be reported and, when asked, left out while the
// others are read. js-yaml builds values directly, without a document tree: about 9× faster
// and 3× less memory than a tree-building parser on a 4.8 MB body (a 60 MB body fits a modest
// heap). YAML 1.2 core schema, as Kubernetes objects need: no timestamps, no merge keys;
// duplicate keys are errors.
import { CORE_SCHEMA, loadAll } from 'js-yaml';

export interface YamlDocument {
  /** The parsed value (null for an empty document); absent when `error` is set. */
  readonly value?: unknown;
  /** Why the document could not be read: a message with its line in the whole text. */
  readonly error?: string;
}

// YAML 1.2, 9.1.4: a line starting with `---` or `...` followed by a space or the end of the line
// ("c-forbidden") ends the document before it, whatever that document was in the middle of.
const DOCUMENT_START = /^---(?:[ \t\r\n]|$)/;

/** The text cut at its document markers: each piece is one document (or none: comments, directives). */
function pieces(text: string): { text: string; firstLine: number }[] {
  const out: { text: string; firstLine: number }[] = [];
  let start = 0;
  let startLine = 0;
  let line = 0;
  for (let at = 0; at <= text.length; ) {
    const end = text.indexOf('\n', at);
    const next = end < 0 ? text.length + 1 : end + 1;
    if (at > start && DOCUMENT_START.test(text.slice(at, Math.min(at + 4, text.length)))) {
      out.push({ text: text.slice(start, at), firstLine: startLine });
      [start, startLine] = [at, line];
    }
    at = next;
    line++;
  }
  out.push({ text: text.slice(start), firstLine: startLine });
  return out;
}

/**
 * Aliases let a few lines stand for a huge tree (each level's alias used several times: the
 * "billion laughs"), or for a cycle. A document without aliases has fewer nodes than characters;
 * one whose values, walked as the rest of netpolc walks them, visit more than its size (plus a
 * margin) is refused before anything walks it.
 */
function expandsBeyond(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let visits = 0;
  while (stack.length > 0) {
    const v = stack.pop();
    if (++visits > limit) return true;
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) for (const x of v) stack.push(x);
    else for (const x of Object.values(v)) stack.push(x);
  }
  return false;
}

// Lines that are no content: blank, comments, directives (`%YAML 1.2`).
const NO_CONTENT = /^(?:[ \t]*(?:#.*)?|%.*)$/;

export function yamlDocuments(text: string): YamlDocument[] {
  const out: YamlDocument[] = [];
  for (const piece of pieces(text)) {
    // Before the first marker, comments and directives alone are no document (Helm's "# Source:" lines).
    if (!DOCUMENT_START.test(piece.text.slice(0, 4)) && piece.text.split('\n').every((l) => NO_CONTENT.test(l.replace(/\r$/, '')))) continue;
    let values: unknown[];
    try {
      values = loadAll(piece.text, undefined, { schema: CORE_SCHEMA });
    } catch (e) {
      const mark = (e as { mark?: { line: number; column: number } }).mark;
      const reason = (e as { reason?: string }).reason ?? (e as Error).message.split('\n')[0]!;
      out.push({ error: mark ? `${reason} at line ${piece.firstLine + mark.line + 1}, column ${mark.column + 1}` : reason });
      continue;
    }
    for (const value of values) {
      if (expandsBeyond(value, piece.text.length + 1000)) {
        out.push({ error: `aliases expand this document beyond its size (more than ${piece.text.length + 1000} values from ${piece.text.length} characters, or a cycle), starting at line ${piece.firstLine + 1}` });
      } else out.push({ value: value ?? null });
    }
  }
  return out;
}
