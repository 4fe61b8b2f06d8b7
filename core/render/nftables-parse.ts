// Reads `nft -f` scripts, as the simulator and the delta tests need them: the statements netpolc
// writes, in order, onto a ruleset of named tables. Only the subset of nft syntax netpolc writes
// is understood; anything else throws rather than being guessed at, and what the kernel refuses
// (a missing element to delete, a chain or set still in use, a map key twice) throws too.
import { fromPrintable } from '../printable.js';
import { parseIp, type Family, type IpAddr, type IpRange, parseAddressOrCidr } from '../net/ip.js';

export type Verdict = { kind: 'accept' | 'drop' | 'return' | 'continue' } | { kind: 'jump' | 'goto'; chain: string } | { kind: 'vmap'; family: Family; dir: 'saddr' | 'daddr'; map: string };

export type Match =
  | { kind: 'ct'; states: readonly string[] }
  | { kind: 'addr'; family: Family; dir: 'saddr' | 'daddr'; ranges: readonly IpRange[] | null; set: string | null }
  | { kind: 'l4proto'; protocols: readonly string[] }
  | { kind: 'port'; protocol: string | null; dir: 'sport' | 'dport'; ranges: readonly (readonly [number, number])[] }
  /** `ip daddr . meta l4proto . th dport @set`: an (address, protocol, port) element lookup. */
  | { kind: 'concat'; family: Family; dir: 'saddr' | 'daddr'; set: string }
  | { kind: 'icmpv6' };

export interface NftRule {
  readonly text: string;
  readonly matches: readonly Match[];
  readonly verdict: Verdict | null;
}

export interface NftChain {
  readonly name: string;
  hook: string | null;
  policy: 'accept' | 'drop';
  readonly rules: NftRule[];
}

export interface NftTable {
  readonly sets: Map<string, IpRange[]>;
  /** Concatenated address . inet_proto . inet_service sets, as "family:value|protocol|port". */
  readonly concatSets: Map<string, Set<string>>;
  /** Verdict maps, keyed by "family:value" of the address. */
  readonly maps: Map<string, Map<string, Verdict>>;
  readonly chains: Map<string, NftChain>;
}


/**
 * The text of an nft quoted string (quote.ts nftQuote): nft reads `"[^"]*"` with no escapes, so
 * the text is what is between the quotes; netpolc's own `\xNN` escapes are read back.
 */
export function readNftQuoted(word: string): string {
  const m = /^"([^"]*)"$/.exec(word);
  if (!m) throw new Error(`nft: not a quoted string: ${word}`);
  return fromPrintable(m[1]!);
}

export const addrKey = (a: IpAddr) => `${a.family}:${a.value}`;

/** Splits a rule into words, keeping `{ … }` lists whole. */
function words(line: string): string[] {
  return line.match(/\{[^}]*\}|[^\s]+/g) ?? [];
}

const listItems = (word: string) => (word.startsWith('{') ? word.slice(1, -1).split(',').map((s) => s.trim()).filter(Boolean) : [word]);

