// What the CLI reads from a repository: files and directories (recursively *.yaml, *.yml,
// *.json) or stdin. A repository also holds files that are not Kubernetes objects —
// kustomize and Helm configuration, Helm template sources, CI workflows — each skipped with
// one line on stderr rather than stopping the command; `--exclude GLOB` leaves out more.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { InputError } from './io.js';

export interface Source {
  readonly name: string;
  readonly text: string;
}

export interface ReadOptions {
  /** Globs (`**`, `*`, `?`) over paths relative to the directory named, or a file's base name. */
  readonly exclude?: readonly string[];
  /** One line per skipped file. */
  readonly note?: (line: string) => void;
}

/** `**` any path, `*` any name part, `?` one character; a glob without `/` matches any path segment's name. */
export function globMatcher(glob: string): (path: string) => boolean {
  const body = glob.replace(/\/+$/, '').split(/(\*\*\/?|\*|\?)/).map((t) => (t === '**' || t === '**/' ? '(?:.*/)?' + (t === '**' ? '.*' : '') : t === '*' ? '[^/]*' : t === '?' ? '[^/]' : t.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  const re = new RegExp(glob.includes('/') ? `^${body}(?:/.*)?$` : `(?:^|/)${body}(?:/|$)`);
  return (path) => re.test(path.split(sep).join('/'));
}

/** Why a file of a repository holds no Kubernetes objects to read, by its name and place; null when it may. */
export function notKubernetesByName(path: string): string | null {
  const name = basename(path);
  const parts = path.split(/[\\/]/);
  if (/^kustomization\.ya?ml$|^Kustomization$/.test(name)) return 'kustomize configuration (kustomize build renders the objects)';
  if (name === 'Chart.yaml' || name === 'Chart.lock') return 'Helm chart metadata';
  if (/^values([-.][^/]*)?\.ya?ml$/.test(name)) return 'Helm values (helm template renders the objects)';
  if (parts.slice(0, -1).some((p) => p.startsWith('.') && p !== '.' && p !== '..')) return `under ${parts.find((p) => p.startsWith('.') && p !== '.' && p !== '..')}/ (tool configuration such as CI workflows)`;
  return null;
}

/** A Helm template source: `{{ … }}` actions in a chart's templates/ (rendered objects never are in templates/ with actions). */
export function isTemplateSource(path: string, text: string): boolean {
  return text.includes('{{') && path.split(/[\\/]/).includes('templates');
}

function filesUnder(root: string, path: string, skip: (file: string) => boolean): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => {
      const full = join(path, entry);
      if (skip(relative(root, full))) return [];
      if (statSync(full).isDirectory()) return filesUnder(root, full, skip);
      return /\.(ya?ml|json)$/i.test(entry) ? [full] : [];
    });
}

export function readSources(paths: readonly string[], stdin: () => string, options: ReadOptions = {}): Source[] {
  const note = options.note ?? (() => {});
  if (paths.length === 0 || (paths.length === 1 && paths[0] === '-')) {
    const text = stdin();
    if (text.trim() === '') throw new InputError('no input: stdin is empty (pipe kubectl get … -o yaml, or name files or directories)');
    return [{ name: '<stdin>', text }];
  }
  const excluded = (options.exclude ?? []).map(globMatcher);
  return paths.flatMap((p) => {
    let files: string[];
    try {
      files = filesUnder(p, p, (rel) => excluded.some((m) => m(rel)));
    } catch (e) {
      throw new InputError(`cannot read ${p}: ${(e as Error).message}`);
    }
    if (files.length === 0) throw new InputError(`no input: ${p} holds no .yaml, .yml or .json files${excluded.length > 0 ? ' (after --exclude)' : ''}`);
    return files.flatMap((f) => {
      const why = notKubernetesByName(f);
      if (why) {
        note(`skipped ${f}: ${why}`);
        return [];
      }
      const text = readFileSync(f, 'utf8');
      if (isTemplateSource(f, text)) {
        note(`skipped ${f}: a Helm template source ({{ … }}); read what helm template renders`);
        return [];
      }
      return [{ name: f, text }];
    });
  });
}
