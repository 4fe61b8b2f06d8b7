// The words of a chat-ops question: split, lower-cased (label values keep their case),
// punctuation and filler words dropped; parse.ts reads the grammar over them.

// Words people add that change nothing: "can the pod shop/web reach port 80".
const FILLERS = new Set(['the', 'pod', 'pods', 'port', 'ports', 'please']);

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
  rest(): string[] {
    const r = this.list.slice(this.at);
    this.at = this.list.length;
    return r;
  }
}

export function tokenize(text: string): string[] {
  return (
    text
      // Punctuation that never occurs in a name, an address or a port.
      .replace(/[?!;"'`()[\]{}<>]/g, ' ')
      .split(/\s+/)
      // Commas separate words, except inside a label selector ("shop/app=web,tier=front"),
      // whose keys and values keep their case; everything else is read in lower case.
      .flatMap((t) => (t.includes('=') ? [selectorCase(t.replace(/^,+|,+$/g, ''))] : t.toLowerCase().split(',')))
      // A sentence-final full stop ("… port 80."); no address, name or label value ends with one.
      .map((t) => t.replace(/\.+$/, ''))
      .filter((t) => t !== '' && !FILLERS.has(t))
  );
}

/** A selector token: its namespace in lower case, its labels as written. */
const selectorCase = (t: string) => (t.indexOf('/') > 0 ? `${t.slice(0, t.indexOf('/')).toLowerCase()}${t.slice(t.indexOf('/'))}` : t);
