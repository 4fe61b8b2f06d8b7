// CLI input: files, directories (recursively *.yaml, *.yml, *.json) or stdin, as JSON or
// multi-document YAML, into one snapshot. Validation issues are mapped back to file and
// document so a pipeline log points at the line to fix.
import { yamlDocuments } from '../yaml-documents.js';
import { buildCluster, noEndpoints, type Cluster } from '../../core/cluster.js';
import { warningMessages } from '../../core/warnings.js';
import { listItems, parseSnapshot, type ParsedSnapshot, type ValidationIssue } from '../../schemas/snapshot.js';
import { InputError, type Io } from './io.js';
import { readSources as readFrom, type Source } from './sources.js';
import { printable } from '../../core/printable.js';

export { InputError } from './io.js';
export type { Source } from './sources.js';

/** The sources the command names, with the common input options and a stderr line per skipped file. */
export function readSources(paths: readonly string[], io: Pick<Io, 'stdin' | 'err' | 'input'>): Source[] {
  return readFrom(paths, io.stdin, { exclude: io.input?.exclude ?? [], note: io.err });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/**
 * A document that is (or lists) Kubernetes objects: it has `kind` (a List does), or is an array
 * with an object that has one. An array of other records (a tool's JSON report beside the
 * manifests) is not, and its file is skipped as any other non-Kubernetes file is.
 */
const hasKind = (v: unknown): boolean => isObject(v) && typeof v.kind === 'string';
const looksKubernetes = (doc: unknown): boolean => (Array.isArray(doc) ? doc.some(hasKind) : isObject(doc) && (typeof doc.kind === 'string' || (Array.isArray(doc.items) && doc.items.some(isObject))));

/** Every document of every source, with where it came from; a file none of whose documents is a Kubernetes object is skipped (one stderr line). */
function documents(sources: readonly Source[], note: (line: string) => void, broken: ValidationIssue[] | null): { doc: unknown; origin: string }[] {
  const out: { doc: unknown; origin: string }[] = [];
  for (const s of sources) {
    const docs: { doc: unknown; origin: string }[] = [];
    const trimmed = s.text.trimStart();
    let json = false;
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        docs.push({ doc: JSON.parse(s.text), origin: s.name });
        json = true;
      } catch {
        // Not JSON after all: YAML is a superset, let the YAML parser report.
      }
    }
    if (!json) {
      yamlDocuments(s.text).forEach((d, i) => {
        if (d.error !== undefined) {
          const message = `malformed YAML: ${d.error}`;
          // --keep-going: the document is left out and reported; the file's other documents are read.
          if (broken) return void broken.push({ path: `${s.name} (document ${i + 1})`, message });
          throw new InputError(`${s.name} (document ${i + 1}): ${message}`);
        }
        const doc = d.value;
        if (doc !== null && doc !== undefined) docs.push({ doc, origin: `${s.name} (document ${i + 1})` });
      });
    }
    if (s.name !== '<stdin>' && docs.length > 0 && !docs.some((d) => looksKubernetes(d.doc))) {
      note(`skipped ${s.name}: no Kubernetes objects (no document has apiVersion and kind)`);
      continue;
    }
    out.push(...docs);
  }
  return out;
}

/** A parsed snapshot, and where each of its `$.items[i]…` paths came from ("<file> (document 2): $.spec…"). */
export interface LoadedSnapshot {
  readonly snapshot: ParsedSnapshot;
  readonly where: (path: string) => string;
}

/** Objects of every document of every source (Lists, typed Lists and arrays flattened), with the origin of each. */
export function collectItems(sources: readonly Source[], note: (line: string) => void = () => {}, broken: ValidationIssue[] | null = null): { items: unknown[]; origins: string[] } {
  const items: unknown[] = [];
  const origins: string[] = [];
  for (const { doc, origin } of documents(sources, note, broken)) {
    const list = Array.isArray(doc) ? doc : (listItems(doc) ?? (isObject(doc) && Array.isArray(doc.items) ? doc.items : [doc]));
    for (const item of list) {
      items.push(item);
      origins.push(origin);
    }
  }
  return { items, origins };
}

/** Maps `$.items[i]rest` (as parseSnapshot reports at `$`) to the file and document of item i. */
export const originOf = (origins: readonly string[]) => (path: string): string => {
  const m = /^\$\.items\[(\d+)\](.*)$/.exec(path);
  return m ? `${origins[Number(m[1])]}: ${m[2] ? `$${m[2]}` : '$'}` : path;
};

/** Every validation issue on its own line, with file, document, path and object. */
/** Problems printed before "… and N more": a pipeline log stays readable. */
const MAX_PRINTED_ISSUES = 100;

export function issueLines(issues: readonly ValidationIssue[], where: (path: string) => string): string {
  const lines = issues.slice(0, MAX_PRINTED_ISSUES).map((i) => {
    // A refused name may hold anything (a newline, a terminal escape): shown escaped, on one line.
    const obj = i.object ? ` (${printable([i.object.kind, [i.object.namespace, i.object.name].filter(Boolean).join('/')].filter(Boolean).join(' '))})` : '';
    return `  ${where(i.path)}${obj}: ${i.message}`;
  });
  if (issues.length > MAX_PRINTED_ISSUES) lines.push(`  … and ${issues.length - MAX_PRINTED_ISSUES} more problems`);
  return lines.join('\n');
}

/**
 * All objects of the sources as one snapshot. `keepGoing` (--keep-going): invalid objects and
 * unparsable documents are left out and reported (the cluster's warnings, with file, document
 * and path) instead of stopping the command.
 */
export function loadSnapshot(sources: readonly Source[], progress: (msg: string) => void = () => {}, label = 'snapshot', keepGoing = false): LoadedSnapshot {
  const broken: ValidationIssue[] = [];
  const { items, origins } = collectItems(sources, progress, keepGoing ? broken : null);
  if (items.length > 5000) progress(`read ${items.length} objects from ${sources.length} source(s)`);
  const parsed = parseSnapshot({ items }, '$', { lenient: keepGoing, leftOut: broken });
  const where = originOf(origins);
  if (!parsed.ok) throw new InputError(`invalid ${label}:\n${issueLines(parsed.issues, where)}`);
  const leftOut = parsed.snapshot.leftOut?.map((i) => ({ ...i, path: where(i.path) }));
  return { snapshot: leftOut ? { ...parsed.snapshot, leftOut } : parsed.snapshot, where };
}

/** Each warning of a cluster on its own stderr line: nothing the answer leaves out goes unsaid. */
export function printWarnings(warnings: readonly string[], err: (s: string) => void): void {
  for (const w of warnings) err(`warning: ${w}`);
}

export function loadCluster(sources: readonly Source[], progress: (msg: string) => void = () => {}, keepGoing = false): Cluster {
  const { snapshot } = loadSnapshot(sources, progress, 'snapshot', keepGoing);
  const cluster = buildCluster(snapshot);
  const empty = noEndpoints(snapshot, cluster);
  if (empty) throw new InputError(empty);
  if (snapshot.objects.length > 5000) progress(`indexed ${cluster.pods.length} pods, ${cluster.policies.all.length} policies`);
  printWarnings(warningMessages(cluster.warnings), progress);
  return cluster;
}
