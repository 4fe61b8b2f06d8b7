// Chat text as people paste it into Slack or Teams, made plain before tokens.ts splits it:
// Slack's markup and link wrappers, typographic quotes and arrows, contractions. Nothing here
// knows the grammar; it only undoes what chat clients and keyboards do to a question.

// Slack's message formatting (api.slack.com, "Formatting text for app surfaces"): `<url|text>`
// is a link shown as `text`, `<url>` one shown as itself, `<@U123>` a mention, `<#C123|name>` a
// channel, `<!here>` a special mention. Slack links anything that looks like a host name
// (`backend.prod.svc.cluster.local` arrives as `<http://backend.prod.svc.cluster.local|backend.prod.svc.cluster.local>`).
const LINK_WITH_TEXT = /<(?:https?|mailto):[^<>|\s]*\|([^<>]*)>/gi;
const LINK = /<(?:https?:\/\/|mailto:)([^<>|\s]*)>/gi;
const MENTION = /<[@#!][^<>]*>/g;

// Typographic characters a keyboard or a chat client substitutes.
const QUOTES = /[\u2018\u2019\u201a\u201b\u2032\u00b4]/g;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb]/g;
const ARROWS = /\s*(?:-+>|=>|[\u2192\u27f6\u21d2\u2794\u279c])\s*/g;
const SPACES = /[\u00a0\u2000-\u200b\u202f\u205f\u3000]/g;
const DASHES = /[\u2010\u2011\u2012]/g;
const ELLIPSIS = /\u2026/g;

// `*bold*`, `_italics_`, `~strike~`: markers at a word's edges. No name, address or label value
// starts or ends with one (label values begin and end with an alphanumeric character).
const MARK_OPEN = /(^|[\s(["'])[*_~]+(?=[^\s*_~])/g;
const MARK_CLOSE = /([^\s*_~])[*_~]+(?=$|[\s)\]"'?!.,:;])/g;

// "can't", "isn't", "won't": read as "can not", "is not", "will not" (the negation changes no verdict).
const CONTRACTION = /\b(can|is|are|does|do|did|could|would|should|was)n?'t\b/gi;
const WONT = /\bwon't\b/gi;
const CANNOT = /\bcannot\b/gi;
// "what's", "who's", "where's": the question words' "is" ("what's blocking …", "who's allowed to …").
const QUESTION_IS = /\b(what|who|where|which|that|there|it)'s\b/gi;

/** The question as plain words: markup, links, typographic characters and contractions undone. */
export function plainText(text: string): string {
  return text
    .replace(LINK_WITH_TEXT, '$1')
    .replace(LINK, '$1')
    .replace(MENTION, ' ')
    .replace(QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(SPACES, ' ')
    .replace(DASHES, '-')
    .replace(ELLIPSIS, ' ')
    .replace(ARROWS, ' → ')
    .replace(MARK_OPEN, '$1')
    .replace(MARK_CLOSE, '$1')
    .replace(WONT, 'will not')
    .replace(CONTRACTION, '$1 not')
    .replace(CANNOT, 'can not')
    .replace(QUESTION_IS, '$1 is')
    // "on 5432, 9187": a list of ports; tokens.ts splits other commas away.
    .replace(/(\d)\s*,\s*(?=\d)/g, '$1 and ');
}
