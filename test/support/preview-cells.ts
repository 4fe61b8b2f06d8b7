// Previews checked cell by cell: a preview's aggregates expanded back to the exact flows they
// stand for (endpoint pair, port, protocol, family), and the same set found by brute force —
// every pair evaluated in both snapshots — to compare with.
import type { Cluster } from '../../core/cluster.js';
import { evaluate } from '../../core/evaluate/engine.js';
import { FlowError, resolveFlow, type EndpointSpec } from '../../core/evaluate/resolve.js';
import { parseCidr, parseIp, rangeContains } from '../../core/net/ip.js';
import type { Protocol } from '../../core/policy/model.js';
import type { Preview } from '../../core/preview/index.js';
import { ipKey } from '../../core/snapshot/cluster.js';

export interface PortProto {
  readonly port: number;
  readonly protocol: Protocol;
}
export type Family = 'IPv4' | 'IPv6';

/** "x/a > x/b 80/TCP IPv4"; addresses stand for themselves. */
export const cell = (from: string, to: string, p: PortProto, family: Family) => `${from} > ${to} ${p.port}/${p.protocol} ${family}`;

const isEndpointPod = (c: Cluster, key: string) => {
  const p = c.podByKey.get(key);
  return !!p && !p.hostNetwork && p.ips.length > 0;
};
const familiesOf = (c: Cluster, key: string): Family[] => [...new Set(c.podByKey.get(key)!.ips.map((i) => (i.family === 4 ? 'IPv4' : 'IPv6') as Family))];

/**
 * Every flow a preview reports as changed, restricted to `ports` and, for node and external
 * ends, to `addresses` (each external range stands for every unowned address in it).
 */
export function previewCells(p: Preview, clusters: { base: Cluster; head: Cluster }, ports: readonly PortProto[], addresses: readonly string[] = []): Set<string> {
  const out = new Set<string>();
  const byId = new Map(p.endpoints.map((e) => [e.id, e]));
  const names = (id: number, family: Family): string[] => {
    const e = byId.get(id)!;
    if (e.kind === 'pods') return [...e.pods];
    if (e.kind === 'nodes') return e.addresses.map((a) => a.ip);
    if (e.family !== family) return [];
    const ranges = e.cidrs.map((c) => parseCidr(c)!);
    return addresses.filter((a) => {
      const ip = parseIp(a)!;
      return ranges.some((r) => rangeContains(r, ip)) && !clusters.base.ipOwners.has(ipKey(ip)) && !clusters.head.ipOwners.has(ipKey(ip));
    });
  };
  const nodeOf = (side: 'base' | 'head', ip: string) => {
    const o = clusters[side].ipOwners.get(ipKey(parseIp(ip)!));
    return o?.kind === 'node' ? o.node.name : null;
  };
  for (const a of p.changes) {
    for (const part of a.parts) {
      const [from, to] = [byId.get(part.from)!, byId.get(part.to)!];
      for (const src of names(part.from, part.family)) {
        for (const dst of names(part.to, part.family)) {
          if (src === dst) continue;
          if (part.locality && from.kind === 'nodes' && to.kind === 'pods') {
            // A pod that one side does not have is on no node there (as the preview's inLocality reads it).
            const here = (side: 'base' | 'head') => {
              const node = clusters[side].podByKey.get(dst)?.nodeName ?? null;
              return node !== null && node === nodeOf(side, src);
            };
            if (here('base') !== part.locality.base || here('head') !== part.locality.head) continue;
          }
          for (const pp of ports) if ((a.ranges[pp.protocol] ?? []).some(([lo, hi]) => lo <= pp.port && pp.port <= hi)) out.add(cell(src, dst, pp, part.family));
        }
      }
    }
  }
  return out;
}

function allowed(c: Cluster, from: EndpointSpec, to: EndpointSpec, p: PortProto, family: Family): boolean | null {
  try {
    return evaluate(c, resolveFlow(c, { from, to, port: p.port, protocol: p.protocol, ipFamily: family })).allowed;
  } catch (e) {
    if (e instanceof FlowError) return null;
    throw e;
  }
}

/**
 * Brute force: every ordered pair of pods that are endpoints in both snapshots, in every family
 * both have in both, and every pod with every address of `addresses` that is a node's or
 * nobody's in both (both directions); the flows whose verdict differs.
 */
export function bruteForceCells(clusters: { base: Cluster; head: Cluster }, ports: readonly PortProto[], addresses: readonly string[] = []): Set<string> {
  const { base, head } = clusters;
  const out = new Set<string>();
  const pods = head.pods.map((p) => p.key).filter((k) => isEndpointPod(base, k) && isEndpointPod(head, k));
  const families = (k: string) => familiesOf(base, k).filter((f) => familiesOf(head, k).includes(f));
  const compare = (from: string, to: string, f: EndpointSpec, t: EndpointSpec, family: Family) => {
    for (const pp of ports) {
      const [b, h] = [allowed(base, f, t, pp, family), allowed(head, f, t, pp, family)];
      if (b !== null && h !== null && b !== h) out.add(cell(from, to, pp, family));
    }
  };
  for (const a of pods) for (const b of pods) if (a !== b) for (const family of families(a).filter((f) => families(b).includes(f))) compare(a, b, { pod: a }, { pod: b }, family);
  for (const addr of addresses) {
    const ip = parseIp(addr)!;
    const [ob, oh] = [base.ipOwners.get(ipKey(ip)), head.ipOwners.get(ipKey(ip))];
    const same = (!ob && !oh) || (ob?.kind === 'node' && oh?.kind === 'node' && ob.node.name === oh.node.name);
    if (!same) continue;
    const family: Family = ip.family === 4 ? 'IPv4' : 'IPv6';
    for (const p of pods) {
      if (!families(p).includes(family)) continue;
      compare(p, addr, { pod: p }, { ip: addr }, family);
      compare(addr, p, { ip: addr }, { pod: p }, family);
    }
  }
  return out;
}
