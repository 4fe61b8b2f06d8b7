// The grammar's vocabulary, one definition each: the modal verbs a question opens with, the
// verbs between source and destination, the passive forms, and every word that is therefore
// never read as a name. parse.ts and forms.ts read sentences with them, endpoints.ts names.
import { EVERY_PORT, PORT_INTROS, PROTOCOL_WORDS } from './ports.js';

export const MODALS: readonly (readonly string[])[] = [['can'], ['could'], ['may'], ['might'], ['will'], ['would'], ['should'], ['is', 'allowed', 'to'], ['are', 'allowed', 'to'], ['is', 'able', 'to']];
/** Between the source and the verb: "is X allowed to reach", "will X be able to reach", "can X not reach". */
export const ABLE: readonly (readonly string[])[] = [['be', 'able', 'to'], ['be', 'allowed', 'to'], ['allowed', 'to'], ['able', 'to'], ['permitted', 'to'], ['not']];
// Longest first, so "talk to" wins over the bare "talk" that "where can x/a talk" needs.
export const VERBS: readonly (readonly string[])[] = [
  ['open', 'a', 'connection', 'to'], ['open', 'connections', 'to'], ['make', 'requests', 'to'], ['send', 'requests', 'to'], ['send', 'traffic', 'to'], ['send', 'packets', 'to'],
  ['have', 'access', 'to'], ['has', 'access', 'to'], ['get', 'access', 'to'], ['talk', 'to'], ['talk', 'with'], ['speak', 'to'], ['connect', 'to'], ['get', 'to'], ['send', 'to'],
  ['reach'], ['access'], ['call'], ['hit'], ['curl'], ['scrape'], ['query'], ['contact'], ['connect'], ['talk'],
];
/** Verbs for traffic NetworkPolicy cannot select: ICMP ("ping"). */
export const ICMP_VERBS = new Set(['ping', 'icmp', 'traceroute']);
/** "is Y reachable from X", "can Y be reached from X": the destination first. */
export const PASSIVE: readonly (readonly string[])[] = [['reachable'], ['accessible'], ['be', 'reached'], ['be', 'accessed'], ['be', 'called'], ['be', 'scraped'], ['be', 'hit'], ['be', 'contacted']];

/** "why is X blocked from reaching Y", "is X denied access to Y": the source, then one of these, then the destination. */
export const BLOCKED: readonly (readonly string[])[] = [
  ['blocked', 'from'], ['prevented', 'from'], ['stopped', 'from'], ['kept', 'from'], ['denied', 'from'], ['denied', 'access', 'to'], ['blocked', 'access', 'to'],
];
/** The verb after BLOCKED's "from", as a gerund: "blocked from reaching", "prevented from talking to". */
export const GERUNDS: readonly (readonly string[])[] = [
  ['opening', 'connections', 'to'], ['sending', 'traffic', 'to'], ['sending', 'requests', 'to'], ['talking', 'to'], ['connecting', 'to'], ['getting', 'to'],
  ['reaching'], ['accessing'], ['calling'], ['hitting'], ['scraping'], ['querying'], ['contacting'],
];

/** Words of the grammar are never a bare (node) name. */
export const GRAMMAR_WORDS = new Set([
  ...MODALS.flat(), ...VERBS.flat(), ...ABLE.flat(), ...PASSIVE.flat(), ...BLOCKED.flat(), ...GERUNDS.flat(), ...ICMP_VERBS, ...PORT_INTROS, ...EVERY_PORT, ...PROTOCOL_WORDS.keys(),
  'who', 'which', 'what', 'where', 'why', 'does', 'do', 'did', 'from', 'traffic', 'allowed', 'able', 'exposed', 'changed', 'since', 'metadata', 'anything', 'everything', 'something', 'in', 'namespace', 'ns', 'and', 'or', '→', '-n',
].filter((w) => w !== 'a'));
