// Reads a node's iptables artifact back (never the IR) and runs a new connection through it as
// the kernel would: the ipset restore payload builds the sets (temporary sets and swaps
// included), the --noflush restore payloads netpolc's chains, and the hooks the built-in FORWARD
// chain; then FORWARD on every node the flow crosses, with jumps, gotos, RETURN, set matches and
// the chain policy. Only the subset of the syntax netpolc writes is understood; anything else
// throws rather than being guessed at.
import { parseIp, type Family, type IpAddr, type IpRange, parseAddressOrCidr } from '../net/ip.js';
import type { DataplaneSimulator, FlowQuery } from './types.js';
import { iptablesArgs } from './iptables-args.js';

/** Dispatch chains: a local pod's address → its table chain (the renderer writes these). */
export const DISPATCH_CHAINS = { egress: 'NETPOLC-EGRESS', ingress: 'NETPOLC-INGRESS' } as const;
/** netpolc's entry chains, reached from the built-in FORWARD and INPUT by the artifact's hooks. */
export const ENTRY_CHAINS = { forward: 'NETPOLC-FORWARD', input: 'NETPOLC-INPUT' } as const;

/** An ipset: hash:net members as ranges, or hash:ip,port elements as "family:value|protocol|port". */
type IpSet = { readonly type: 'hash:net'; ranges: IpRange[] } | { readonly type: 'hash:ip,port'; elements: Set<string> };

/** Applies an `ipset restore` payload (create -exist, flush, add, swap, destroy) to a node's sets. */
export function parseIpset(payload: string, sets: Map<string, IpSet> = new Map()): Map<string, IpSet> {
  for (const raw of payload.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const w = line.split(/\s+/);
    const need = (name: string) => {
      const set = sets.get(name);
      if (!set) throw new Error(`ipset: ${w[0]} of missing set ${name}`);
      return set;
    };
    if (w[0] === 'create' && w.length === 6 && w[4] !== undefined && w[5] === '-exist') {
      if (w[2] !== 'hash:net' && w[2] !== 'hash:ip,port') throw new Error(`ipset: unsupported type ${w[2]}`);
      if (!sets.has(w[1]!)) sets.set(w[1]!, w[2] === 'hash:net' ? { type: 'hash:net', ranges: [] } : { type: 'hash:ip,port', elements: new Set() });
    } else if (w[0] === 'flush' && w.length === 2) {
      const set = need(w[1]!);
      if (set.type === 'hash:net') set.ranges = [];
      else set.elements = new Set();
    } else if ((w[0] === 'add' || w[0] === 'del') && (w.length === 3 || (w.length === 4 && w[3] === '-exist'))) {
      // Without -exist, adding a member that is there or deleting one that is not is an error.
      const set = need(w[1]!);
      const exist = w.length === 4;
      if (set.type === 'hash:net') {
        const r = parseAddressOrCidr(w[2]!);
        if (!r || w[2]!.endsWith('/0')) throw new Error(`ipset: hash:net does not take "${w[2]}"`);
        const at = set.ranges.findIndex((x) => x.family === r.family && x.lo === r.lo && x.hi === r.hi);
        if (w[0] === 'add' && at < 0) set.ranges.push(r);
        else if (w[0] === 'del' && at >= 0) set.ranges.splice(at, 1);
        else if (!exist) throw new Error(`ipset: ${w[0]} of ${w[2]} in ${w[1]}: ${at < 0 ? 'not there' : 'already there'}`);
      } else {
        const m = /^([^,]+),(tcp|udp|sctp):(\d+)$/.exec(w[2]!);
        const ip = m && parseIp(m[1]!);
        if (!m || !ip) throw new Error(`ipset: malformed hash:ip,port element "${w[2]}"`);
        const key = `${ip.family}:${ip.value}|${m[2]}|${Number(m[3])}`;
        const there = set.elements.has(key);
        if (w[0] === 'add' && !there) set.elements.add(key);
        else if (w[0] === 'del' && there) set.elements.delete(key);
        else if (!exist) throw new Error(`ipset: ${w[0]} of ${w[2]} in ${w[1]}: ${there ? 'already there' : 'not there'}`);
      }
    } else if (w[0] === 'swap' && w.length === 3) {
      const [a, b] = [need(w[1]!), need(w[2]!)];
      if (a.type !== b.type) throw new Error(`ipset: swap of sets of different types`);
      sets.set(w[1]!, b);
      sets.set(w[2]!, a);
    } else if (w[0] === 'destroy' && w.length === 2) {
      need(w[1]!);
      sets.delete(w[1]!);
    } else throw new Error(`ipset: unsupported line "${line}"`);
  }
  return sets;
}

