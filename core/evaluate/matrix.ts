// All-pairs truth tables over pods, like the upstream e2e Reachability matrices.
import type { Cluster } from '../cluster.js';
import type { Family } from '../net/ip.js';
import type { Protocol } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { evaluate } from './engine.js';
import { FlowError, resolveFlow } from './resolve.js';

export interface MatrixResult {
  readonly port: number;
  readonly protocol: Protocol;
  readonly allowed: boolean[][];
  readonly counts: { allowed: number; denied: number };
  readonly table: string;
}

export function matrix(cluster: Cluster, pods: readonly PodInfo[], ports: readonly { port: number; protocol: Protocol }[], family: Family | null): MatrixResult[] {
  const ipFamily = family === 4 ? 'IPv4' : family === 6 ? 'IPv6' : undefined;
  return ports.map(({ port, protocol }) => {
    let yes = 0;
    const allowed = pods.map((from) =>
      pods.map((to) => {
        const ok = reachable(cluster, from, to, port, protocol, ipFamily);
        if (ok) yes++;
        return ok;
      }),
    );
    return { port, protocol, allowed, counts: { allowed: yes, denied: pods.length * pods.length - yes }, table: truthTable(pods.map((p) => p.key), allowed) };
  });
}

/** Pods with no address family in common cannot reach each other: reported as not allowed. */
function reachable(cluster: Cluster, from: PodInfo, to: PodInfo, port: number, protocol: Protocol, ipFamily: 'IPv4' | 'IPv6' | undefined): boolean {
  try {
    return evaluate(cluster, resolveFlow(cluster, { from: { pod: from.key }, to: { pod: to.key }, port, protocol, ipFamily })).allowed;
  } catch (e) {
    if (e instanceof FlowError) return false;
    throw e;
  }
}

/** Upstream's layout: a header row of destinations, one row per source; "." allowed, "X" denied. */
export function truthTable(keys: readonly string[], allowed: readonly (readonly boolean[])[]): string {
  const rows = [['-', ...keys].join('\t')];
  keys.forEach((k, i) => rows.push([k, ...allowed[i]!.map((a) => (a ? '.' : 'X'))].join('\t')));
  return rows.join('\n');
}
