// What follows the destination: "", "on 5432", "tcp 5432", "5432/tcp", "on postgres", "on udp",
// "on any port", "on 5432 over tcp", "using udp". A list ("on 80 and 443", "on 80, 443, 8080",
// "on 8080-8082") is a port list: "can", "who", "what", exposed and metadata questions answer
// each port in turn, "can" with each port's own verdict and decision chain.
import type { Protocol } from '../policy/model.js';
import { quote, Unreadable } from './tokens.js';

/** `port` null: every port (of `protocol`, or of every protocol when that is null too). */
export interface PortQuery {
  readonly port: number | string | null;
  readonly protocol: Protocol | null;
}

/** Several port numbers asked at once, in the order said, each once. */
export interface PortList {
  readonly ports: readonly number[];
  readonly protocol: Protocol | null;
}

/** The most ports one question answers in turn (a range counts each of its ports). */
export const MAX_LISTED_PORTS = 16;


export const PORT_INTROS = new Set(['on', 'at', 'via', 'over', 'using', 'through', 'with']);
export const EVERY_PORT = new Set(['all', 'any', 'every']);
// A Map, not an object: a word of the question is looked up in it, and "constructor" or
// "__proto__" must not find Object.prototype's members.
export const PROTOCOL_WORDS: ReadonlyMap<string, Protocol> = new Map([['tcp', 'TCP'], ['udp', 'UDP'], ['sctp', 'SCTP']]);
// Words after the question that ask nothing: "… on 5432 or not?", "… pls", "… thanks".
// and the judgement a "traffic from X to Y" question ends with ("… allowed?", "… blocked?", "does X → Y work?").
const TRAILING: readonly (readonly string[])[] = [['or', 'not'], ['at', 'all'], ['thank', 'you'], ['thanks'], ['thx'], ['ty'], ['right'], ['allowed'], ['blocked'], ['denied'], ['permitted'], ['possible'], ['ok'], ['work'], ['works'], ['succeed'], ['go', 'through']];

// Named ports are IANA service names (1-15 characters, at least one letter, no "--").
const SERVICE_NAME = /^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$/;
const RANGE = /^(\d+)-(\d+)$/;

function number(p: string): number {
  const n = Number(p);
  if (n < 1 || n > 65535) throw new Unreadable(`port ${p} is outside 1-65535`);
  return n;
}

/** `words`: everything after the destination (and its attached port, if any): one port, or every port. */
export function portQuery(words: readonly string[]): PortQuery {
  const asked = portsAsked(words);
  if ('ports' in asked) throw new Unreadable(`one port at a time in this question, not ${quote(words.join(' '))}: ask about each port in turn, or without a port for every allowed port range`);
  return asked;
}

/** As portQuery, and a list of ports ("on 80 and 443", "on 8080-8082"), which can/who/what/exposed/metadata questions answer port by port. */
export function portsAsked(words: readonly string[]): PortQuery | PortList {
  const said = words.join(' ');
  const kept: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const filler = TRAILING.find((f) => f.every((w, k) => words[i + k] === w));
    if (filler) i += filler.length - 1;
    else kept.push(words[i]!);
  }
  // Intros anywhere ("on 5432 over tcp"); "and" between listed ports.
  const parts = kept.filter((w) => !PORT_INTROS.has(w)).flatMap((w) => w.split(/[/:]/)).filter((w) => w !== '');
  let protocol: Protocol | null = null;
  const numbers: number[] = [];
  let named: string | null = null;
  let listed = false;
  for (const p of parts) {
    const proto = PROTOCOL_WORDS.get(p);
    if (proto) {
      if (protocol !== null && protocol !== proto) throw new Unreadable(`two protocols in ${quote(said)}`);
      protocol = proto;
    } else if (EVERY_PORT.has(p)) {
      continue;
    } else if (p === 'and' || p === '&' || p === 'or') {
      listed = true;
    } else if (/^\d+$/.test(p)) {
      if ((numbers.length > 0 && !listed) || named !== null) throw new Unreadable(`two ports in ${quote(said)}: list them as "on ${[...numbers, named ?? ''].filter((x) => x !== '').join(', ')} and ${p}"`);
      numbers.push(number(p));
      listed = false;
    } else if (RANGE.test(p)) {
      const [, a, b] = RANGE.exec(p)!;
      const [lo, hi] = [number(a!), number(b!)];
      if (hi < lo) throw new Unreadable(`the port range ${p} ends before it starts`);
      if (hi - lo >= MAX_LISTED_PORTS) throw new Unreadable(`the port range ${p} has ${hi - lo + 1} ports; ask about at most ${MAX_LISTED_PORTS} ports at once, or without a port for every allowed port range`);
      for (let n = lo; n <= hi; n++) numbers.push(n);
      listed = false;
    } else if (SERVICE_NAME.test(p)) {
      if (named !== null || numbers.length > 0 || parts.length > 2) throw new Unreadable(`expected at most a port and a protocol after the destination, got ${quote(said)}`);
      named = p;
    } else {
      throw new Unreadable(`${quote(p)} is not a port number, a named port or tcp/udp/sctp${kept.length > 1 ? ` (expected at most a port and a protocol after the destination, ports joined by "and"; got ${quote(said)})` : ''}`);
    }
  }
  if (listed) throw new Unreadable(`expected a port after "and" in ${quote(said)}`);
  const unique = [...new Set(numbers)];
  if (unique.length > MAX_LISTED_PORTS) throw new Unreadable(`${unique.length} ports in ${quote(said)}; ask about at most ${MAX_LISTED_PORTS} at once, or without a port for every allowed port range`);
  if (unique.length > 1) return { ports: unique, protocol };
  return { port: named ?? unique[0] ?? null, protocol };
}

/** A port attached to a name (`backend:8080`, `8.8.8.8:53/udp`) and the words after it: one port, said once; or a list after the name. */
export function joinPorts(attached: string | null, after: readonly string[]): PortQuery | PortList {
  if (attached === null) return portsAsked(after);
  const [a, b] = [portQuery([attached]), portsAsked(after)];
  if ('ports' in b || (b.port !== null && b.port !== a.port)) throw new Unreadable(`two ports: ${quote(attached)} on the destination and ${quote(after.join(' '))} after it`);
  return portQuery([attached, ...(b.protocol ? [b.protocol.toLowerCase()] : [])]);
}