type Target = { kind: 'ACCEPT' | 'DROP' | 'RETURN' } | { kind: 'jump' | 'goto'; chain: string };

interface IptRule {
  readonly text: string;
  /** The rule's options as written after the chain name: what -D matches. */
  readonly spec: string;
  src: IpRange | null;
  dst: IpRange | null;
  protocol: string | null;
  sport: [number, number] | null;
  dport: [number, number] | null;
  ctstates: string[] | null;
  icmpv6: boolean;
  /** -m set --match-set NAME src | dst | dst,dst */
  set: { name: string; flags: string } | null;
  target: Target | null;
}

interface IptChain {
  readonly policy: 'ACCEPT' | 'DROP' | null;
  readonly rules: IptRule[];
}
export type { IpSet, IptRule };

export type IptTable = Map<string, IptChain>;

const MODULES = new Set(['tcp', 'udp', 'sctp', 'conntrack', 'icmp6', 'set']);
const BUILTIN = new Set(['ACCEPT', 'DROP', 'RETURN']);

function addressRange(text: string, family: Family): IpRange {
  const range = parseAddressOrCidr(text);
  if (!range || range.family !== family) throw new Error(`iptables: "${text}" is not an IPv${family} address or prefix`);
  return range;
}

function portRange(text: string): [number, number] {
  const m = /^(\d+)(?::(\d+))?$/.exec(text);
  if (!m) throw new Error(`iptables: unsupported port "${text}"`);
  return [Number(m[1]), Number(m[2] ?? m[1])];
}

function parseRule(args: readonly string[], text: string, family: Family): IptRule {
  const rule: IptRule = { text, spec: args.join(' '), src: null, dst: null, protocol: null, sport: null, dport: null, ctstates: null, icmpv6: false, set: null, target: null };
  for (let i = 0; i < args.length; i += 2) {
    const [opt, value] = [args[i]!, args[i + 1]];
    if (value === undefined) throw new Error(`iptables: option ${opt} without a value in "${text}"`);
    if (opt === '--match-set') {
      const flags = args[i + 2];
      if (flags !== 'src' && flags !== 'dst' && flags !== 'dst,dst' && flags !== 'src,src') throw new Error(`iptables: unsupported set flags in "${text}"`);
      rule.set = { name: value, flags };
      i++;
    } else if (opt === '-s') rule.src = addressRange(value, family);
    else if (opt === '-d') rule.dst = addressRange(value, family);
    else if (opt === '-p') rule.protocol = value;
    else if (opt === '-m') {
      if (!MODULES.has(value)) throw new Error(`iptables: unsupported match module ${value}`);
    } else if (opt === '--dport') rule.dport = portRange(value);
    else if (opt === '--sport') rule.sport = portRange(value);
    else if (opt === '--ctstate') rule.ctstates = value.split(',');
    else if (opt === '--icmpv6-type') rule.icmpv6 = true;
    else if (opt === '-j') rule.target = BUILTIN.has(value) ? { kind: value as 'ACCEPT' | 'DROP' | 'RETURN' } : { kind: 'jump', chain: value };
    else if (opt === '-g') rule.target = { kind: 'goto', chain: value };
    else throw new Error(`iptables: unsupported option ${opt} in "${text}"`);
  }
  if ((rule.sport || rule.dport) && !['tcp', 'udp', 'sctp'].includes(rule.protocol ?? '')) throw new Error(`iptables: port match without -p tcp|udp|sctp in "${text}"`);
  return rule;
}

/**
 * Applies a payload as `iptables-restore --noflush` does to the chains `table` holds (none: a
 * fresh table): a declared chain is created or flushed, -A appends, -D deletes the first rule
 * with the same options, -F flushes, -X deletes an empty chain no rule jumps to. The payload
 * is one commit: on any error `table` is left as it was.
 */
