// CLI input: files, directories (recursively *.yaml, *.yml, *.json) or stdin, as JSON or
// multi-document YAML, into one snapshot. Validation issues are mapped back to file and
// document so a pipeline log points at the line to fix.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { buildCluster, type Cluster } from '../../core/cluster.js';
import { parseSnapshot } from '../../schemas/snapshot.js';

export class InputError extends Error {}

interface Source {
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

export function loadCluster(sources: readonly Source[], progress: (msg: string) => void = () => {}): Cluster {
  const docs = documents(sources);
  const items: unknown[] = [];
  const origins: string[] = [];
  for (const { doc, origin } of docs) {
    const list = Array.isArray(doc) ? doc : doc && typeof doc === 'object' && Array.isArray((doc as { items?: unknown }).items) ? (doc as { items: unknown[] }).items : [doc];
    for (const item of list) {
      items.push(item);
      origins.push(origin);
    }
  }
  if (items.length > 5000) progress(`read ${items.length} objects from ${sources.length} source(s)`);
  const parsed = parseSnapshot({ items });
  if (!parsed.ok) {
    const lines = parsed.issues.map((i) => {
      const m = /^\$\.items\[(\d+)\](.*)$/.exec(i.path);
      const where = m ? `${origins[Number(m[1])]}: ${m[2] ? `$${m[2]}` : '$'}` : i.path;
      const obj = i.object ? ` (${[i.object.kind, [i.object.namespace, i.object.name].filter(Boolean).join('/')].filter(Boolean).join(' ')})` : '';
      return `${where}${obj}: ${i.message}`;
    });
    throw new InputError(`invalid snapshot:\n  ${lines.join('\n  ')}`);
  }
  const cluster = buildCluster(parsed.snapshot);
  if (items.length > 5000) progress(`indexed ${cluster.pods.length} pods, ${cluster.policies.all.length} policies`);
  return cluster;
}
