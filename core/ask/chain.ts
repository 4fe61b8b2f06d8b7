// The decision chain of one flow as answers show it: each evaluated side's tiers, in order,
// ending in its outcome ("egress of shop/web: … ⇒ allowed"). Every answer that cites an
// example flow shows it the same way.
import type { Cluster } from '../cluster.js';
import { evaluate, type Verdict } from '../evaluate/engine.js';
import { reasonOf } from '../evaluate/explain.js';
import { resolveFlow, type EndpointSpec } from '../evaluate/resolve.js';
import type { Protocol } from '../policy/model.js';
import { nameOf } from './describe.js';

export interface Chained {
  readonly verdict: Verdict;
  readonly chain: readonly string[];
}

/** One port of one flow: its verdict and chain (a FlowError for unknown names or no shared family). */
export function chainOf(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, port: number, protocol: Protocol): Chained {
  const verdict = evaluate(cluster, resolveFlow(cluster, { from, to, port, protocol }));
  const [f, t] = [nameOf(cluster, from), nameOf(cluster, to)];
  const chain = verdict.reason
    ? [reasonOf(verdict)]
    : (['egress', 'ingress'] as const).flatMap((dir) => {
        const s = verdict[dir];
        return s ? [`${dir} of ${dir === 'egress' ? f : t}: ${s.trace.map((x) => x.message).join(' → ')} ⇒ ${s.allowed ? 'allowed' : 'denied'}`] : [];
      });
  return { verdict, chain };
}

/** An example flow of a set answer: where, which port, and why. */
export interface Example {
  readonly from: string;
  readonly to: string;
  readonly port: number;
  readonly protocol: Protocol;
  readonly allowed: boolean;
  readonly reason: string;
  readonly chain: readonly string[];
}

export function exampleOf(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, port: number, protocol: Protocol): Example {
  const c = chainOf(cluster, from, to, port, protocol);
  return { from: nameOf(cluster, from), to: nameOf(cluster, to), port, protocol, allowed: c.verdict.allowed, reason: reasonOf(c.verdict), chain: c.chain };
}
