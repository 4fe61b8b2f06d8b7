// `netpolc preview --base DIR|FILE|- (--head DIR|FILE|- | --changes FILE)`: what a change does
// to connectivity, for a pull-request pipeline. Exit 1 when the change takes away flows that
// were allowed, unless --allow-removed-flows; 2 for bad usage or input.
import { nodeSha256Hex } from '../../node-sha256.js';
import { parseArgs } from 'node:util';
import { yamlDocuments } from '../../yaml-documents.js';
import { applyChanges, groupText, preview, previewMarkdown, withoutParts, type ObjectRef, type Preview, type PreviewStage } from '../../../core/preview/index.js';
import { noEndpointObjects } from '../../../core/cluster.js';
import { uncheckedText } from '../../../core/lint/index.js';
import { ObjectRefSchema } from '../../../schemas/api/preview.js';
import { formatPath, listItems, parseSnapshot, type ParsedSnapshot } from '../../../schemas/snapshot.js';
import { InputError, issueLines, loadSnapshot, printWarnings, readSources } from '../input.js';
import { outputFormat, UsageError, type Io, type OutputFormat } from '../io.js';
import { countText, findingLines } from './lint.js';

/** Inputs over this many objects get progress and stage timings on stderr. */
const LARGE = 5000;
/** Changed-flow lines in text output; JSON has them all. */
const MAX_TEXT_CHANGES = 50;

interface Loaded {
  readonly base: ParsedSnapshot;
  readonly head: ParsedSnapshot;
  /** Where a path of a lint finding of the base or the head came from. */
  readonly where: { readonly base: (path: string) => string; readonly head: (path: string) => string };
}

/**
 * A change: files (a directory: every file of it) of documents `{apply: [objects], delete:
 * [{kind, namespace, name}]}`, or of Kubernetes objects, which are applied as they are.
 */
function loadChanges(path: string, base: ParsedSnapshot, baseWhere: (p: string) => string, io: Io): Loaded {
  const apply: unknown[] = [];
  const applyAt: string[] = [];
  const refs: ObjectRef[] = [];
  for (const source of readSources([path], io)) {
    const list0 = yamlDocuments(source.text);
    list0.forEach((d, n) => {
      const at = (p: string) => `${source.name}${list0.length > 1 ? ` (document ${n + 1})` : ''}: ${p}`;
      if (d.error !== undefined) throw new InputError(at(`malformed YAML: ${d.error}`));
      const raw = d.value;
      if (raw === null || raw === undefined) return;
      const change = typeof raw === 'object' && !Array.isArray(raw) && (raw as { kind?: unknown }).kind === undefined ? (raw as { apply?: unknown; delete?: unknown }) : null;
      const objects = change ? (change.apply ?? []) : raw;
      const list = Array.isArray(objects) ? objects : listItems(objects) ?? [objects];
      list.forEach((o, j) => {
        apply.push(o);
        applyAt.push(change ? at(`$.apply[${j}]`) : `${source.name} (document ${n + 1}): $`);
      });
      if (!change) return;
      const deletes = Array.isArray(change.delete) ? change.delete : change.delete === undefined ? [] : null;
      if (deletes === null) throw new InputError(at('$.delete: expected a list of {kind, namespace, name}'));
      deletes.forEach((x, i) => {
        const r = ObjectRefSchema.safeParse(x);
        if (!r.success) throw new InputError(at(`${formatPath(`$.delete[${i}]`, r.error.issues[0]!.path)}: ${r.error.issues[0]!.message}`));
        refs.push(r.data);
      });
    });
  }
  const where = (p: string) => {
    const m = /^\$\.apply\[(\d+)\](.*)$/.exec(p);
    return m ? `${applyAt[Number(m[1])]}${m[2]}` : p;
  };
  const parsed = parseSnapshot(apply, '$.apply');
  if (!parsed.ok) throw new InputError(`invalid changes:\n${issueLines(parsed.issues, where)}`);
  const head = applyChanges(base, { apply: parsed.snapshot, delete: refs }, '$.delete');
  if (!head.ok) throw new InputError(`invalid changes:\n${issueLines(head.issues, (p) => `${path}: ${p}`)}`);
  return { base, head: head.snapshot, where: { base: baseWhere, head: (p) => (p.startsWith('$.apply') ? where(p) : baseWhere(p)) } };
}

function load(values: { base?: string | undefined; head?: string | undefined; changes?: string | undefined }, io: Io): Loaded {
  if (!values.base) throw new UsageError('preview needs --base (a file, a directory or - for stdin)');
  if ((values.head === undefined) === (values.changes === undefined)) throw new UsageError('preview needs --head or --changes (one of them)');
  if ([values.base, values.head, values.changes].filter((v) => v === '-').length > 1) throw new UsageError('only one of --base, --head, --changes can read stdin (-)');
  const base = loadSnapshot(readSources([values.base], io), io.err, 'base snapshot', io.input?.keepGoing);
  const empty = noEndpointObjects(base.snapshot);
  if (empty) throw new InputError(`base snapshot: ${empty}`);
  if (values.changes !== undefined) return loadChanges(values.changes, base.snapshot, base.where, io);
  const head = loadSnapshot(readSources([values.head!], io), io.err, 'head snapshot', io.input?.keepGoing);
  return { base: base.snapshot, head: head.snapshot, where: { base: base.where, head: head.where } };
}

