// `netpolc lint`: the policy lints of a snapshot. Exit 1 when a finding is at least as severe
// as --fail-on (error by default), so a pipeline can gate on it.
import { parseArgs } from 'node:util';
import { buildCluster } from '../../../core/cluster.js';
import { lintRun, uncheckedText, type Finding, type Severity } from '../../../core/lint/index.js';
import { describePolicy } from '../../../core/policy/index.js';
import { warningMessages } from '../../../core/warnings.js';
import { loadSnapshot, printWarnings, readSources } from '../input.js';
import { outputFormat, UsageError, type Io, type OutputFormat } from '../io.js';

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** One finding per line, where it is first: "warning selects-no-pods NetworkPolicy x/y at <file> (document 2): $.spec.podSelector". */
export function findingLines(findings: readonly (Finding & { new?: boolean })[], where: (path: string) => string, format: OutputFormat): string[] {
  return findings.map((f) => {
    const at = where(f.snapshotPath ?? f.path);
    const fresh = f.new ? 'new ' : '';
    return format === 'markdown'
      ? `- ${fresh}**${f.severity}** \`${f.code}\` ${describePolicy(f.object)} at \`${at}\`: ${f.message} — ${f.hint}`
      : `${fresh}${f.severity} ${f.code} ${describePolicy(f.object)} at ${at}: ${f.message}\n  fix: ${f.hint}`;
  });
}

export const countText = (findings: readonly Finding[]) => {
  const n = (s: Severity) => findings.filter((f) => f.severity === s).length;
  return `${findings.length} finding${findings.length === 1 ? '' : 's'}: ${n('error')} error${n('error') === 1 ? '' : 's'}, ${n('warning')} warning${n('warning') === 1 ? '' : 's'}, ${n('info')} info`;
};

export function commandLint(args: string[], io: Io): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { output: { type: 'string' }, 'fail-on': { type: 'string', default: 'error' } } });
  const format = outputFormat(values.output);
  const failOn = values['fail-on']! as Severity;
  if (!(failOn in RANK)) throw new UsageError(`--fail-on must be error, warning or info, not "${failOn}"`);
  const { snapshot, where } = loadSnapshot(readSources(positionals, io), io.err, 'snapshot', io.input?.keepGoing);
  const cluster = buildCluster(snapshot);
  printWarnings(warningMessages(cluster.warnings), io.err);
  const { findings, unchecked } = lintRun(cluster, { objectPaths: snapshot.paths });
  const notChecked = uncheckedText(unchecked);
  if (format === 'json') io.out(JSON.stringify({ findings: findings.map((f) => ({ ...f, at: where(f.snapshotPath ?? f.path) })), unchecked, warnings: warningMessages(cluster.warnings) }, null, 2));
  else io.out([...findingLines(findings, where, format), ...(findings.length > 0 ? [''] : []), countText(findings), ...(notChecked ? [notChecked] : [])].join('\n'));
  const failing = findings.filter((f) => RANK[f.severity] <= RANK[failOn]).length;
  if (failing > 0) {
    io.err(`${failing} finding${failing === 1 ? '' : 's'} at or above ${failOn} (--fail-on ${failOn})`);
    return 1;
  }
  return 0;
}