function parseRange(text: string): [number, number] {
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!m) throw new Error(`nft: unsupported port "${text}"`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

function parseVerdict(w: readonly string[], at: number): Verdict {
  const word = w[at];
  if (word === 'accept' || word === 'drop' || word === 'return' || word === 'continue') return { kind: word };
  if ((word === 'jump' || word === 'goto') && w[at + 1]) return { kind: word, chain: w[at + 1]! };
  throw new Error(`nft: unsupported verdict "${w.slice(at).join(' ')}"`);
}

function parseRule(line: string): NftRule {
  const w = words(line);
  const matches: Match[] = [];
  let i = 0;
  while (i < w.length) {
    const [a, b, c] = [w[i]!, w[i + 1], w[i + 2]];
    if (a === 'ct' && b === 'state' && c) {
      matches.push({ kind: 'ct', states: c.split(',') });
      i += 3;
    } else if ((a === 'ip' || a === 'ip6') && (b === 'saddr' || b === 'daddr') && c) {
      const family: Family = a === 'ip' ? 4 : 6;
      if (c === '.') {
        const tail = w.slice(i + 3, i + 9).join(' ');
        const m = /^meta l4proto \. th dport @(\S+)$/.exec(tail);
        if (!m) throw new Error(`nft: unsupported concatenation in "${line}"`);
        matches.push({ kind: 'concat', family, dir: b, set: m[1]! });
        i += 9;
        continue;
      }
      if (c === 'vmap') {
        const map = w[i + 3];
        if (!map?.startsWith('@') || i + 4 !== w.length) throw new Error(`nft: unsupported vmap statement "${line}"`);
        return { text: line, matches, verdict: { kind: 'vmap', family, dir: b, map: map.slice(1) } };
      }
      if (c.startsWith('@')) matches.push({ kind: 'addr', family, dir: b, ranges: null, set: c.slice(1) });
      else matches.push({ kind: 'addr', family, dir: b, ranges: listItems(c).map((x) => rangeOf(x, family)), set: null });
      i += 3;
    } else if (a === 'meta' && b === 'l4proto' && c) {
      matches.push({ kind: 'l4proto', protocols: listItems(c) });
      i += 3;
    } else if ((a === 'tcp' || a === 'udp' || a === 'sctp' || a === 'th') && (b === 'sport' || b === 'dport') && c) {
      matches.push({ kind: 'port', protocol: a === 'th' ? null : a, dir: b, ranges: listItems(c).map(parseRange) });
      i += 3;
    } else if (a === 'icmpv6' && b === 'type' && c) {
      matches.push({ kind: 'icmpv6' });
      i += 3;
    } else {
      const verdict = parseVerdict(w, i);
      if (i + (verdict.kind === 'jump' || verdict.kind === 'goto' ? 2 : 1) !== w.length) throw new Error(`nft: words after the verdict in "${line}"`);
      return { text: line, matches, verdict };
    }
  }
  return { text: line, matches, verdict: null };
}

function rangeOf(text: string, family: Family): IpRange {
  const range = parseAddressOrCidr(text);
  if (!range || range.family !== family) throw new Error(`nft: "${text}" is not an IPv${family} address or prefix`);
  return range;
}

/** Parses one script: the statements netpolc writes, in order, onto a ruleset of named tables (a new one, or `tables` as an earlier script left it). */
export function parseNftScript(script: string, tables: Map<string, NftTable> = new Map()): Map<string, NftTable> {
  const lines = script.split('\n').map((l) => l.replace(/#.*$/, '').trim()).filter(Boolean);
  const newTable = (): NftTable => ({ sets: new Map(), concatSets: new Map(), maps: new Map(), chains: new Map() });
  let i = 0;
  const next = () => {
    const l = lines[i++];
    if (l === undefined) throw new Error('nft: unexpected end of script (unclosed block)');
    return l;
  };
  /** The `{ … }` list after `elements =`, possibly over several lines. */
  const elements = (first: string): string[] => {
    let text = first.slice(first.indexOf('{') + 1);
    while (!text.includes('}')) text += ` ${next()}`;
    return text.slice(0, text.indexOf('}')).split(',').map((s) => s.trim()).filter(Boolean);
  };
  while (i < lines.length) {
    const line = next();
    let m: RegExpExecArray | null;
    if ((m = /^(add|delete) element (\S+ \S+) (\S+) \{(.*)\}$/.exec(line))) {
      // Element changes on an existing set or map, as a delta script writes them.
      const table = tables.get(m[2]!);
      if (!table) throw new Error(`nft: ${m[1]} element in missing table ${m[2]}`);
      const items = m[4]!.split(',').map((x) => x.trim()).filter(Boolean);
      const concat = table.concatSets.get(m[3]!);
      const ranges = table.sets.get(m[3]!);
      const map = table.maps.get(m[3]!);
      if (map) {
        for (const e of items) {
          const [key, verdict] = e.split(' : ');
          const addr = key ? parseIp(key) : null;
          if (!addr) throw new Error(`nft: malformed map key "${e}"`);
          if (m[1] === 'delete' && !map.delete(addrKey(addr))) throw new Error(`nft: delete of missing element ${key} in ${m[3]}`);
          if (m[1] === 'add') {
            if (map.has(addrKey(addr))) throw new Error(`nft: element ${key} already in ${m[3]}`);
            map.set(addrKey(addr), parseVerdict(words(verdict ?? ''), 0));
          }
        }
      } else if (concat) {
        for (const e of items) {
          const [addr, proto, port] = e.split(' . ');
          const ip = addr ? parseIp(addr) : null;
          if (!ip || !proto || !port) throw new Error(`nft: malformed concatenated element "${e}"`);
          const key = `${addrKey(ip)}|${proto}|${Number(port)}`;
          if (m[1] === 'delete' && !concat.delete(key)) throw new Error(`nft: delete of missing element ${e} in ${m[3]}`);
          if (m[1] === 'add') concat.add(key);
        }
      } else if (ranges) {
        for (const e of items) {
          const r = parseAddressOrCidr(e);
          if (!r) throw new Error(`nft: malformed element "${e}"`);
          const at = ranges.findIndex((x) => x.family === r.family && x.lo === r.lo && x.hi === r.hi);
          if (m[1] === 'delete') {
            // The kernel refuses to delete an element that is not there: the whole transaction fails.
            if (at < 0) throw new Error(`nft: delete of missing element ${e} in ${m[3]}`);
            ranges.splice(at, 1);
          } else {
            if (ranges.some((x) => x.family === r.family && x.lo <= r.hi && r.lo <= x.hi)) throw new Error(`nft: element ${e} overlaps one of ${m[3]}`);
            ranges.push(r);
          }
        }
      } else throw new Error(`nft: ${m[1]} element in missing set ${m[3]}`);
    } else if ((m = /^(flush|delete) (chain|set) (\S+ \S+) (\S+)$/.exec(line))) {
      const table = tables.get(m[3]!);
      if (!table) throw new Error(`nft: ${m[1]} ${m[2]} in missing table ${m[3]}`);
      const name = m[4]!;
      if (m[2] === 'chain') {
        const chain = table.chains.get(name);
        if (!chain) throw new Error(`nft: ${m[1]} of missing chain ${name}`);
        if (m[1] === 'flush') chain.rules.length = 0;
        else {
          // The kernel refuses to delete a chain a rule or a verdict map still jumps to.
          if (referencesChain(table, name)) throw new Error(`nft: chain ${name} is still in use`);
          table.chains.delete(name);
        }
      } else {
        const plain = table.sets.get(name);
        const concat = table.concatSets.get(name);
        if (!plain && !concat) throw new Error(`nft: ${m[1]} of missing set ${name}`);
        if (m[1] === 'flush') {
          if (plain) plain.length = 0;
          concat?.clear();
        } else {
          if ([...table.chains.values()].some((c) => c.rules.some((r) => r.matches.some((x) => (x.kind === 'addr' || x.kind === 'concat') && x.set === name)))) throw new Error(`nft: set ${name} is still in use`);
          table.sets.delete(name);
          table.concatSets.delete(name);
        }
      }
    } else if ((m = /^delete table (\S+ \S+)$/.exec(line))) {
      if (!tables.delete(m[1]!)) throw new Error(`nft: delete of missing table ${m[1]}`);
    } else if ((m = /^table (\S+ \S+) \{\s*\}$/.exec(line))) {
      if (!tables.has(m[1]!)) tables.set(m[1]!, newTable());
    } else if ((m = /^table (\S+ \S+) \{$/.exec(line))) {
      const table = tables.get(m[1]!) ?? newTable();
      tables.set(m[1]!, table);
      for (let inner = next(); inner !== '}'; inner = next()) {
        const block = /^(set|map|chain) (\S+) \{$/.exec(inner);
        if (!block) throw new Error(`nft: unsupported table statement "${inner}"`);
        const kind = block[1] as 'set' | 'map' | 'chain';
        const name = block[2]!;
        const chain: NftChain = { name, hook: null, policy: 'accept', rules: [] };
        let family: Family | null = null;
        let concat = false;
        for (let body = next(); body !== '}'; body = next()) {
          const type = /^type (ipv4_addr|ipv6_addr)( : verdict| \. inet_proto \. inet_service)?$/.exec(body);
          if (kind === 'set' && type?.[2]?.startsWith(' .')) concat = true;
          const base = /^type filter hook (\w+) priority [\w-]+; policy (accept|drop);$/.exec(body);
          if (kind !== 'chain' && type) family = type[1] === 'ipv4_addr' ? 4 : 6;
          else if (kind === 'set' && (body === 'flags interval' || body === 'auto-merge')) continue;
          else if (kind === 'set' && body.startsWith('elements = {') && family && concat) {
            const keys = new Set<string>();
            for (const e of elements(body)) {
              const [addr, proto, port] = e.split(' . ');
              if (!addr || !proto || !port || !/^\d+$/.test(port)) throw new Error(`nft: malformed concatenated element "${e}"`);
              keys.add(`${addrKey({ family, value: rangeOf(addr, family).lo })}|${proto}|${Number(port)}`);
            }
            table.concatSets.set(name, keys);
          } else if (kind === 'set' && body.startsWith('elements = {') && family) table.sets.set(name, elements(body).map((e) => rangeOf(e, family!)));
          else if (kind === 'map' && body.startsWith('elements = {') && family) {
            const entries = new Map<string, Verdict>();
            for (const e of elements(body)) {
              const [key, verdict] = e.split(' : ');
              entries.set(addrKey({ family, value: rangeOf(key!, family).lo }), parseVerdict(words(verdict ?? ''), 0));
            }
            table.maps.set(name, entries);
          } else if (kind === 'chain' && base) [chain.hook, chain.policy] = [base[1]!, base[2] as 'accept' | 'drop'];
          else if (kind === 'chain') chain.rules.push(parseRule(body));
          else throw new Error(`nft: unsupported ${kind} statement "${body}"`);
        }
        if (kind === 'map' && !table.maps.has(name)) table.maps.set(name, new Map());
        if (kind === 'set' && concat && !table.concatSets.has(name)) table.concatSets.set(name, new Set());
        else if (kind === 'set' && !concat && !table.sets.has(name)) table.sets.set(name, []);
        if (kind === 'chain') table.chains.set(name, chain);
      }
    } else throw new Error(`nft: unsupported statement "${line}"`);
  }
  return tables;
}

function referencesChain(table: NftTable, name: string): boolean {
  const to = (v: Verdict | null) => v !== null && (v.kind === 'jump' || v.kind === 'goto') && v.chain === name;
  return [...table.chains.values()].some((c) => c.rules.some((r) => to(r.verdict))) || [...table.maps.values()].some((m) => [...m.values()].some(to));
}
