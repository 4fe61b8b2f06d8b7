// Decorations change no question: a random canonical question about pods of a random snapshot,
// dressed as people send it in chat (a greeting or mention before it, Slack markup or quotes on
// the names, any case, trailing punctuation or "pls", the namespace given with -n, --namespace
// or "in" instead of on each name), reads as the same question ("what can X reach in ns" also
// asks for the pods of ns only).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isParseFailure, parseQuestion } from '../../core/ask/parse.js';
import { assertProperty } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

type PodItem = { kind: string; metadata: { name: string; namespace: string } };

const PREFIXES = ['', 'hey ', 'hi, ', '@bot ', '<@U024BE7LH> ', 'please ', 'hey @netpolc, ', 'quick question: ', 'Hello team, '];
const MARKUP: ((s: string) => string)[] = [(s) => s, (s) => `*${s}*`, (s) => `_${s}_`, (s) => `\`${s}\``, (s) => `~${s}~`, (s) => `\u201c${s}\u201d`, (s) => `"${s}"`];
const ENDINGS = ['', '?', '!', '.', '??', '?!', ' ?', ' pls', ' please', ' or not?'];
const CASES: ((s: string) => string)[] = [(s) => s, (s) => s.toUpperCase(), (s) => s.replace(/\b\w/g, (c) => c.toUpperCase())];
const NAMESPACE_STYLES = [(ns: string) => ` -n ${ns}`, (ns: string) => ` --namespace ${ns}`, (ns: string) => ` --namespace=${ns}`, (ns: string) => ` in ${ns}`, (ns: string) => ` in namespace ${ns}`];

const questionArb = fc.record({
  snapshot: snapshotArb,
  from: fc.nat(),
  to: fc.nat(),
  kind: fc.constantFrom('can', 'who', 'what'),
  port: fc.option(fc.constantFrom('53', '80', '5432', 'tcp 443', 'udp 53', '53/udp', 'http'), { nil: undefined }),
  prefix: fc.constantFrom(...PREFIXES),
  markFrom: fc.nat(MARKUP.length - 1),
  markTo: fc.nat(MARKUP.length - 1),
  ending: fc.constantFrom(...ENDINGS),
  casing: fc.nat(CASES.length - 1),
  namespaceStyle: fc.option(fc.nat(NAMESPACE_STYLES.length - 1), { nil: undefined }),
});

type QuestionCase = typeof questionArb extends fc.Arbitrary<infer T> ? T : never;

function questions(q: QuestionCase): [string, string] {
  const pods = (q.snapshot.items as unknown as PodItem[]).filter((i) => i.kind === 'Pod');
  const [a, b] = [pods[q.from % pods.length]!, pods[q.to % pods.length]!];
  const on = q.port === undefined ? '' : ` on ${q.port}`;
  // -n when the question names one namespace only: names are then written without it.
  const oneNs = q.kind !== 'can' || a.metadata.namespace === b.metadata.namespace;
  const ns = q.namespaceStyle !== undefined && oneNs ? NAMESPACE_STYLES[q.namespaceStyle]!(a.metadata.namespace) : null;
  const full = (p: PodItem) => `${p.metadata.namespace}/${p.metadata.name}`;
  const written = (p: PodItem, mark: number) => MARKUP[mark]!(ns === null ? full(p) : p.metadata.name);
  const canonical = q.kind === 'can' ? `can ${full(a)} reach ${full(b)}${on}` : q.kind === 'who' ? `who can reach ${full(a)}${on}` : `what can ${full(a)} reach${on}`;
  const body = q.kind === 'can'
    ? `can ${written(a, q.markFrom)} reach ${written(b, q.markTo)}${on}`
    : q.kind === 'who' ? `who can reach ${written(a, q.markTo)}${on}` : `what can ${written(a, q.markFrom)} reach${on}`;
  return [canonical, `${q.prefix}${CASES[q.casing]!(`${body}${ns ?? ''}`)}${q.ending}`];
}

/** The namespace of the question's first pod (what -n and "in" name). */
const namespaceOf = (q: QuestionCase): string => {
  const pods = (q.snapshot.items as unknown as PodItem[]).filter((i) => i.kind === 'Pod');
  return pods[q.from % pods.length]!.metadata.namespace;
};

describe('decorated questions read as their canonical form', () => {
  it('on random snapshots, questions and decorations', () => {
    assertProperty(
      fc.property(questionArb, (q) => {
        const [canonical, decorated] = questions(q);
        const canonicalRead = parseQuestion(canonical);
        expect(isParseFailure(canonicalRead), canonical).toBe(false);
        // "what can X reach in ns" also asks for the destinations of ns only (parse.ts whatFrom).
        const want = q.kind === 'what' && q.namespaceStyle !== undefined && NAMESPACE_STYLES[q.namespaceStyle]!('ns').startsWith(' in ') ? { ...(canonicalRead as object), podsIn: namespaceOf(q) } : canonicalRead;
        expect(parseQuestion(decorated), `${decorated} (canonical: ${canonical})`).toEqual(want);
      }),
      { file: import.meta.url, numRuns: 500 },
    );
  });
});