export function applyRestore(payload: string, family: Family, table: IptTable = new Map()): IptTable {
  const next: IptTable = new Map([...table].map(([name, c]) => [name, { policy: c.policy, rules: [...c.rules] }]));
  const need = (chain: string | undefined, line: string) => {
    const c = chain === undefined ? undefined : next.get(chain);
    if (!c) throw new Error(`iptables: "${line}" names a chain that does not exist`);
    return c;
  };
  let state: 'outside' | 'filter' | 'done' = 'outside';
  for (const raw of payload.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line === '*filter' && state === 'outside') state = 'filter';
    else if (line === 'COMMIT' && state === 'filter') state = 'done';
    else if (state !== 'filter') throw new Error(`iptables: "${line}" outside a *filter … COMMIT block`);
    else if (line.startsWith(':')) {
      const m = /^:(\S+) (ACCEPT|DROP|-) \[\d+:\d+\]$/.exec(line);
      if (!m) throw new Error(`iptables: malformed chain line "${line}"`);
      next.set(m[1]!, { policy: m[2] === '-' ? null : (m[2] as 'ACCEPT' | 'DROP'), rules: [] });
    } else {
      const [op, chain, ...args] = iptablesArgs(line);
      if (op === '-A') need(chain, line).rules.push(parseRule(args, line, family));
      else if (op === '-D') {
        const c = need(chain, line);
        const at = c.rules.findIndex((r) => r.spec === args.join(' '));
        if (at < 0) throw new Error(`iptables: "${line}": no such rule`);
        c.rules.splice(at, 1);
      } else if (op === '-F' && args.length === 0) need(chain, line).rules.length = 0;
      else if (op === '-X' && args.length === 0) {
        if (need(chain, line).rules.length > 0) throw new Error(`iptables: "${line}": the chain is not empty`);
        if ([...next.values()].some((c) => c.rules.some((r) => (r.target?.kind === 'jump' || r.target?.kind === 'goto') && r.target.chain === chain))) throw new Error(`iptables: "${line}": the chain is still referenced`);
        next.delete(chain!);
      } else throw new Error(`iptables: unsupported line "${line}"`);
    }
  }
  if (state !== 'done') throw new Error('iptables: payload does not end with COMMIT');
  for (const c of next.values()) for (const r of c.rules) if (r.target && (r.target.kind === 'jump' || r.target.kind === 'goto') && !next.has(r.target.chain)) throw new Error(`iptables: a rule jumps to chain ${r.target.chain}, which does not exist`);
  return next;
}

/** Parses a whole payload onto an empty table. */
export const parseRestore = (payload: string, family: Family): IptTable => applyRestore(payload, family);

interface Packet {
  readonly src: IpAddr;
  readonly dst: IpAddr;
  readonly protocol: string;
  readonly dport: number;
}

const within = (r: IpRange | null, a: IpAddr) => r === null || (r.family === a.family && r.lo <= a.value && a.value <= r.hi);

function matches(r: IptRule, p: Packet, sets: ReadonlyMap<string, IpSet>): boolean {
  if (!within(r.src, p.src) || !within(r.dst, p.dst)) return false;
  if (r.set) {
    const set = sets.get(r.set.name);
    if (!set) throw new Error(`iptables: rule uses missing ipset ${r.set.name}`);
    const addr = r.set.flags.startsWith('src') ? p.src : p.dst;
    if (set.type === 'hash:net' ? !set.ranges.some((x) => within(x, addr)) : !set.elements.has(`${addr.family}:${addr.value}|${p.protocol}|${p.dport}`)) return false;
  }
  if (r.protocol !== null && r.protocol !== p.protocol) return false;
  if (r.ctstates && !r.ctstates.includes('NEW')) return false; // every simulated flow opens a connection
  if (r.icmpv6) return false; // flows are TCP, UDP or SCTP
  if (r.sport) throw new Error('iptables: a source-port match cannot be simulated (a flow has no source port)');
  return r.dport === null || (r.dport[0] <= p.dport && p.dport <= r.dport[1]);
}

type Outcome = 'ACCEPT' | 'DROP' | 'RETURN';

