// The connectivity delta: every candidate class pair is evaluated in both snapshots over every
// port at once and compared. A flow's verdict is its egress side AND its ingress side
// (engine.ts), each side constant between its own rules' port cuts (evaluate/side-runs.ts),
// so a pair costs a few side evaluations per protocol, not 65,535 × 3.
//
// Sides are shared between pairs: a side depends on its subject only through the policies
// that select it (the compiler's group signature, which adds the namespace where peers are
// relative to it and the named ports ingress rules resolve on it), and on its peer only
// through which of those rules' peers match it, the peer's kind, and (egress) the peer's
// named ports that the rules name. Runs are memoised on exactly that.
import type { Cluster } from '../cluster.js';
import type { Endpoint, Flow } from '../evaluate/endpoint.js';
import type { SideVerdict } from '../evaluate/engine.js';
import { peerMatches } from '../evaluate/match.js';
import { decisionKey, sideRuns, type PortRanges, type SideRun } from '../evaluate/side-runs.js';
import type { Family } from '../net/ip.js';
import { PROTOCOLS, type Direction, type Peer, type Protocol } from '../policy/model.js';
import type { Group } from '../compile/group.js';
import type { PodInfo } from '../snapshot/cluster.js';
import { forEachCandidate, type Candidates, type SubjectGroups } from './candidates.js';
import { endpointOf, sharedFamilies, type Both, type Classes, type EndpointClass, type NodeClass, type PodClass, type SnapshotSide } from './classes.js';

/** What decided a flow in one snapshot: both sides' verdicts, or node-local traffic. */
export interface FlowDecision {
  readonly allowed: boolean;
  readonly reason?: 'node-local';
  readonly egress: SideVerdict | null;
  readonly ingress: SideVerdict | null;
}

/** Flows between two classes in one family whose verdict differs, with one explanation pair. */
export interface ClassChange {
  readonly from: number;
  readonly to: number;
  readonly family: Family;
  /** Node → pod only: whether these pairs are node-local (always allowed) in each snapshot. */
  readonly locality?: Both<boolean>;
  /** Endpoint pairs this stands for. */
  readonly pairs: number;
  /** removed: allowed before, denied after; added: the reverse. */
  readonly change: 'removed' | 'added';
  readonly before: FlowDecision;
  readonly after: FlowDecision;
  readonly ranges: PortRanges;
}

export interface DeltaWork {
  /** Candidate class pairs examined. */
  pairs: number;
  /** Side evaluations (one per port segment). */
  evaluations: number;
  /** Side runs computed and reused from the memo. */
  sides: number;
  sidesReused: number;
}

interface FlowRun {
  readonly lo: number;
  readonly hi: number;
  readonly decision: FlowDecision;
}

const NODE_LOCAL: FlowDecision = { allowed: true, reason: 'node-local', egress: null, ingress: null };
const flowKey = (d: FlowDecision) => `${d.allowed ? 1 : 0}|${d.reason ?? ''}|${d.egress ? decisionKey(d.egress) : '-'}|${d.ingress ? decisionKey(d.ingress) : '-'}`;

type Span = { readonly lo: number; readonly hi: number; readonly verdict: SideVerdict | null };
/** A flow end that is not a policy subject has no side: it allows every port. */
const NO_SIDE: readonly Span[] = [{ lo: 1, hi: 65535, verdict: null }];

/** AND of the two sides over ports. */
function combine(egress: readonly Span[] | null, ingress: readonly Span[] | null): FlowRun[] {
  const [e, i] = [egress ?? NO_SIDE, ingress ?? NO_SIDE];
  const out: FlowRun[] = [];
  for (let a = 0, b = 0; a < e.length && b < i.length; e[a]!.hi < i[b]!.hi ? a++ : b++) {
    const [x, y] = [e[a]!, i[b]!];
    const lo = Math.max(x.lo, y.lo);
    const hi = Math.min(x.hi, y.hi);
    if (lo > hi) continue;
    const decision: FlowDecision = { allowed: (x.verdict?.allowed ?? true) && (y.verdict?.allowed ?? true), egress: x.verdict, ingress: y.verdict };
    const last = out[out.length - 1];
    if (last && flowKey(last.decision) === flowKey(decision)) out[out.length - 1] = { lo: last.lo, hi, decision: last.decision };
    else out.push({ lo, hi, decision });
  }
  return out;
}

/** Named ports of a destination that rules name: the only ones a side can see. */
function namedPortsSeen(g: Group, pod: PodInfo): string {
  const names = new Set(g.rules.flatMap((r) => (r.ports ?? []).flatMap((m) => (m.type === 'named' ? [m.name] : []))));
  if (names.size === 0) return '';
  return pod.namedPorts.filter((np) => names.has(np.name)).map((np) => `${np.name}/${np.port}/${np.protocol}`).sort().join(',');
}

