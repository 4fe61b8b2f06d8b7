// Rules for longest-prefix-match dataplanes (VPPTCP session tables) built from a decision
// function. Construction: per family a default over the whole space, then disjoint CIDR
// blocks where the decision differs, each with a port default and single-port exceptions.
// Lookup is prefix first, then port (Contiv: "Apply more-specific rule before less-specific
// ones, i.e. the longest prefix match algorithm. Used by the VPPTCP Renderer."): a block's
// rules always beat the family default's, so the default's port exceptions need no copies.
import { elementaryIntervals, mergeAdjacent } from '../net/intervals.js';
import { formatIp, rangeToBlocks, type Family, type IpAddr, type IpRange } from '../net/ip.js';
import { spend, type WorkBudget } from '../limits.js';

export type LpmProtocol = 'TCP' | 'UDP';

export interface LpmRule {
  readonly family: Family;
  /** Network address and prefix length of the peer side. */
  readonly prefix: string;
  readonly plen: number;
  readonly protocol: LpmProtocol;
  /** 0 = any port. */
  readonly port: number;
  readonly allow: boolean;
}

export interface DecisionSpace {
  /** Address ranges the decision is uniform within (CIDRs of the rules) … */
  readonly cuts: readonly IpRange[];
  /** … and single addresses that may differ from their surroundings (local pods). */
  readonly points: readonly IpAddr[];
  /** Port boundaries per protocol, as inclusive ranges. */
  readonly segments: Record<LpmProtocol, readonly (readonly [number, number])[]>;
  /** Asked for one address on every port segment in turn, then the next address. */
  decide(ip: IpAddr, protocol: LpmProtocol, port: number): boolean;
}

type PortFn = boolean[]; // verdict per segment

function majority(fn: PortFn, segs: readonly (readonly [number, number])[]): boolean {
  let yes = 0;
  let no = 0;
  fn.forEach((v, i) => ((v ? (yes += segs[i]![1] - segs[i]![0] + 1) : (no += segs[i]![1] - segs[i]![0] + 1))));
  return yes >= no;
}

function portRules(fn: PortFn, segs: readonly (readonly [number, number])[], base: Omit<LpmRule, 'port' | 'allow'>, budget: WorkBudget | undefined): LpmRule[] {
  const dflt = majority(fn, segs);
  // Counted before any is built: one wide range can expand to 65,535 rules.
  let count = 1;
  fn.forEach((v, i) => (count += v === dflt ? 0 : segs[i]![1] - segs[i]![0] + 1));
  spend(budget, 'rules', count);
  const out: LpmRule[] = [{ ...base, port: 0, allow: dflt }];
  fn.forEach((v, i) => {
    if (v === dflt) return;
    for (let p = segs[i]![0]; p <= segs[i]![1]; p++) out.push({ ...base, port: p, allow: v });
  });
  return out;
}

/**
 * The rules, charging `budget` each rule before it is built (past it, the budget's refusal is
 * thrown). `families`: the address families to build (both by default).
 */
export function lpmRules(space: DecisionSpace, budget?: WorkBudget, families: readonly Family[] = [4, 6]): LpmRule[] {
  const out: LpmRule[] = [];
  for (const family of families) {

    const ranges = [...space.cuts.filter((c) => c.family === family), ...space.points.filter((p) => p.family === family).map((p) => ({ family, lo: p.value, hi: p.value }))];
    const atoms = elementaryIntervals(family, ranges);
    for (const protocol of ['TCP', 'UDP'] as const) {
      const segs = space.segments[protocol];
      const fnOf = (lo: bigint) => segs.map(([p]) => space.decide({ family, value: lo }, protocol, p));
      // The family default: the decision of the largest atom (the "rest of the world").
      const largest = atoms.reduce((a, b) => (b.hi - b.lo > a.hi - a.lo ? b : a));
      const worldFn = fnOf(largest.lo);
      const zero = family === 4 ? '0.0.0.0' : '::';
      for (const r of portRules(worldFn, segs, { family, prefix: zero, plen: 0, protocol }, budget)) out.push(r);
      // Blocks whose decision differs from the world's, merged when adjacent and alike.
      const differing = atoms.map((a) => ({ a, fn: fnOf(a.lo) })).filter(({ fn }) => fn.some((v, i) => v !== worldFn[i]));
      const groups = new Map<string, { lo: bigint; hi: bigint }[]>();
      for (const { a, fn } of differing) {
        const k = fn.map((v) => (v ? 1 : 0)).join('');
        groups.set(k, [...(groups.get(k) ?? []), { lo: a.lo, hi: a.hi }]);
      }
      for (const [k, list] of [...groups.entries()].sort()) {
        const fn = [...k].map((c) => c === '1');
        for (const m of mergeAdjacent(list)) {
          for (const block of rangeToBlocks({ family, lo: m.lo, hi: m.hi })) {
            // No spread: a block may expand to tens of thousands of single-port rules.
            for (const r of portRules(fn, segs, { family, prefix: formatIp(family, block.lo), plen: block.prefix, protocol }, budget)) out.push(r);
          }
        }
      }
    }
  }
  return out;
}

/** The most specific matching rule: longest prefix, then an exact port over any. */
export function lpmLookup<R extends { plen: number; port: number }>(rules: readonly R[], matches: (r: R) => boolean): R | null {
  let best: R | null = null;
  for (const r of rules) {
    if (!matches(r)) continue;
    if (!best || r.plen > best.plen || (r.plen === best.plen && r.port !== 0 && best.port === 0)) best = r;
  }
  return best;
}
