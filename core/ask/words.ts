// The grammar's vocabulary, one definition each: the modal verbs a question opens with, the
// verbs between source and destination, the passive forms, and every word that is therefore
// never read as a name. parse.ts and forms.ts read sentences with them, endpoints.ts names.
import { EVERY_PORT, PORT_INTROS, PROTOCOL_WORDS } from './ports.js';

export const MODALS: readonly (readonly string[])[] = [['can'], ['could'], ['may'], ['might'], ['will'], ['would'], ['should'], ['is', 'allowed', 'to'], ['are', 'allowed', 'to'], ['is', 'able', 'to']];
/** Between the source and the verb: "is X allowed to reach", "will X be able to reach", "can X not reach". */
export const ABLE: readonly (readonly string[])[] = [['be', 'able', 'to'], ['be', 'allowed', 'to'], ['allowed', 'to'], ['able', 'to'], ['unable', 'to'], ['permitted', 'to'], ['not']];
// Longest first, so "talk to" wins over the bare "talk" that "where can x/a talk" needs.
export const VERBS: readonly (readonly string[])[] = [
  ['open', 'a', 'connection', 'to'], ['open', 'connections', 'to'], ['make', 'requests', 'to'], ['send', 'requests', 'to'], ['send', 'traffic', 'to'], ['send', 'packets', 'to'],
  ['have', 'access', 'to'], ['has', 'access', 'to'], ['get', 'access', 'to'], ['talk', 'to'], ['talk', 'with'], ['speak', 'to'], ['connect', 'to'], ['get', 'to'], ['send', 'to'],
  ['make', 'outbound', 'connections', 'to'], ['make', 'connections', 'to'], ['egress', 'to'],
  ['reach'], ['access'], ['call'], ['hit'], ['curl'], ['scrape'], ['query'], ['contact'], ['connect'], ['talk'],
];
/** The same verbs in the third person: "who talks to Y", "what reaches Y". */
export const VERBS_THIRD: readonly (readonly string[])[] = [
  ['has', 'access', 'to'], ['talks', 'to'], ['talks', 'with'], ['speaks', 'to'], ['connects', 'to'], ['gets', 'to'], ['sends', 'traffic', 'to'], ['sends', 'requests', 'to'], ['sends', 'to'],
  ['reaches'], ['accesses'], ['calls'], ['hits'], ['scrapes'], ['queries'], ['contacts'],
];
/** "can anything reach Y", "does anyone talk to Y": whoever reaches Y. */
export const ANYONE = new Set(['anything', 'anyone', 'anybody', 'something', 'someone', 'somebody']);
/** Verbs for traffic NetworkPolicy cannot select: ICMP ("ping"). */
export const ICMP_VERBS = new Set(['ping', 'icmp', 'traceroute']);
/** "is Y reachable from X", "can Y be reached from X": the destination first. */
export const PASSIVE: readonly (readonly string[])[] = [['reachable'], ['accessible'], ['unreachable'], ['inaccessible'], ['be', 'reached'], ['be', 'accessed'], ['be', 'called'], ['be', 'scraped'], ['be', 'hit'], ['be', 'contacted']];

/** "does Y accept connections from X", "can Y receive traffic from X": the destination first, as PASSIVE. */
export const RECEIVES: readonly (readonly string[])[] = [
  ['accept', 'connections'], ['accepts', 'connections'], ['accept', 'traffic'], ['accepts', 'traffic'], ['accept', 'requests'], ['accepts', 'requests'],
  ['receive', 'connections'], ['receives', 'connections'], ['receive', 'traffic'], ['receives', 'traffic'], ['receive', 'requests'], ['receives', 'requests'],
];
/** "is Y open to X", "is Y reachable by X": the destination, one of these, then the source. */
export const OPEN_TO: readonly (readonly string[])[] = [['open', 'to'], ['accessible', 'to'], ['accessible', 'by'], ['reachable', 'by']];
/** What "is … from X to Y allowed" is about: "is traffic / egress / a connection from X to Y allowed". */
export const TRAFFIC_NOUNS: readonly (readonly string[])[] = [['traffic'], ['egress'], ['ingress'], ['connectivity'], ['connections'], ['a', 'connection'], ['network', 'access']];
/** "is there a path from X to Y": a reach question. */
export const PATHS: readonly (readonly string[])[] = [['there', 'a', 'path'], ['there', 'a', 'route'], ['there', 'a', 'way'], ['there', 'a', 'network', 'path'], ['there', 'connectivity'], ['there', 'network', 'connectivity']];

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
  ...MODALS.flat(), ...VERBS.flat(), ...VERBS_THIRD.flat(), ...ANYONE, ...ABLE.flat(), ...PASSIVE.flat(), ...RECEIVES.flat(), ...OPEN_TO.flat(), ...TRAFFIC_NOUNS.flat(), ...BLOCKED.flat(), ...GERUNDS.flat(), ...ICMP_VERBS, ...PORT_INTROS, ...EVERY_PORT, ...PROTOCOL_WORDS.keys(),
  'who', 'which', 'what', 'where', 'why', 'dns', 'resolve', 'does', 'do', 'did', 'from', 'traffic', 'allowed', 'able', 'exposed', 'changed', 'since', 'metadata', 'anything', 'everything', 'something', 'in', 'namespace', 'ns', 'and', 'or', '→', '-n',
].filter((w) => w !== 'a'));