function text(p: Preview, where: Loaded['where']): string {
  const { removed, added, pods } = p.summary;
  const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  const lines = [`${plural(removed.pairs, 'endpoint pair')} lose flows (${plural(removed.aggregates, 'change')}), ${plural(added.pairs, 'pair')} gain flows (${plural(added.aggregates, 'change')})`];
  if (pods.added.length + pods.removed.length + pods.changed > 0) lines.push(`pods: ${pods.added.length} added, ${pods.removed.length} removed, ${pods.changed} relabelled/readdressed/moved`);
  for (const w of p.workloads.added) lines.push(`new workload ${w.endpoint} (no pods yet): ${w.reachedBy} ${w.reaches}`);
  if (p.workloads.retemplated.length > 0) lines.push(`new pod template, pods follow it: ${p.workloads.retemplated.join(', ')}`);
  if (p.workloads.deleted.length > 0) lines.push(`deleted with their pods: ${p.workloads.deleted.join(', ')}`);
  for (const a of p.changes.slice(0, MAX_TEXT_CHANGES)) {
    lines.push('', `${a.change.padEnd(7)} ${groupText(a.from)} → ${groupText(a.to)}  ${a.ports}  [${a.pairs} pair${a.pairs === 1 ? '' : 's'}]`, `        before: ${a.before.text}`, `        after:  ${a.after.text}`);
  }
  if (p.changes.length > MAX_TEXT_CHANGES) lines.push('', `… and ${p.changes.length - MAX_TEXT_CHANGES} more changes (--output json lists them all)`);
  if (p.tables) {
    const nodes = Object.entries(p.tables.nodes);
    lines.push('', `rule tables: ${nodes.length} node${nodes.length === 1 ? '' : 's'} change, ${p.tables.unchangedNodes} unchanged`);
    for (const [node, d] of nodes.slice(0, 10)) {
      lines.push(`  ${node}: +${d.tablesAdded.length}/−${d.tablesRemoved.length} tables, +${d.rulesAdded}/−${d.rulesRemoved} rules, +${d.setsAdded.length}/−${d.setsRemoved.length} sets, ${plural(d.setsChanged.length, 'set')} with +${d.membersAdded}/−${d.membersRemoved} members, ${plural(d.podsRebound, 'pod')} rebound`);
    }
    if (nodes.length > 10) lines.push(`  … and ${nodes.length - 10} more nodes`);
  }
  if (p.lint) {
    const fresh = p.lint.findings.filter((f) => f.new);
    const unchecked = uncheckedText(p.lint.unchecked);
    lines.push('', `lints of the head: ${countText(p.lint.findings)}; ${fresh.length} new, ${p.lint.resolved.length} resolved`, ...findingLines(fresh, where.head, 'text'), ...(unchecked ? [unchecked] : []));
  }
  return lines.join('\n');
}

/** Lint paths of the CLI's own assembled snapshots, pointed back at files and documents. */
function locateFindings(p: Preview, where: Loaded['where']): Preview {
  if (!p.lint) return p;
  const at = (w: (path: string) => string) => <F extends { snapshotPath?: string; path: string }>(f: F): F => ({ ...f, snapshotPath: w(f.snapshotPath ?? f.path) });
  return { ...p, lint: { ...p.lint, findings: p.lint.findings.map(at(where.head)), resolved: p.lint.resolved.map(at(where.base)) } };
}

export function commandPreview(args: string[], io: Io): number {
  const { values } = parseArgs({
    args,
    options: {
      base: { type: 'string' },
      head: { type: 'string' },
      changes: { type: 'string' },
      output: { type: 'string' },
      detail: { type: 'string' },
      'no-tables': { type: 'boolean', default: false },
      'no-lint': { type: 'boolean', default: false },
      'allow-removed-flows': { type: 'boolean', default: false },
    },
  });
  const format: OutputFormat = outputFormat(values.output);
  if (values.detail !== undefined && values.detail !== 'parts') throw new UsageError('--detail takes one value: parts');
  const loaded = load(values, io);
  const large = loaded.base.objects.length + loaded.head.objects.length > LARGE;
  const stage = <T>(name: PreviewStage, run: () => T): T => {
    const t0 = performance.now();
    const out = run();
    if (large) io.err(`${name}: ${Math.round(performance.now() - t0)} ms`);
    return out;
  };
  const p = locateFindings(preview({ base: loaded.base, head: loaded.head }, { tables: !values['no-tables'], lint: !values['no-lint'], stage, sha256Hex: nodeSha256Hex, headFromChanges: values.changes !== undefined }), loaded.where);
  printWarnings(p.warnings, io.err);
  if (large) {
    const { classes, work } = p.summary;
    io.err(`classes: ${classes.pods} pod, ${classes.nodes} node, ${classes.external} external; ${work.pairs} candidate class pairs, ${work.evaluations} side evaluations`);
  }
  if (format === 'json') io.out(JSON.stringify(values.detail === 'parts' ? p : withoutParts(p), null, 2));
  else if (format === 'markdown') io.out(previewMarkdown(p));
  else io.out(text(p, loaded.where));
  if (p.summary.removed.pairs > 0 && !values['allow-removed-flows']) {
    io.err(`${p.summary.removed.pairs} endpoint pairs lose flows that were allowed; pass --allow-removed-flows if that is intended`);
    return 1;
  }
  return 0;
}
