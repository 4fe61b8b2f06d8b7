// The words of a chat-ops question: chat text made plain (chat.ts), split, lower-cased (label
// values keep their case), punctuation, greetings and filler words dropped; parse.ts reads the
// grammar over them.
import { plainText } from './chat.js';

// Words people add that change nothing: "can the pod shop/web reach port 80".
const FILLERS = new Set(['the', 'pod', 'pods', 'port', 'ports', 'please', 'pls', 'plz', 'kindly', 'actually', 'really', 'still', 'even', 'ever', 'currently']);
// Openings before the question itself: "hey @bot, quick question: can …".
const OPENERS = new Set(['hey', 'hi', 'hello', 'yo', 'ok', 'okay', 'so', 'um', 'uh', 'quick', 'question', 'q', 'bot', 'netpolc', 'team', 'folks', 'everyone', 'there',
  // "check if …", "tell me whether …", "i want to know if …", "show me …", "list …"
  'check', 'tell', 'me', 'us', 'show', 'list', 'find', 'give', 'i', 'want', 'wanna', 'need', 'to', 'know', 'wonder', 'wondering', 'if', 'whether']);
// …which end where one of the words a question starts with comes (parse.ts's heads).
const QUESTION_STARTS = new Set(['can', 'could', 'may', 'might', 'will', 'would', 'should', 'is', 'are', 'does', 'do', 'did', 'who', 'which', 'what', 'where', 'why', 'how', 'from']);

/** Internal: unwinds to parseQuestion, which turns it into a ParseFailure. */
export class Unreadable extends Error {}

/** A word of the question as messages quote it. */
export const quote = (t: string | undefined): string => (t === undefined ? 'the end of the question' : `"${t.length > 40 ? `${t.slice(0, 40)}…` : t}"`);

export class Tokens {
  private at = 0;
  constructor(readonly list: readonly string[]) {}
  peek(k = 0): string | undefined {
    return this.list[this.at + k];
  }
  next(): string | undefined {
    return this.list[this.at++];
  }
  /** Consumes `words` if they come next. */
  accept(words: readonly string[]): boolean {
    if (!words.every((w, k) => this.peek(k) === w)) return false;
    this.at += words.length;
    return true;
  }
  acceptAny(phrases: readonly (readonly string[])[]): boolean {
    return phrases.some((p) => this.accept(p));
  }
  /** Whether `words` come next, without consuming them. */
  sees(words: readonly string[]): boolean {
    return words.every((w, k) => this.peek(k) === w);
  }
  /** The words left, without consuming them. */
  ahead(): readonly string[] {
    return this.list.slice(this.at);
  }
  rest(): string[] {
    const r = this.list.slice(this.at);
    this.at = this.list.length;
    return r;
  }
}

// An IPv6 address with a port, as URLs write it: `[fd00::1]:53`, `[fd00::1]:53/udp`.
const BRACKETED = /^\[[0-9a-f:.]+\](:[a-z0-9-]+(\/[a-z]+)?)?$/i;

export function tokenize(text: string): string[] {
  const words = plainText(text)
    .split(/\s+/)
    .flatMap((w) => (BRACKETED.test(w.replace(/[?!.,;]+$/, '')) ? [w.replace(/[?!.,;]+$/, '').toLowerCase()] : splitWord(w)))
    .filter((t) => t !== '' && !FILLERS.has(t));
  return withoutOpening(words);
}

function splitWord(w: string): string[] {
  return (
    // Punctuation that never occurs in a name, an address or a port.
    w
      .replace(/[?!;"'`()[\]{}<>]/g, ' ')
      .split(/\s+/)
      // Commas separate words, except inside a label selector ("shop/app=web,tier=front"),
      // whose keys and values keep their case; everything else is read in lower case.
      .flatMap((t) => (t.includes('=') ? [selectorCase(t.replace(/^,+|,+$/g, ''))] : t.toLowerCase().split(',')))
      // A sentence-final full stop or a colon after a word ("… port 80.", "question: can …");
      // no address, name or label value ends with one (an IPv6 address ending in "::" keeps it).
      .map((t) => t.replace(/\.+$/, '').replace(/(?<=[a-z]):$/, ''))
  );
}

/** Greetings, mentions and "quick question" before the question's first word. */
function withoutOpening(words: string[]): string[] {
  let i = 0;
  while (i < words.length && !QUESTION_STARTS.has(words[i]!) && (OPENERS.has(words[i]!) || words[i]!.startsWith('@'))) i++;
  return i === 0 || i === words.length ? words : words.slice(i);
}

/** A selector token: its namespace in lower case, its labels as written. */
const selectorCase = (t: string) => (t.indexOf('/') > 0 ? `${t.slice(0, t.indexOf('/')).toLowerCase()}${t.slice(t.indexOf('/'))}` : t);
