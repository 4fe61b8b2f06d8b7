// A preview as a pull-request comment: counts first, the changed flows as a table (removed
// before added, biggest first), a Mermaid graph of the changed edges, the per-node rule-table
// delta and the lints of the head (new ones first). Long lists are cut and say how much was cut.
import { uncheckedText } from '../lint/budget.js';
import { describePolicy } from '../policy/model.js';
import { groupText, type Aggregate, type EndpointGroup } from './aggregate.js';
import type { Preview } from './preview.js';

export interface MarkdownOptions {
  /** Changed-flow rows in the table (default 30). */
  readonly maxRows?: number;
  /** Edges in the Mermaid graph (default 20). */
  readonly maxEdges?: number;
  /** Lint findings listed (default 20). */
  readonly maxFindings?: number;
}

const n = (x: number) => x.toLocaleString('en-US');
/** Table cells hold no pipes or newlines. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** Mermaid labels: quotes and brackets would end the label. */
const label = (s: string) => s.replace(/"/g, '#quot;').replace(/[[\]{}<>]/g, ' ');

function summaryLine(p: Preview): string {
  const { removed, added, pods } = p.summary;
  const podNotes = [
    pods.added.length > 0 ? `${n(pods.added.length)} pods added` : '',
    pods.removed.length > 0 ? `${n(pods.removed.length)} pods removed` : '',
    pods.changed > 0 ? `${n(pods.changed)} pods relabelled, readdressed or moved` : '',
  ].filter(Boolean);
  const changes = (k: number) => `${n(k)} change${k === 1 ? '' : 's'}`;
  const flows = removed.pairs + added.pairs === 0 ? 'No flow changes its verdict.' : `**${n(removed.pairs)}** endpoint pairs lose flows (${changes(removed.aggregates)}), **${n(added.pairs)}** gain flows (${changes(added.aggregates)}).`;
  return [flows, ...(podNotes.length > 0 ? [`${podNotes.join(', ')} (flows of pods in one snapshot only are not verdict changes).`] : [])].join(' ');
}

function changesTable(changes: readonly Aggregate[], max: number): string[] {
  if (changes.length === 0) return [];
  const rows = changes.slice(0, max).map((a) => `| ${a.change === 'removed' ? '**removed**' : 'added'} | ${cell(groupText(a.from))} | ${cell(groupText(a.to))} | ${cell(a.ports)}${a.families.length === 1 ? ` (${a.families[0]})` : ''} | ${n(a.pairs)} | ${cell(a.before.text)} | ${cell(a.after.text)} |`);
  const more = changes.length > max ? [``, `… and ${n(changes.length - max)} more changes (${n(changes.slice(max).reduce((s, a) => s + a.pairs, 0))} endpoint pairs); the JSON response lists them all.`] : [];
  return ['| | from | to | ports | pairs | before | after |', '|---|---|---|---|--:|---|---|', ...rows, ...more];
}

function mermaid(changes: readonly Aggregate[], max: number): string[] {
  if (changes.length === 0) return [];
  const ids = new Map<string, string>();
  const nodes: string[] = [];
  const id = (g: EndpointGroup) => {
    const text = groupText(g);
    let v = ids.get(text);
    if (!v) {
      ids.set(text, (v = `n${ids.size}`));
      nodes.push(`  ${v}["${label(text)}"]`);
    }
    return v;
  };
  const shown = changes.slice(0, max);
  const edges = shown.map((a) => `  ${id(a.from)} ${a.change === 'removed' ? '-.->' : '-->'}|"${label(`${a.change === 'removed' ? '−' : '+'} ${a.ports}`)}"| ${id(a.to)}`);
  const styles = shown.map((a, i) => `  linkStyle ${i} stroke:${a.change === 'removed' ? '#cf222e' : '#1a7f37'},stroke-width:2px`);
  const note = changes.length > max ? [`Graph: the ${max} biggest of ${n(changes.length)} changes.`, ''] : [];
  return [...note, '```mermaid', 'flowchart LR', ...nodes, ...edges, ...styles, '```'];
}

function tablesSection(p: Preview): string[] {
  if (!p.tables) return [];
  const entries = Object.entries(p.tables.nodes);
  const head = `${n(entries.length)} node${entries.length === 1 ? '' : 's'} change${entries.length === 1 ? 's' : ''}, ${n(p.tables.unchangedNodes)} unchanged.`;
  if (entries.length === 0) return ['#### Rule tables', '', head];
  const rows = entries.slice(0, 15).map(
    ([node, d]) =>
      `| ${cell(node)} | +${n(d.tablesAdded.length)} / −${n(d.tablesRemoved.length)} | +${n(d.rulesAdded)} / −${n(d.rulesRemoved)} | +${n(d.setsAdded.length)} / −${n(d.setsRemoved.length)} | +${n(d.membersAdded)} / −${n(d.membersRemoved)} in ${n(d.setsChanged.length)} | ${n(d.podsRebound)} |`,
  );
  const more = entries.length > 15 ? [``, `… and ${n(entries.length - 15)} more nodes.`] : [];
  return ['#### Rule tables', '', head, '', '| node | tables | rules | sets | members, in sets kept | pods rebound |', '|---|---|---|---|---|--:|', ...rows, ...more];
}

function lintSection(p: Preview, max: number): string[] {
  if (!p.lint) return [];
  const fresh = p.lint.findings.filter((f) => f.new);
  const old = p.lint.findings.length - fresh.length;
  const line = (f: (typeof p.lint.findings)[number]) => `- ${f.severity === 'error' ? '**error**' : f.severity} \`${f.code}\` ${describePolicy(f.object)} \`${f.snapshotPath ?? f.path}\`: ${f.message} — ${f.hint}`;
  const counts = `${n(fresh.length)} new finding${fresh.length === 1 ? '' : 's'}, ${n(old)} already in the base, ${n(p.lint.resolved.length)} resolved.`;
  const list = fresh.slice(0, max).map(line);
  const more = fresh.length > max ? [`- … and ${n(fresh.length - max)} more`] : [];
  const unchecked = uncheckedText(p.lint.unchecked);
  return ['#### Lints of the head', '', counts, ...(list.length > 0 ? ['', ...list, ...more] : []), ...(unchecked ? ['', `_${unchecked}._`] : [])];
}

function workloadsSection(p: Preview): string[] {
  const { added, retemplated, deleted } = p.workloads;
  if (added.length + retemplated.length + deleted.length === 0) return [];
  const list = (xs: readonly string[]) => xs.map((x) => `\`${x}\``).join(', ');
  return [
    '#### Workloads',
    '',
    ...added.map((w) => `- **new** \`${w.endpoint}\` (no pods yet): ${w.reachedBy} ${w.reaches}`),
    ...(retemplated.length > 0 ? [`- new pod template, pods follow it: ${list(retemplated)}`] : []),
    ...(deleted.length > 0 ? [`- deleted with their pods: ${list(deleted)}`] : []),
  ];
}

export function previewMarkdown(p: Preview, options: MarkdownOptions = {}): string {
  const { maxRows = 30, maxEdges = 20, maxFindings = 20 } = options;
  const sections: string[][] = [
    ['### netpolc preview', '', summaryLine(p)],
    changesTable(p.changes, maxRows),
    mermaid(p.changes, maxEdges),
    workloadsSection(p),
    tablesSection(p),
    lintSection(p, maxFindings),
  ];
  return `${sections.filter((s) => s.length > 0).map((s) => s.join('\n')).join('\n\n')}\n`;
}
