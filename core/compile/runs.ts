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
}

export function rulesOfRuns(runs: readonly RuleRun[]): IrRule[] {
  const out: IrRule[] = [];
  for (const run of runs) {
    const { action, protocol, srcPortRange, dstPortRange, fixed } = run;
    if (run.varies === 'srcNetwork') for (const net of run.networks) out.push({ action, protocol, srcNetwork: net, srcPortRange, dstNetwork: fixed, dstPortRange });
    else for (const net of run.networks) out.push({ action, protocol, srcNetwork: fixed, srcPortRange, dstNetwork: net, dstPortRange });
  }
  return out;
}

const J = JSON.stringify;

/** A run's rules in canonical form (table-id.ts canonicalRules), without the outer brackets; "" for none. */
export function canonicalRun(run: RuleRun): string {
  if (run.networks.length === 0) return '';
  // Every rule of the run is head + network + tail; the join writes them in one pass.
  const lead = `[${J(run.action)},${J(run.protocol)},`;
  const head = run.varies === 'srcNetwork' ? `${lead}"` : `${lead}${J(run.fixed)},${J(run.srcPortRange)},"`;
  const tail = run.varies === 'srcNetwork' ? `",${J(run.srcPortRange)},${J(run.fixed)},${J(run.dstPortRange)}]` : `",${J(run.dstPortRange)}]`;
  return head + run.networks.join(`${tail},${head}`) + tail;
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
