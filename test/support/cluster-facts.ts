// What every stage reads of a cluster, as plain data: a cluster made from the previous one's
// (pods replaced or derived, policies, namespaces or nodes changed) must equal one built afresh.
import type { Cluster } from '../../core/cluster.js';
import { ipKey, type IpOwner } from '../../core/snapshot/cluster.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';

/** A cluster's indexes and warnings, as plain data. */
export function clusterFacts(c: Cluster) {
  const ownerKey = (o: IpOwner) => (o.kind === 'pod' ? `pod ${o.pod.key}@${o.pod.idx}` : `node ${o.node.name}`);
  return {
    // Every field, nested ones too, in key order (a replacer list of the top keys would drop the labels' and addresses' own keys).
    pods: c.pods.map((p) => sortedJson(p)),
    // Lookups only (a version's indexes may be layers over the earlier one's): asked for every pod and address.
    byKey: c.pods.map((p) => `${p.key}@${c.podByKey.get(p.key)?.idx}`),
    byNamespace: [...c.podsByNamespace].map(([ns, list]) => `${ns}: ${list.map((p) => `${p.key}@${p.idx}`).join(' ')}`).sort(),
    byNode: [...c.podsByNode].map(([node, list]) => `${node}: ${list.map((p) => `${p.key}@${p.idx}`).join(' ')}`).sort(),
    owners: [...c.pods.flatMap((p) => p.ips), ...c.nodes.flatMap((n) => n.ips)].map((ip) => ipKey(ip)).sort().map((k) => `${k} ${c.ipOwners.has(k) ? ownerKey(c.ipOwners.get(k)!) : '-'}`),
    namespaces: JSON.stringify(c.namespaces),
    warnings: c.warnings,
    policies: c.policies.all.map((p) => p.id),
  };
}

/** JSON with every object's keys sorted, at every depth (addresses are bigints: written as text). */
function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (typeof x === 'bigint') return `${x}n`;
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
    return Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** Items parsed as a snapshot; null when they do not parse. */
export function parsed(items: readonly unknown[]): ParsedSnapshot | null {
  const p = parseSnapshot({ items });
  return p.ok ? p.snapshot : null;
}
