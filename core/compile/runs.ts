// Tables as emit produces them: runs of rules that differ only in one network (a permit list
// over many pod addresses on one port range is one run). The rules are expanded from the runs
// for the IR, and the canonical form that table ids hash is written from the runs directly:
// one native join per run instead of encoding every rule as a JSON tuple, which was the
// largest single cost of compiling an M-sized cluster (profile: canonicalRules ~20%).
import type { IrAction, IrProtocol, IrRule, PortRange } from './ir.js';

export interface RuleRun {
  readonly action: IrAction;
  readonly protocol: IrProtocol;
  readonly srcPortRange: PortRange | null;
  readonly dstPortRange: PortRange | null;
  /** The network that takes each value of `networks`; the other one is `fixed`. */
  readonly varies: 'srcNetwork' | 'dstNetwork';
  readonly fixed: string;
  /**
   * CIDRs or "" (any), one rule each, in order. Never characters JSON escapes: networks are
   * printed by formatIp/rangeToCidrs (digits, hex letters, '.', ':', '/').
   */
  readonly networks: readonly string[];
  /** Set when every network is a CIDR of this family (none is ""), so readers need not look. */
  readonly family?: 4 | 6 | undefined;
}

/** Appends a run's rules to out; `fixed` and `networks` replace the run's own (see canonicalRun). */
export function appendRules(out: IrRule[], run: RuleRun, fixed = run.fixed, networks = run.networks): void {
  const { action, protocol, srcPortRange, dstPortRange } = run;
  if (run.varies === 'srcNetwork') for (const net of networks) out.push({ action, protocol, srcNetwork: net, srcPortRange, dstNetwork: fixed, dstPortRange });
  else for (const net of networks) out.push({ action, protocol, srcNetwork: fixed, srcPortRange, dstNetwork: net, dstPortRange });
}

export function rulesOfRuns(runs: readonly RuleRun[]): IrRule[] {
  const out: IrRule[] = [];
  for (const run of runs) appendRules(out, run);
  return out;
}

/** JSON of a port range; what JSON.stringify writes for null or two integers. */
const portsJson = (r: PortRange | null): string => (r === null ? 'null' : `[${r[0]},${r[1]}]`);

/**
 * A run's rules in canonical form (table-id.ts canonicalRules), without the outer brackets; ""
 * for none. `fixed` and `networks` replace the run's own (scoped copies of a run, unallocated).
 */
export function canonicalRun(run: RuleRun, fixed = run.fixed, networks = run.networks): string {
  if (networks.length === 0) return '';
  // Every rule of the run is head + network + tail; the join writes them in one pass. Strings
  // are written without JSON.stringify: actions and protocols are fixed words, networks need no
  // escaping (above), ports are integers.
  const lead = `["${run.action}","${run.protocol}",`;
  const head = run.varies === 'srcNetwork' ? `${lead}"` : `${lead}"${fixed}",${portsJson(run.srcPortRange)},"`;
  const tail = run.varies === 'srcNetwork' ? `",${portsJson(run.srcPortRange)},"${fixed}",${portsJson(run.dstPortRange)}]` : `",${portsJson(run.dstPortRange)}]`;
  return head + networks.join(`${tail},${head}`) + tail;
}

/** canonicalRules(rulesOfRuns(runs)). */
export function canonicalOfRuns(runs: readonly RuleRun[]): string {
  const parts: string[] = [];
  for (const run of runs) {
    const text = canonicalRun(run);
    if (text) parts.push(text);
  }
  return `[${parts.join(',')}]`;
}
