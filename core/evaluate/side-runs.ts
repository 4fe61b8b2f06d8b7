// One side of a flow over every port at once. A side's verdict can only change where one of
// its own rules' port ranges starts or ends, or at a named port of the destination, so the
// side is evaluated once per segment between those cuts and equal neighbours are merged into
// runs. Chat-ops ("can A reach B?" without a port) and previews read sides this way.
import { objectKey } from '../../schemas/object-key.js';
import type { Cluster } from '../cluster.js';
import { portSegments } from '../net/intervals.js';
import { PROTOCOLS, type Direction, type PolicyRef, type Protocol, type Rule } from '../policy/model.js';
import type { PodInfo } from '../snapshot/cluster.js';
import type { Endpoint } from './endpoint.js';
import { sideEvaluator, type SideVerdict } from './engine.js';

export type PortRange = [number, number];
/** Inclusive port ranges per protocol, sorted and disjoint. */
export type PortRanges = Partial<Record<Protocol, PortRange[]>>;

/** A maximal port range over which the side decides the same way (same rule, same Pass). */
export interface SideRun {
  readonly lo: number;
  readonly hi: number;
  /** The verdict at `lo`; every port of the run has the same decision. */
  readonly verdict: SideVerdict;
}

/** Port cuts per protocol: inside one segment every rule involved answers alike. */
export function portCuts(rules: readonly Rule[], destination: PodInfo | null): Record<Protocol, PortRange[]> {
  const cuts: Record<Protocol, PortRange[]> = { TCP: [], UDP: [], SCTP: [] };
  for (const r of rules) for (const m of r.ports ?? []) if (m.type === 'range') cuts[m.protocol].push([m.lo, m.hi]);
  for (const np of destination?.namedPorts ?? []) cuts[np.protocol].push([np.port, np.port]);
  return cuts;
}

const refKey = (r: PolicyRef | null | undefined) => (r ? objectKey(r) : '');

/** What an explanation of the side reads: the outcome, the deciding rule and the Admin Pass before it. */
export function decisionKey(v: SideVerdict): string {
  const pass = v.trace.find((t) => t.outcome === 'pass');
  return `${v.allowed ? 1 : 0}|${v.tier}|${refKey(v.policy)}|${v.rule?.index ?? ''}|${refKey(pass?.policy)}`;
}

/**
 * The side of `subject` (egress: the flow's source, ingress: its destination) towards `peer`
 * over every port of `protocol`; `rules` are the rules of the policies that select the subject
 * (groupOf). Named ports resolve on the flow's destination pod, as in engine.ts.
 */
export function sideRuns(cluster: Cluster, dir: Direction, subject: PodInfo, peer: Endpoint, rules: readonly Rule[], protocol: Protocol, work?: { evaluations: number }): SideRun[] {
  const to = dir === 'ingress' ? subject : peer.kind === 'pod' && !peer.pod.hostNetwork ? peer.pod : null;
  const runs: SideRun[] = [];
  const verdictAt = sideEvaluator(cluster, dir, subject, peer);
  for (const [lo, hi] of portSegments(portCuts(rules, to)[protocol])) {
    if (work) work.evaluations++;
    pushRun(runs, { lo, hi, verdict: verdictAt(lo, protocol) }, (a, b) => decisionKey(a.verdict) === decisionKey(b.verdict));
  }
  return runs;
}

/** Appends a run that starts where the last one ends, or extends the last one when `same` says they decide alike. */
export function pushRun<T extends { readonly lo: number; readonly hi: number }>(runs: T[], run: T, same: (a: T, b: T) => boolean): void {
  const last = runs[runs.length - 1];
  if (last && same(last, run)) runs[runs.length - 1] = { ...last, hi: run.hi };
  else runs.push(run);
}

/** The allowed ports of a side, as sorted disjoint ranges (touching ranges merged). */
export function allowedRanges(runs: readonly SideRun[]): PortRange[] {
  const out: PortRange[] = [];
  for (const r of runs) {
    if (!r.verdict.allowed) continue;
    const last = out[out.length - 1];
    if (last && last[1] + 1 === r.lo) last[1] = r.hi;
    else out.push([r.lo, r.hi]);
  }
  return out;
}

/** Intersection of two sorted lists of disjoint ranges. */
export function intersectRanges(a: readonly PortRange[], b: readonly PortRange[]): PortRange[] {
  const out: PortRange[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; a[i]![1] < b[j]![1] ? i++ : j++) {
    const [lo, hi] = [Math.max(a[i]![0], b[j]![0]), Math.min(a[i]![1], b[j]![1])];
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

/** Ports of `a` not in `b`, both sorted lists of disjoint ranges. */
export function subtractRanges(a: readonly PortRange[], b: readonly PortRange[]): PortRange[] {
  const out: PortRange[] = [];
  for (const [lo0, hi] of a) {
    let lo = lo0;
    for (const [blo, bhi] of b) {
      if (bhi < lo || blo > hi) continue;
      if (blo > lo) out.push([lo, blo - 1]);
      lo = bhi + 1;
    }
    if (lo <= hi) out.push([lo, hi]);
  }
  return out;
}

const isEveryPort = (r: readonly PortRange[] | undefined) => r?.length === 1 && r[0]![0] === 1 && r[0]![1] === 65535;
/** "all ports", "TCP 5432", "all UDP ports and TCP 80, 443, 8000-8999"; "" for none. */
export function formatPorts(ranges: PortRanges, protocols: readonly Protocol[]): string {
  if (protocols.length === PROTOCOLS.length && protocols.every((p) => isEveryPort(ranges[p]))) return 'all ports';
  const each = protocols.filter((p) => (ranges[p]?.length ?? 0) > 0).map((p) => {
    const r = ranges[p]!;
    if (isEveryPort(r)) return `all ${p} ports`;
    const shown = r.slice(0, 6).map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo}-${hi}`));
    return `${p} ${shown.join(', ')}${r.length > 6 ? ` and ${r.length - 6} more ranges` : ''}`;
  });
  return each.join(' and ');
}
