// The connectivity delta: every candidate class pair (candidates.ts) is evaluated in both
// snapshots over every port at once and compared. A flow's verdict is its egress side AND its
// ingress side (engine.ts), each constant between its own rules' port cuts
// (evaluate/side-runs.ts), so a pair costs a few memoised side runs per protocol (sides.ts),
// not 65,535 × 3 evaluations. A side the candidates say cannot differ is taken from the base
// for both snapshots, and when the side that can differ allows the same ports in both, the
// other side is never looked at.
import type { SideVerdict } from '../evaluate/engine.js';
import { decisionKey, pushRun, type PortRanges } from '../evaluate/side-runs.js';
import { LimitError } from '../limits.js';
import type { Family } from '../net/ip.js';
import { PROTOCOLS, type Direction, type Protocol } from '../policy/model.js';
import { forEachCandidate, type Candidates, type SubjectGroups } from './candidates.js';
import { sharedFamilies, SIDES, type Both, type Classes, type EndpointClass, type NodeClass, type PodClass, type SnapshotSide } from './classes.js';
import { sideOf, SnapshotSides, type SideEntry, type SideWork } from './sides.js';

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

/**
 * What a preview's connectivity delta may hold: class changes (class pair, family, port ranges,
 * decision before and after). A realistic change of the generated M snapshot makes 67; one
 * AdminNetworkPolicy of 80 rules over 300 pods, 371,000; eight of them, 2.8 million in 32 s
 * and 1.6 GB, and sixty ran the heap out after eight minutes. Counted as they are found.
 */
export const PREVIEW_LIMITS = { classChanges: 1_000_000 } as const;

export interface DeltaWork extends SideWork {
  /** Candidate class pairs examined. */
  pairs: number;
}

interface FlowRun {
  readonly lo: number;
  readonly hi: number;
  readonly decision: FlowDecision;
}

const NODE_LOCAL: FlowDecision = { allowed: true, reason: 'node-local', egress: null, ingress: null };
/** Equal keys: the same outcome, decided by the same rules (and Passes) on both sides. */
export const flowKey = (d: FlowDecision) => `${d.allowed ? 1 : 0}|${d.reason ?? ''}|${d.egress ? decisionKey(d.egress) : '-'}|${d.ingress ? decisionKey(d.ingress) : '-'}`;

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
    pushRun(out, { lo, hi, decision }, (a, b) => flowKey(a.decision) === flowKey(b.decision));
  }
  return out;
}

