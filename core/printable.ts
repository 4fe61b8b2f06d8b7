// Text from the input shown to a person or written into a script (names in warnings, problem
// lines, rendered comments) so that it stays on one line and shows every character: a name the
// API server would refuse may still reach a warning, a log or a lenient reading's report.

// Escaped: the backslash, the double quote, controls (C0, DEL, C1), format characters (bidi
// overrides and other invisible ones), line and paragraph separators, lone surrogates.
const UNSAFE = /[\\"\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/gu;

function escapeChar(c: string): string {
  const code = c.codePointAt(0)!;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * `s` with every character that could end a line, a quoted string or a comment, or hide text, as
 * `\xNN` or `\u{N}` (`\` itself as `\x5c`): the result is printable, on one line, without `"`.
 */
export function printable(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

/** The inverse of printable. */
export function fromPrintable(s: string): string {
  return s.replace(/\\x([0-9a-f]{2})|\\u\{([0-9a-f]{1,6})\}/g, (_, x: string | undefined, u: string | undefined) => String.fromCodePoint(parseInt(x ?? u!, 16)));
}
