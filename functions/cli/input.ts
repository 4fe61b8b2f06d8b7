// CLI input: files, directories (recursively *.yaml, *.yml, *.json) or stdin, as JSON or
// multi-document YAML, into one snapshot. Validation issues are mapped back to file and
// document so a pipeline log points at the line to fix.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { parseSnapshot, type ParsedSnapshot, type ValidationIssue } from '../../schemas/snapshot.js';

export class InputError extends Error {}

export interface Source {
  readonly name: string;
  readonly text: string;
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) return filesUnder(full);
      return /\.(ya?ml|json)$/i.test(entry) ? [full] : [];
    });
}

export function readSources(paths: readonly string[], stdin: () => string): Source[] {
  if (paths.length === 0 || (paths.length === 1 && paths[0] === '-')) return [{ name: '<stdin>', text: stdin() }];
  return paths.flatMap((p) => {
    try {
      return filesUnder(p).map((f) => ({ name: f, text: readFileSync(f, 'utf8') }));
    } catch (e) {
      throw new InputError(`cannot read ${p}: ${(e as Error).message}`);
    }
  });
}

/** Every document of every source, with where it came from. */
function documents(sources: readonly Source[]): { doc: unknown; origin: string }[] {
  const out: { doc: unknown; origin: string }[] = [];
  for (const s of sources) {
    const trimmed = s.text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      try {
        out.push({ doc: JSON.parse(s.text), origin: s.name });
        continue;
      } catch {
        // Not JSON after all: YAML is a superset, let the YAML parser report.
      }
    }
    parseAllDocuments(s.text).forEach((d, i) => {
      if (d.errors.length > 0) throw new InputError(`${s.name} (document ${i + 1}): malformed YAML: ${d.errors[0]!.message.split('\n')[0]}`);
      const doc = d.toJS() as unknown;
      if (doc !== null && doc !== undefined) out.push({ doc, origin: `${s.name} (document ${i + 1})` });
    });
  }
  return out;
}

/** A parsed snapshot, and where each of its `$.items[i]…` paths came from ("<file> (document 2): $.spec…"). */
export interface LoadedSnapshot {
  readonly snapshot: ParsedSnapshot;
  readonly where: (path: string) => string;
}

/** Objects of every document of every source (Lists flattened), with the origin of each. */
export function collectItems(sources: readonly Source[]): { items: unknown[]; origins: string[] } {
  const items: unknown[] = [];
  const origins: string[] = [];
  for (const { doc, origin } of documents(sources)) {
    const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' && Array.isArray((doc as { items?: unknown }).items) ? (doc as { items: unknown[] }).items : [doc];
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
export function issueLines(issues: readonly ValidationIssue[], where: (path: string) => string): string {
  return issues
    .map((i) => {
      const obj = i.object ? ` (${[i.object.kind, [i.object.namespace, i.object.name].filter(Boolean).join('/')].filter(Boolean).join(' ')})` : '';
      return `  ${where(i.path)}${obj}: ${i.message}`;
    })
    .join('\n');
}

export function loadSnapshot(sources: readonly Source[], progress: (msg: string) => void = () => {}, label = 'snapshot'): LoadedSnapshot {
  const { items, origins } = collectItems(sources);
  if (items.length > 5000) progress(`read ${items.length} objects from ${sources.length} source(s)`);
  const parsed = parseSnapshot({ items });
  const where = originOf(origins);
  if (!parsed.ok) throw new InputError(`invalid ${label}:\n${issueLines(parsed.issues, where)}`);
  return { snapshot: parsed.snapshot, where };
}

export function loadCluster(sources: readonly Source[], progress: (msg: string) => void = () => {}): Cluster {
  const { snapshot } = loadSnapshot(sources, progress);
  const cluster = buildCluster(snapshot);
  if (snapshot.objects.length > 5000) progress(`indexed ${cluster.pods.length} pods, ${cluster.policies.all.length} policies`);
  return cluster;
}
