// Reads `nft -f` scripts back (never the IR) and runs a new connection through them as the
// kernel would: the base chain hooked at forward on every node the flow crosses, jumps,
// gotos, returns, named sets and verdict maps. Only the subset of nft syntax netpolc writes is
// understood; anything else throws rather than being guessed at.
import { parseIp, type IpAddr, type IpRange } from '../net/ip.js';
import type { DataplaneSimulator, FlowQuery } from './types.js';
import { addrKey, parseNftScript, type Match, type NftTable, type Verdict } from './nftables-parse.js';

export { parseNftScript } from './nftables-parse.js';

interface Packet {
  readonly src: IpAddr;
  readonly dst: IpAddr;
  readonly protocol: string;
  readonly dport: number;
}

const inRanges = (ranges: readonly IpRange[], a: IpAddr) => ranges.some((r) => r.family === a.family && r.lo <= a.value && a.value <= r.hi);

function matches(m: Match, p: Packet, table: NftTable): boolean {
  switch (m.kind) {
    case 'ct':
      return m.states.includes('new'); // every simulated flow opens a connection
    case 'addr': {
      const addr = m.dir === 'saddr' ? p.src : p.dst;
      if (addr.family !== m.family) return false;
      const ranges = m.ranges ?? table.sets.get(m.set!);
      if (!ranges) throw new Error(`nft: rule uses undefined set @${m.set}`);
      return inRanges(ranges, addr);
    }
    case 'l4proto':
      return m.protocols.includes(p.protocol);
    case 'port':
      if (m.dir === 'sport') throw new Error('nft: a source-port match cannot be simulated (a flow has no source port)');
      return (m.protocol === null || m.protocol === p.protocol) && m.ranges.some(([lo, hi]) => lo <= p.dport && p.dport <= hi);
    case 'concat': {
      const addr = m.dir === 'saddr' ? p.src : p.dst;
      if (addr.family !== m.family) return false;
      const set = table.concatSets.get(m.set);
      if (!set) throw new Error(`nft: rule uses undefined set @${m.set}`);
      return set.has(`${addrKey(addr)}|${p.protocol}|${p.dport}`);
    }
    case 'icmpv6':
      return false; // flows are TCP, UDP or SCTP
  }
}

type Outcome = 'accept' | 'drop' | 'return';

function run(table: NftTable, chainName: string, p: Packet, trace: string[], depth: number): Outcome {
  const chain = table.chains.get(chainName);
  if (!chain) throw new Error(`nft: jump to undefined chain ${chainName}`);
  if (depth > 32) throw new Error(`nft: chain nesting deeper than 32 at ${chainName}`);
  const apply = (v: Verdict, from: string): Outcome | null => {
    switch (v.kind) {
      case 'accept':
      case 'drop':
      case 'return':
        return v.kind;
      case 'continue':
        return null;
      case 'jump': {
        const r = run(table, v.chain, p, trace, depth + 1);
        return r === 'return' ? null : r;
      }
      case 'goto':
        return run(table, v.chain, p, trace, depth + 1);
      case 'vmap': {
        const map = table.maps.get(v.map);
        if (!map) throw new Error(`nft: ${from} uses undefined map @${v.map}`);
        const addr = v.dir === 'saddr' ? p.src : p.dst;
        const hit = addr.family === v.family ? map.get(addrKey(addr)) : undefined;
        return hit ? apply(hit, from) : null;
      }
    }
  };
  for (const [index, rule] of chain.rules.entries()) {
    if (!rule.matches.every((m) => matches(m, p, table))) continue;
    trace.push(`${chainName}[${index}] ${rule.text}`);
    const outcome = rule.verdict ? apply(rule.verdict, `${chainName}[${index}]`) : null;
    if (outcome) return outcome;
  }
  return 'return';
}

export interface NftSimulator extends DataplaneSimulator {
  /** The verdict and every rule the flow matched, node by node, for failure reports. */
  explain(flow: FlowQuery): { allowed: boolean; trace: string[] };
}

export function nftablesSimulator(rendered: Record<string, string>): NftSimulator {
  const nodes = Object.entries(rendered).map(([name, script]) => ({ name, tables: [...parseNftScript(script).values()] }));
  // A node hosts the addresses its verdict maps dispatch on: its local pods.
  const owner = new Map<string, string>();
  for (const n of nodes)
    for (const t of n.tables)
      for (const map of t.maps.values())
        for (const key of map.keys()) {
          if ((owner.get(key) ?? n.name) !== n.name) throw new Error(`nft: address ${key} dispatched on nodes ${owner.get(key)} and ${n.name}`);
          owner.set(key, n.name);
        }
  const explain = (flow: FlowQuery) => {
    const src = parseIp(flow.src);
    const dst = parseIp(flow.dst);
    if (!src || !dst) throw new Error(`flow addresses must be IPs: ${flow.src} → ${flow.dst}`);
    if (flow.src === flow.dst) return { allowed: true, trace: ['loopback'] };
    const packet: Packet = { src, dst, protocol: flow.protocol.toLowerCase(), dport: flow.port };
    // The source pod's node routes the packet out, the destination pod's node delivers it.
    const path = [...new Set([owner.get(addrKey(src)), owner.get(addrKey(dst))].filter((n): n is string => n !== undefined))];
    const trace: string[] = [];
    for (const name of path) {
      for (const table of nodes.find((n) => n.name === name)!.tables) {
        for (const chain of table.chains.values()) {
          if (chain.hook !== 'forward') continue;
          trace.push(`node ${name}: chain ${chain.name}`);
          const r = run(table, chain.name, packet, trace, 0);
          if ((r === 'return' ? chain.policy : r) === 'drop') return { allowed: false, trace };
        }
      }
    }
    return { allowed: true, trace };
  };
  return { allowed: (flow) => explain(flow).allowed, explain };
}
