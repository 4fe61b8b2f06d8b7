// Where each element of a JSON array is in its text, without parsing it: a stored object group
// is checked against its id by hashing each object's text, and its text as stored is that text
// already (the group was written from it), so the elements are hashed where they lie instead of
// being written again from the parsed objects (at L, 181k objects: JSON.stringify and a key-order
// walk of each, the largest part of reading a version's objects back).

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The elements of the array whose `[` is at `at`, as the text between its commas: start and end
 * offsets, two per element. Null when no array starts there or the text ends before it does.
 * Whitespace between elements stays in their text (the stored groups have none: JSON.stringify's
 * compact form). The text need not be valid JSON beyond the brackets, strings and commas it reads;
 * the caller parses it, and hashes what this returns.
 */
export function arrayElementSpans(text: string, at: number): number[] | null {
  if (text.charCodeAt(at) !== OPEN_ARRAY) return null;
  const spans: number[] = [];
  let depth = 0;
  let start = at + 1;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // A string: on to its closing quote, found natively (most of the text is in strings); a
      // quote after an odd run of backslashes is escaped.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return null;
        let slashes = 0;
        while (text.charCodeAt(i - 1 - slashes) === BACKSLASH) slashes++;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth === 0) {
        if (i > start) spans.push(start, i);
        return spans;
      }
    } else if (c === COMMA && depth === 1) {
      spans.push(start, i);
      start = i + 1;
    }
  }
  return null;
}