export function connectivityDelta(classes: Classes, groups: SubjectGroups, candidates: Candidates, maxChanges: number = PREVIEW_LIMITS.classChanges): { changes: ClassChange[]; work: DeltaWork } {
  const work: DeltaWork = { pairs: 0, evaluations: 0, sides: 0, sidesReused: 0 };
  const allowedIds = new Map<string, number>();
  const sides: Both<SnapshotSides> = { base: new SnapshotSides('base', groups, classes, work, allowedIds), head: new SnapshotSides('head', groups, classes, work, allowedIds) };
  const changes: ClassChange[] = [];
  const NOWHERE: Both<boolean> = { base: false, head: false };
  const found = new Map<string, { before: FlowDecision; after: FlowDecision; ranges: PortRanges }>();
  const diffs = new Map<string, readonly { before: FlowDecision; after: FlowDecision; ranges: PortRanges }[]>();
  const entryIds = new Map<SideEntry, number>();
  const entryId = (e: SideEntry | null): number => {
    if (!e) return -1;
    let id = entryIds.get(e);
    if (id === undefined) entryIds.set(e, (id = entryIds.size));
    return id;
  };

  work.pairs = forEachCandidate(candidates, classes, (from, to, dirty) => {
    const families = sharedFamilies(from, to);
    // Pairs where one side only may differ (most pairs of a broad change): when that side lets
    // the same flows through in both snapshots, so does the pair, whatever the other side does.
    // Pod classes that moved between nodes are `changed`, so node-locality never differs here.
    if (dirty.egress !== dirty.ingress) {
      const moving = dirty.egress ? 'egress' : 'ingress';
      const same = families.every((family) => {
        const side = sideOf(moving, from, to, family);
        return side === null || sides.base.allowedAll(side) === sides.head.allowedAll(side);
      });
      if (same) return;
    }
    for (const family of families) {
      // A side the candidates say cannot differ is taken from the base for both snapshots.
      const ends = { egress: sideOf('egress', from, to, family), ingress: sideOf('ingress', from, to, family) };
      const run = (dir: Direction, s: SnapshotSide, protocol: Protocol) => {
        const side = ends[dir];
        return side && sides[dirty[dir] ? s : 'base'].entry(side, protocol);
      };
      for (const { locality = NOWHERE, pairs } of pairGroups(from, to)) {
        if (pairs === 0 || (locality.base && locality.head)) continue;
        // A pair's changes are a function of its side entries (memoised, so equal sides are one
        // object) and its locality: pairs with the same ones share one diff, and its objects.
        const key: (number | string)[] = [+locality.base, +locality.head];
        const diffed: Protocol[] = [];
        for (const protocol of PROTOCOLS) {
          if (!locality.base && !locality.head && dirty.egress !== dirty.ingress) {
            // Only one side may differ: when it allows the same ports, so does the flow.
            const moving = dirty.egress ? 'egress' : 'ingress';
            const [b, h] = [run(moving, 'base', protocol), run(moving, 'head', protocol)];
            if (!b || !h || b.allowed === h.allowed) {
              key.push('=');
              continue;
            }
          }
          diffed.push(protocol);
          for (const dir of DIRS) for (const s of SIDES) key.push(entryId(run(dir, s, protocol)));
        }
        const k = key.join(',');
        let result = diffs.get(k);
        if (!result) {
          found.clear();
          for (const protocol of diffed) {
            const runs = (s: SnapshotSide) => (locality[s] ? NODE_LOCAL_RUNS : combine(run('egress', s, protocol)?.runs ?? null, run('ingress', s, protocol)?.runs ?? null));
            diffRuns(runs('base'), runs('head'), protocol, found);
          }
          diffs.set(k, (result = [...found.values()]));
        }
        for (const f of result) {
          changes.push({ from: from.id, to: to.id, family, ...(pairGroupsSplit(from, to) ? { locality } : {}), pairs, change: f.before.allowed ? 'removed' : 'added', ...f });
        }
        if (changes.length > maxChanges) throw new LimitError(`the change alters connectivity in more than ${maxChanges} ways (class pair, port range, decision before and after; the limit): preview it in smaller steps, a few policies at a time`);
      }
    }
  });
  return { changes, work };
}

const NODE_LOCAL_RUNS: readonly FlowRun[] = [{ lo: 1, hi: 65535, decision: NODE_LOCAL }];
const DIRS: readonly Direction[] = ['egress', 'ingress'];

/** Adds the ports where the verdict differs to `found`, by (decision before, decision after). */
function diffRuns(before: readonly FlowRun[], after: readonly FlowRun[], protocol: Protocol, found: Map<string, { before: FlowDecision; after: FlowDecision; ranges: PortRanges }>): void {
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

/** Node → pod pairs are split by locality (pairGroups); other pairs carry none. */
const pairGroupsSplit = (from: EndpointClass, to: EndpointClass) => from.kind === 'nodes' && to.kind === 'pods';

/**
 * The endpoint pairs a class pair stands for. Node → pod pairs split by whether the pod runs on
 * that node in each snapshot ("traffic to and from the node where a Pod is running is always
 * allowed"); every other class pair is one group.
 */
export function pairGroups(from: EndpointClass, to: EndpointClass): { locality?: Both<boolean>; pairs: number }[] {
  // An external class counts its ranges (elementary intervals), as it did with a class per range.
  const size = (c: EndpointClass) => (c.kind === 'external' ? c.intervals.length : c.members.length);
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