function run(table: IptTable, sets: ReadonlyMap<string, IpSet>, name: string, p: Packet, trace: string[], depth: number): Outcome {
  const chain = table.get(name);
  if (!chain) throw new Error(`iptables: jump to undeclared chain ${name}`);
  if (depth > 32) throw new Error(`iptables: chain nesting deeper than 32 at ${name}`);
  for (const rule of chain.rules) {
    if (!matches(rule, p, sets)) continue;
    trace.push(rule.text);
    const t = rule.target;
    if (!t) continue;
    if (t.kind === 'jump') {
      const r = run(table, sets, t.chain, p, trace, depth + 1);
      if (r !== 'RETURN') return r;
    } else if (t.kind === 'goto') return run(table, sets, t.chain, p, trace, depth + 1);
    else return t.kind;
  }
  return 'RETURN';
}

/** The built-in FORWARD and INPUT chains as the hooks leave them (policy ACCEPT; other writers' rules are theirs). */
function withHooks(table: IptTable, hooks: readonly string[], family: Family): IptTable {
  const out = new Map(table);
  for (const chain of ['FORWARD', 'INPUT']) out.set(chain, { policy: 'ACCEPT', rules: [] });
  for (const hook of hooks) {
    const m = /^-I (FORWARD|INPUT) 1 (.+)$/.exec(hook);
    if (!m) throw new Error(`iptables: unsupported hook "${hook}"`);
    out.get(m[1]!)!.rules.unshift(parseRule(m[2]!.split(/\s+/), hook, family));
  }
  return out;
}

export interface IptablesSimulator extends DataplaneSimulator {
  /** The verdict and every rule the flow matched, node by node, for failure reports. */
  explain(flow: FlowQuery): { allowed: boolean; trace: string[] };
}

const addrKey = (a: IpAddr) => `${a.family}:${a.value}`;

export function iptablesSimulator(rendered: Record<string, { ipset: string; ipv4: string; ipv6: string; hooks: readonly string[] }>): IptablesSimulator {
  const nodes = new Map(Object.entries(rendered).map(([name, p]) => [name, { 4: withHooks(parseRestore(p.ipv4, 4), p.hooks, 4), 6: withHooks(parseRestore(p.ipv6, 6), p.hooks, 6) } as Record<Family, IptTable>]));
  const setsOf = new Map(Object.entries(rendered).map(([name, p]) => [name, parseIpset(p.ipset)]));
  // A node hosts the addresses its dispatch chains name: its local pods.
  const owner = new Map<string, string>();
  for (const [name, tables] of nodes)
    for (const table of [tables[4], tables[6]])
      for (const [chain, side] of [[DISPATCH_CHAINS.egress, 'src'], [DISPATCH_CHAINS.ingress, 'dst']] as const)
        for (const rule of table.get(chain)?.rules ?? []) {
          const r = rule[side];
          if (!r || r.lo !== r.hi) continue;
          const key = addrKey({ family: r.family, value: r.lo });
          if ((owner.get(key) ?? name) !== name) throw new Error(`iptables: address ${key} dispatched on nodes ${owner.get(key)} and ${name}`);
          owner.set(key, name);
        }
  const explain = (flow: FlowQuery) => {
    const src = parseIp(flow.src);
    const dst = parseIp(flow.dst);
    if (!src || !dst || src.family !== dst.family) throw new Error(`flow addresses must be IPs of one family: ${flow.src} → ${flow.dst}`);
    if (flow.src === flow.dst) return { allowed: true, trace: ['loopback'] };
    const packet: Packet = { src, dst, protocol: flow.protocol.toLowerCase(), dport: flow.port };
    // The source pod's node routes the packet out, the destination pod's node delivers it.
    const path = [...new Set([owner.get(addrKey(src)), owner.get(addrKey(dst))].filter((n): n is string => n !== undefined))];
    const trace: string[] = [];
    for (const name of path) {
      const table = nodes.get(name)![src.family];
      trace.push(`node ${name} (${src.family === 4 ? 'iptables' : 'ip6tables'}): FORWARD`);
      const r = run(table, setsOf.get(name)!, 'FORWARD', packet, trace, 0);
      if ((r === 'RETURN' ? (table.get('FORWARD')?.policy ?? 'ACCEPT') : r) === 'DROP') return { allowed: false, trace };
    }
    return { allowed: true, trace };
  };
  return { allowed: (flow) => explain(flow).allowed, explain };
}