export function connectivityDelta(classes: Classes, groups: SubjectGroups, candidates: Candidates): { changes: ClassChange[]; work: DeltaWork } {
  const { clusters } = groups;
  const work: DeltaWork = { pairs: 0, evaluations: 0, sides: 0, sidesReused: 0 };
  const runsMemo: Both<Map<string, SideRun[]>> = { base: new Map(), head: new Map() };
  const peersMemo = new WeakMap<Group, Peer[]>();
  const peersOf = (g: Group) => {
    let list = peersMemo.get(g);
    if (!list) peersMemo.set(g, (list = [...new Set(g.rules.flatMap((r) => r.peers))].filter((p) => p.type !== 'any' && p.type !== 'none')));
    return list;
  };

  const side = (s: SnapshotSide, dir: Direction, subject: PodInfo, peer: Endpoint, flow: Flow, protocol: Protocol): SideRun[] => {
    const cluster: Cluster = clusters[s];
    const g = groups.of(s, subject, dir);
    const bits = peersOf(g).map((p) => (peerMatches(cluster, p, peer, subject) ? 1 : 0)).join('');
    const named = dir === 'egress' && peer.kind === 'pod' ? namedPortsSeen(g, peer.pod) : '';
    const key = `${dir}|${g.signature}|${flow.family}|${protocol}|${peer.kind}|${bits}|${named}`;
    let runs = runsMemo[s].get(key);
    if (runs) {
      work.sidesReused++;
      return runs;
    }
    work.sides++;
    runs = sideRuns(cluster, dir, subject, peer, flow, g.rules, protocol, work);
    runsMemo[s].set(key, runs);
    return runs;
  };

  const flowRuns = (s: SnapshotSide, from: EndpointClass, to: EndpointClass, family: Family, nodeLocal: boolean, protocol: Protocol): FlowRun[] => {
    if (nodeLocal) return [{ lo: 1, hi: 65535, decision: NODE_LOCAL }];
    const src = endpointOf(from, s, family);
    const dst = endpointOf(to, s, family, from === to);
    const flow: Flow = { from: src, to: dst, port: 1, protocol, family };
    const egress = src.kind === 'pod' ? side(s, 'egress', src.pod, dst, flow, protocol) : null;
    const ingress = dst.kind === 'pod' ? side(s, 'ingress', dst.pod, src, flow, protocol) : null;
    return combine(egress, ingress);
  };

  const changes: ClassChange[] = [];
  work.pairs = forEachCandidate(candidates, classes, (from, to) => {
    for (const family of sharedFamilies(from, to)) {
      for (const { locality, pairs } of pairGroups(from, to)) {
        if (pairs === 0 || (locality?.base && locality.head)) continue;
        const found = new Map<string, { before: FlowDecision; after: FlowDecision; ranges: PortRanges }>();
        for (const protocol of PROTOCOLS) {
          const before = flowRuns('base', from, to, family, locality?.base ?? false, protocol);
          const after = flowRuns('head', from, to, family, locality?.head ?? false, protocol);
          for (let a = 0, b = 0; a < before.length && b < after.length; before[a]!.hi < after[b]!.hi ? a++ : b++) {
            const [x, y] = [before[a]!, after[b]!];
            const [lo, hi] = [Math.max(x.lo, y.lo), Math.min(x.hi, y.hi)];
            if (lo > hi || x.decision.allowed === y.decision.allowed) continue;
            const key = `${flowKey(x.decision)}>${flowKey(y.decision)}`;
            let f = found.get(key);
            if (!f) found.set(key, (f = { before: x.decision, after: y.decision, ranges: {} }));
            const list = (f.ranges[protocol] ??= []);
            const last = list[list.length - 1];
            if (last && last[1] + 1 === lo) last[1] = hi;
            else list.push([lo, hi]);
          }
        }
        for (const f of found.values()) {
          changes.push({ from: from.id, to: to.id, family, ...(locality ? { locality } : {}), pairs, change: f.before.allowed ? 'removed' : 'added', ...f });
        }
      }
    }
  });
  return { changes, work };
}

/**
 * The endpoint pairs a class pair stands for. Node → pod pairs split by whether the pod runs on
 * that node in each snapshot ("traffic to and from the node where a Pod is running is always
 * allowed"); every other class pair is one group.
 */
export function pairGroups(from: EndpointClass, to: EndpointClass): { locality?: Both<boolean>; pairs: number }[] {
  const size = (c: EndpointClass) => (c.kind === 'external' ? 1 : c.members.length);
  if (from.kind === 'nodes' && to.kind === 'pods') return nodeToPodGroups(from, to);
  if (from === to) return [{ pairs: size(from) * (size(from) - 1) }];
  return [{ pairs: size(from) * size(to) }];
}

function nodeToPodGroups(from: NodeClass, to: PodClass): { locality: Both<boolean>; pairs: number }[] {
  const counts = new Map<string, number>();
  for (const n of from.members) {
    for (const at of to.nodes) {
      const key = `${at.base === n.node ? 1 : 0}${at.head === n.node ? 1 : 0}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, pairs]) => ({ locality: { base: key[0] === '1', head: key[1] === '1' }, pairs }));
}

/** Whether a node → pod pair falls in a locality group (used to expand changes to pairs). */
export function inLocality(node: string, at: Both<string | null>, locality: Both<boolean> | undefined): boolean {
  return !locality || ((at.base === node) === locality.base && (at.head === node) === locality.head);
}
