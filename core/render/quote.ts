// Text from the input (node and pod names, versions) as the script renderers print it, so it
// can never end a line, a quoted string or a comment early. Names are validated as the API
// server does (schemas/k8s/names.ts), so a name is always a plain word and printed as it is;
// anything else is written as an escaped quoted string, one function per output syntax.

/** Characters that mean the same in every syntax written here, in a comment or an argument. */
const PLAIN = /^[A-Za-z0-9][\w.:/@+=-]*$/;

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

/**
 * An nft quoted string. nft's scanner reads `"[^"]*"` with no escapes, so the text between the
 * quotes is printable(s): no `"` to end it, no newline to end the statement or a `#` comment.
 */
export const nftQuote = (s: string): string => `"${printable(s)}"`;

/**
 * An iptables-restore quoted argument: iptables-restore splits a line into arguments itself
 * (xshared.c add_param_to_argv), where inside `"…"` a backslash takes the next character as it
 * is; the argument it reads is printable(s), which holds no `"` and no line break.
 */
export const iptablesQuote = (s: string): string => `"${printable(s).replaceAll('\\', '\\\\')}"`;

/** `s` as it is when it is a plain word (every valid name), else quoted for nft. */
export const nftText = (s: string): string => (PLAIN.test(s) ? s : nftQuote(s));

/** `s` as it is when it is a plain word (every valid name), else quoted for iptables-restore. */
export const iptablesText = (s: string): string => (PLAIN.test(s) ? s : iptablesQuote(s));
