// Why a flow is allowed on no port at all ("can A reach B?" answered No): a side that denies
// every port, by the rule or the isolation that decides it there, or — when each side allows
// some ports — that no port is allowed by both; and one port whose decision chain shows it.
// "the traffic must be allowed by both" sides: an egress policy on the source and an ingress
// policy on the destination (NetworkPolicy docs), so a flow denied on every port has a side
// denying each port, and the sides' own port runs (side-runs.ts) say which.
import type { Cluster } from '../cluster.js';
import { subjectPod } from '../evaluate/endpoint.js';
import { deniedAt, denialOf } from '../evaluate/explain.js';
import type { SideVerdict } from '../evaluate/engine.js';
import { resolveFlow, type EndpointSpec } from '../evaluate/resolve.js';
import { allowedRanges, decisionKey, formatPorts, portCuts, sideRuns, type PortRange, type PortRanges, type SideRun } from '../evaluate/side-runs.js';
import type { Direction, Protocol } from '../policy/model.js';
import { exampleOf, type Example } from './chain.js';
import { rulesOf } from './reach.js';

export interface NoPortReason {
  /** "denied at ingress by AdminNetworkPolicy … rule 0 "deny-from-staging" on every port". */
  readonly reason: string;
  /** One port's decision chain. */
  readonly example: Example;
}

/** Distinct decisions a side denies with, each with its ports, at most this many named. */
const MAX_DENIALS = 3;

/** Why `from` reaches `to` on no port of `protocols` (the caller found none allowed). */
export function whyNoPort(cluster: Cluster, from: EndpointSpec, to: EndpointSpec, protocols: readonly Protocol[]): NoPortReason {
  const flow = resolveFlow(cluster, { from, to, port: 1, protocol: protocols[0]! });
  const ends = { egress: { subject: subjectPod(flow.from), peer: flow.to }, ingress: { subject: subjectPod(flow.to), peer: flow.from } };
  // A side without a subject (an address outside the cluster, a node) allows every port.
  const sides = (['egress', 'ingress'] as const).flatMap((dir) => {
    const { subject, peer } = ends[dir];
    if (!subject) return [];
    const rules = rulesOf(cluster, subject, dir);
    const runs = protocols.flatMap((protocol) => sideRuns(cluster, dir, subject, peer, rules, protocol).map((run) => ({ protocol, run })));
    const allowed: PortRanges = Object.fromEntries(protocols.map((p) => [p, allowedRanges(runs.filter((r) => r.protocol === p).map((r) => r.run))]));
    const cuts = portCuts(rules, dir === 'ingress' ? subject : peer.kind === 'pod' ? peer.pod : null);
    return [{ dir, runs, allowed, cuts }];
  });
  const allows = (s: (typeof sides)[number]) => protocols.some((p) => (s.allowed[p]?.length ?? 0) > 0);
  const denyingAll = sides.filter((s) => !allows(s));

  let reason: string;
  if (denyingAll.length > 0) reason = denyingAll.map((s) => everyPortDenial(s.dir, s.runs, protocols)).join(' and ');
  // Said without pod names, so that pairs denied alike group together (group.ts).
  else reason = `no port is allowed by both sides: ${sides.map((s) => `${s.dir} allows only ${formatPorts(s.allowed, protocols)}`).join(', ')}`;

  // The port shown: one a rule or the destination's named ports mention, among those a side
  // allows when one does (its chain then shows the other side denying it); else the lowest.
  const allowing = sides.find(allows);
  const mentioned: PortRanges = Object.fromEntries(protocols.map((p) => [p, sides.flatMap((s) => s.cuts[p]).filter(([lo]) => !allowing || within(allowing.allowed[p] ?? [], lo))]));
  const { port, protocol } = firstPort(mentioned, protocols) ?? (allowing ? firstPort(allowing.allowed, protocols) : null) ?? { port: 1, protocol: protocols[0]! };
  return { reason, example: exampleOf(cluster, from, to, port, protocol) };
}

/** A side's denial of every port: "denied at ingress by … on every port", or its decisions with their ports. */
function everyPortDenial(dir: Direction, runs: readonly { protocol: Protocol; run: SideRun }[], protocols: readonly Protocol[]): string {
  const by = new Map<string, { verdict: SideVerdict; ranges: PortRanges }>();
  for (const { protocol, run } of runs) {
    const key = decisionKey(run.verdict);
    const d = by.get(key) ?? by.set(key, { verdict: run.verdict, ranges: {} }).get(key)!;
    (d.ranges[protocol] ??= []).push([run.lo, run.hi]);
  }
  const every = `every ${protocols.length === 1 ? `${protocols[0]} ` : ''}port`;
  const decisions = [...by.values()];
  if (decisions.length === 1) return deniedAt(dir, decisions[0]!.verdict, ` on ${every}`);
  const listed = decisions.slice(0, MAX_DENIALS).map((d) => `${denialOf(d.verdict)} (${formatPorts(d.ranges, protocols)})`);
  const more = decisions.length - MAX_DENIALS;
  return `denied at ${dir} on ${every}: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

const within = (ranges: readonly PortRange[], port: number) => ranges.some(([lo, hi]) => lo <= port && port <= hi);

/** The lowest port of the first protocol that has one. */
function firstPort(ranges: PortRanges, protocols: readonly Protocol[]): { port: number; protocol: Protocol } | null {
  for (const protocol of protocols) {
    const lo = Math.min(...(ranges[protocol] ?? []).map(([l]) => l));
    if (Number.isFinite(lo)) return { port: lo, protocol };
  }
  return null;
}
