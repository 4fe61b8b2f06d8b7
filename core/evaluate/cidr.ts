// A CIDR as a name: the addresses it stands for, split into regions that every policy treats
// alike, each answered by one address of it. Policies tell addresses apart only by the CIDR
// peers that name them — NetworkPolicy's ipBlock ("IPBlock describes a particular CIDR … The
// except entry describes CIDRs that should not be included within this rule") and the
// `networks` peers of AdminNetworkPolicy, BaselineAdminNetworkPolicy and ClusterNetworkPolicy
// ("Networks defines a way to select peers via CIDR blocks") — and by the endpoint an address
// is. So the addresses of the asked range inside the same rules' CIDR peers, in every tier (the
// union of each peer's ranges less its exceptions: classes/addresses.ts, which the lints and
// previews class addresses with), make one region, however many intervals apart, and an address a pod or a
// node holds is that endpoint ("an IP that belongs to a pod or a node is that pod or node",
// resolve.ts) and a Service's ClusterIP that Service (names.ts), as each is when asked about
// alone: each is a region of its own.
import type { Cluster } from '../cluster.js';
import { clusterAddressSlots } from '../classes/addresses.js';
import { intervalIndex, mergeAdjacent, type Interval } from '../net/intervals.js';
import { cidrHasHostBits, FAMILY_BITS, familyOfText, formatIp, parseCidr, rangeContains, rangeToCidrs, type Family, type IpAddr, type IpRange } from '../net/ip.js';
import { ipKey } from '../snapshot/cluster.js';
import { FlowError } from './resolve.js';
import { clusterIps, serviceName } from './service.js';

/**
 * Regions one CIDR may stand for. Each is answered on its own (one evaluation per region and
 * port, and a line per region in a list), so past this the asker narrows the question.
 */
export const MAX_CIDR_REGIONS = 256;

// Address characters with a dot or a colon, a slash and whatever follows: no name has a dot or a
// colon before its first slash (a namespace is a DNS label), so this is a CIDR, well written or
// not. Never a leading dot: "../x" is no address.
const CIDR_LIKE = /^(?=[^/]*[.:])[0-9a-f:][0-9a-f.:]*\//i;
export const looksLikeCidr = (text: string): boolean => CIDR_LIKE.test(text);

type Field = 'from' | 'to';

/** The range `text` names; a FlowError saying what is wrong with it otherwise. */
export function parseCidrName(text: string, field: Field): IpRange {
  const slash = text.indexOf('/');
  const [address, prefix] = [text.slice(0, slash), text.slice(slash + 1)];
  const wrong = (why: string) => new FlowError(field, `"${text}" is not a CIDR: ${why}`);
  const family = familyOfText(address);
  if (family === null) throw wrong(`${address} is not an IPv4 or IPv6 address`);
  if (prefix === '') throw wrong('no prefix length after the slash (e.g. /24)');
  if (!/^\d+$/.test(prefix)) throw wrong(`the prefix length "${prefix}" is not a number`);
  const bits = FAMILY_BITS[family];
  if (Number(prefix) > bits) throw wrong(`an IPv${family} prefix length is at most ${bits}, not ${prefix}`);
  const range = parseCidr(text);
  if (!range) throw wrong(`it does not read as address/prefix`);
  // Go's net.ParseCIDR masks them silently; a question that names 10.0.0.7/24 may mean either.
  if (cidrHasHostBits(text)) {
    throw new FlowError(field, `"${text}" has bits set past its /${prefix} prefix: ask about ${formatIp(family, range.lo)}/${prefix} for the range, or about ${address} for the one address`);
  }
  return range;
}

/** Every range and exception a policy peer names (ipBlock, networks), in every tier, once each. */
export function namedCidrs(cluster: Cluster, family: Family): IpRange[] {
  const seen = new Map<string, IpRange>();
  for (const p of cluster.policies.all) {
    for (const rule of [...(p.ingress ?? []), ...(p.egress ?? [])]) {
      for (const peer of rule.peers) {
        if (peer.type !== 'cidrs') continue;
        for (const r of [...peer.ranges, ...peer.except]) if (r.family === family) seen.set(`${r.lo}-${r.hi}`, r);
      }
    }
  }
  return [...seen.values()];
}

export interface AddressRegion {
  /** The CIDRs it covers, in address order. */
  readonly cidrs: readonly string[];
  /** The address answered for all of it: the held address itself, else the region's first. */
  readonly address: string;
  /** Who holds the address: "pod shop/db-0", "node node-1", "the ClusterIP of shop/svc/db"; null outside the cluster's objects. */
  readonly owner: string | null;
  readonly heldBy: HeldBy | null;
  /** How answers name it: "10.244.1.20 (pod shop/db-0)", "10.0.1.0/25", "10.0.0.0/24 + 10.0.2.0/23 + 13 more CIDRs". */
  readonly name: string;
  /** On a backing pod a member flow reaches through the region's address (a ClusterIP, a node address on a NodePort): the Service. */
  readonly via?: string;
}

export interface AddressRegions {
  readonly regions: readonly AddressRegion[];
  /** Policy ranges and exceptions that cut the asked range (partly inside it). */
  readonly cutBy: number;
  /** Addresses in it that pods, nodes and Services' ClusterIPs hold. */
  readonly held: Readonly<Record<HeldBy, number>>;
}

export type HeldBy = 'pod' | 'node' | 'clusterIP';

const covers = (a: IpRange, b: IpRange) => a.lo <= b.lo && b.hi <= a.hi;
const overlaps = (a: IpRange, b: IpRange) => a.lo <= b.hi && b.lo <= a.hi;

