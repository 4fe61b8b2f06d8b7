// Text from the input (node and pod names, versions) as the script renderers print it, so it
// can never end a line, a quoted string or a comment early. Names are validated as the API
// server does (schemas/k8s/names.ts), so a name is always a plain word and printed as it is;
// anything else is written as an escaped quoted string, one function per output syntax.

import { printable } from '../printable.js';

/** Characters that mean the same in every syntax written here, in a comment or an argument. */
const PLAIN = /^[A-Za-z0-9][\w.:/@+=-]*$/;


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
