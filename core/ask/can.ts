// "can A reach B?" between two endpoints: on one port, the verdict and its decision chain; on
// every port, the allowed port ranges, or why none is. The answer kinds every answer shares
// (its sentence and query, an error, what the snapshot cannot decide) are defined here too.

import type { Cluster } from '../cluster.js';
import type { Verdict } from '../evaluate/engine.js';
import { reasonOf } from '../evaluate/explain.js';
import { resolveFlow } from '../evaluate/resolve.js';
import type { Protocol } from '../policy/model.js';
import { chainOf, type Example } from './chain.js';
import { nameOf, otherProtocolsNote, podOf, portOn } from './describe.js';
import { hedge, hedged } from './hedge.js';
import { whyNoPort } from './no-port.js';
import type { CanQuery, Query } from './query.js';
import { formatPorts, newWork, probe, protocolsOf, rulesOf, type PortRanges } from './reach.js';

export interface Answered {
  /** One sentence. */
  readonly text: string;
  readonly query: Query;
}
export interface CanAnswer extends Answered {
  readonly kind: 'can';
  readonly allowed: boolean;
  readonly flow: { readonly from: string; readonly to: string; readonly port: number; readonly protocol: Protocol };
  readonly verdict: Verdict;
  /** One line per evaluated side: every tier's message, in order. */
  readonly chain: readonly string[];
}
/** "can A reach B?" without a port: the allowed port ranges. */
export interface CanPortsAnswer extends Answered {
  readonly kind: 'can-ports';
  readonly allowed: boolean;
  readonly ports: string;
  readonly ranges: PortRanges;
  /** No port allowed: why (no-port.ts), and one port's flow and chain showing it. */
  readonly denial?: string;
  readonly example?: Example;
}
export interface ErrorAnswer extends Answered {
  readonly kind: 'error';
  readonly error: { readonly field: string; readonly message: string };
}
/** What the snapshot cannot decide (a selector-less or ExternalName Service, one without backends): said, not guessed. */
export interface NoVerdictAnswer extends Answered {
  readonly kind: 'no-verdict';
  readonly reason: string;
}

export function answerCan(cluster: Cluster, q: CanQuery, asked: number | string): CanAnswer {
  const p = portOn(cluster, q.to, asked, q.protocol);
  const { verdict, chain } = chainOf(cluster, q.from, q.to, p.port, p.protocol);
  const [from, to] = [nameOf(cluster, q.from), nameOf(cluster, q.to)];
  const yes = verdict.allowed;
  const note = otherProtocolsNote(cluster, q.to, q.port, q.protocol);
  const text = hedged(`${yes ? 'Yes' : 'No'}: ${from} ${yes ? 'can' : 'cannot'} reach ${to} on ${p.text}${note ? ` (${note})` : ''} — ${reasonOf(verdict)}.`, hedge(cluster, yes, [podOf(cluster, q.from), podOf(cluster, q.to)]));
  return { kind: 'can', text, query: q, allowed: yes, flow: { from, to, port: p.port, protocol: p.protocol }, verdict, chain };
}

export function answerCanPorts(cluster: Cluster, q: CanQuery): CanPortsAnswer {
  // One resolution up front turns unknown pods and address-family mismatches into errors.
  resolveFlow(cluster, { from: q.from, to: q.to, port: 1, protocol: q.protocol ?? 'TCP' });
  const sides = { egress: rulesOf(cluster, podOf(cluster, q.from), 'egress'), ingress: rulesOf(cluster, podOf(cluster, q.to), 'ingress') };
  const ranges = probe(cluster, q.from, q.to, protocolsOf(q), newWork(), sides);
  const ports = formatPorts(ranges, protocolsOf(q));
  const [from, to] = [nameOf(cluster, q.from), nameOf(cluster, q.to)];
  // "No" on every port says why: the side that denies every port, or that no port is allowed by both.
  const none = ports === '' ? whyNoPort(cluster, q.from, q.to, protocolsOf(q)) : null;
  const said = none
    ? `No: ${from} cannot reach ${to} on any ${q.protocol ? `${q.protocol} ` : ''}port — ${none.reason}.`
    : `Yes: ${from} can reach ${to} on ${ports}${ports.startsWith('all') ? '' : ' only'} (ask about one port for the decision chain).`;
  const text = hedged(said, hedge(cluster, ports !== '', [podOf(cluster, q.from), podOf(cluster, q.to)]));
  return { kind: 'can-ports', text, query: q, allowed: ports !== '', ports, ranges, ...(none ? { denial: none.reason, example: none.example } : {}) };
}