/** Addresses in `range` that name an endpoint of their own, with who holds each. */
function heldIn(cluster: Cluster, range: IpRange): Map<bigint, { by: HeldBy; owner: string }> {
  const held = new Map<bigint, { by: HeldBy; owner: string }>();
  const add = (ip: IpAddr, by: HeldBy, owner: string) => {
    if (rangeContains(range, ip)) held.set(ip.value, { by, owner });
  };
  // Exactly the addresses the single-address form finds an owner for (cluster.ipOwners).
  for (const node of cluster.nodes) for (const ip of node.ips) if (cluster.ipOwners.get(ipKey(ip))?.kind === 'node') add(ip, 'node', `node ${node.name}`);
  for (const pod of cluster.pods) {
    for (const ip of pod.ips) {
      const o = cluster.ipOwners.get(ipKey(ip));
      if (o?.kind === 'pod' && o.pod === pod) add(ip, 'pod', `pod ${pod.key}`);
    }
  }
  // A ClusterIP is its Service before any pod (names.ts asks serviceAt first).
  for (const { ip, service } of clusterIps(cluster)) add(ip, 'clusterIP', `the ClusterIP of ${serviceName(service)}`);
  return held;
}

const tooMany = (text: string, n: string, field: Field) =>
  new FlowError(field, `${text} stands for ${n} address regions that policies or endpoints tell apart; at most ${MAX_CIDR_REGIONS} are answered at once: ask about a smaller CIDR, or name the pods in it (namespace/label=value)`);

/** The regions of `range` (asked as `text`); a FlowError past MAX_CIDR_REGIONS. */
export function addressRegions(cluster: Cluster, range: IpRange, text: string, field: Field): AddressRegions {
  const { family } = range;
  const held = heldIn(cluster, range);
  if (held.size > MAX_CIDR_REGIONS) throw tooMany(text, `at least ${held.size}`, field);
  // A policy range that covers all of the asked one treats every address of it alike.
  const cuts = namedCidrs(cluster, family).filter((r) => overlaps(r, range) && !covers(r, range));
  // Addresses inside the same rules' CIDR peers (their ranges less their excepts) are one region,
  // however many intervals apart: the excepts of a /8 are one region, not one each. A held address is its own.
  const slots = clusterAddressSlots(cluster);
  const [intervals, classOf] = [slots.intervals[family], slots.classOf[family]];
  const points = [...held.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const byKey = new Map<string, Interval[]>();
  const add = (key: string, lo: bigint, hi: bigint) => {
    let pieces = byKey.get(key);
    if (!pieces) byKey.set(key, (pieces = []));
    pieces.push({ lo, hi });
  };
  let next = 0;
  for (let i = intervalIndex(intervals, range.lo); i < intervals.length && intervals[i]!.lo <= range.hi; i++) {
    let lo = intervals[i]!.lo > range.lo ? intervals[i]!.lo : range.lo;
    const hi = intervals[i]!.hi < range.hi ? intervals[i]!.hi : range.hi;
    for (; next < points.length && points[next]! <= hi; next++) {
      const v = points[next]!;
      if (v > lo) add(`c${classOf[i]}`, lo, v - 1n);
      add(`@${v}`, v, v);
      lo = v + 1n;
    }
    if (lo <= hi) add(`c${classOf[i]}`, lo, hi);
  }
  if (byKey.size > MAX_CIDR_REGIONS) throw tooMany(text, String(byKey.size), field);
  // Regions in address order of their first piece.
  const regions = [...byKey.values()].sort((a, b) => (a[0]!.lo < b[0]!.lo ? -1 : 1)).map((pieces): AddressRegion => {
    const first = pieces[0]!.lo;
    const h = held.get(first);
    const owner = h?.owner ?? null;
    const cidrs = mergeAdjacent(pieces).flatMap((p) => rangeToCidrs({ family, ...p }));
    const address = formatIp(family, first);
    return { cidrs, address, owner, heldBy: h?.by ?? null, name: owner ? `${address} (${owner})` : cidrList(cidrs) };
  });
  const count = (by: HeldBy) => [...held.values()].filter((h) => h.by === by).length;
  return { regions, cutBy: cuts.length, held: { pod: count('pod'), node: count('node'), clusterIP: count('clusterIP') } };
}

/** "10.0.1.0/25", "10.0.0.0/24 + 10.0.2.0/23", "10.0.0.0/24 + 10.0.2.0/23 + 13 more CIDRs". */
function cidrList(cidrs: readonly string[]): string {
  return cidrs.length <= 3 ? cidrs.join(' + ') : `${cidrs.slice(0, 2).join(' + ')} + ${cidrs.length - 2} more CIDRs`;
}

/** "10.0.0.0/16 → 5 address regions (cut by 2 policy CIDRs, 2 pod addresses and 1 node address)". */
export function regionsText(text: string, r: AddressRegions): string {
  const n = r.regions.length;
  const count = (k: number, one: string, many: string) => (k === 0 ? [] : [`${k} ${k === 1 ? one : many}`]);
  const parts = [
    ...count(r.cutBy, 'policy CIDR', 'policy CIDRs'),
    ...count(r.held.pod, 'pod address', 'pod addresses'),
    ...count(r.held.node, 'node address', 'node addresses'),
    ...count(r.held.clusterIP, 'ClusterIP', 'ClusterIPs'),
  ];
  const how = parts.length > 0 ? `cut by ${parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`}` : 'no policy CIDR, pod, node or ClusterIP tells its addresses apart';
  return `${text} → ${n} address region${n === 1 ? '' : 's'} (${how})`;
}
