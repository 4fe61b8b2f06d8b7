// parseSnapshot validates each object with its kind's schema compiled ahead of time (z.compile):
// generated code for the valid case, the schema's own parser when the generated code rejects.
// The compiled schema must answer exactly as the schema does: the same success, the same value
// (keys in the same order, absent and undefined kept apart), the same issues at the same paths.
// Inputs: every Kubernetes object in the fixtures and examples, and random snapshots' objects,
// as they are and after random mutations deep inside them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { KIND_SCHEMAS, kindSchema } from '../../schemas/snapshot.js';
import { mutate, mutationsArb, type Json } from '../support/mutations.js';
import { assertProperty, freshSeed, propertyRuns } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** Objects of supported kinds in every fixture and example file (Lists flattened). */
function corpus(): Json[] {
  const out: Json[] = [];
  // Wherever a file holds them: Lists, test cases' steps, request bodies.
  const take = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(take);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.apiVersion === 'string' && typeof o.kind === 'string' && Object.hasOwn(KIND_SCHEMAS, `${o.apiVersion}/${o.kind}`)) out.push(o as Json);
      else Object.values(o).forEach(take);
    }
  };
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (/\.json$/.test(e.name)) take(JSON.parse(readFileSync(path, 'utf8')));
      else if (/\.ya?ml$/.test(e.name)) for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) if (doc.errors.length === 0) take(doc.toJS());
    }
  };
  walk(join(ROOT, 'test', 'fixtures'));
  walk(join(ROOT, 'examples'));
  // Workload kinds no fixture carries.
  const template = { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ name: 'http', containerPort: 8080 }] }] } };
  take([
    { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'x' }, spec: { replicas: 2, selector: { matchLabels: { app: 'w' } }, template } },
    { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' }, spec: { selector: { app: 'w' }, template } },
    { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'x' }, spec: { template } },
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'ro', namespace: 'x' }, spec: { replicas: 3, selector: { matchLabels: { app: 'w' } }, template, strategy: { canary: { steps: [{ setWeight: 20 }] } } } },
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'ro-ref', namespace: 'x' }, spec: { selector: { matchLabels: { app: 'w' } }, workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', scaleDown: 'never' } } },
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata: { name: 'ro-tpl', namespace: 'x' }, spec: { selector: { matchLabels: { app: 'w' } }, workloadRef: { apiVersion: 'v1', kind: 'PodTemplate', name: 'pt' } } },
    { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'pt', namespace: 'x', labels: { team: 'a' } }, template },
    { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'empty' } },
    { apiVersion: 'apps.kruise.io/v1alpha1', kind: 'CloneSet', metadata: { name: 'cs', namespace: 'x' }, spec: { replicas: 2, selector: { matchLabels: { app: 'w' } }, template, updateStrategy: { type: 'InPlaceIfPossible' } } },
  ]);
  return out;
}

const CORPUS = corpus();
const runtimeSchema = (o: Json) => (KIND_SCHEMAS as Record<string, { safeParse: (v: unknown) => { success: boolean; data?: unknown; error?: { issues: unknown[] } } }>)[`${(o as { apiVersion: string }).apiVersion}/${(o as { kind: string }).kind}`]!;

/** A value's structure with its key order and undefined members spelt out, so equal means the same value to every reader. */
function described(v: unknown): unknown {
  if (Array.isArray(v)) return ['array', v.map(described)];
  if (v !== null && typeof v === 'object') return ['object', Object.getPrototypeOf(v) === Object.prototype, Object.keys(v).map((k) => [k, described((v as Record<string, unknown>)[k])])];
  return [typeof v, v];
}

function expectSameAnswer(original: Json, input: unknown): void {
  const key = `${(original as { apiVersion: string }).apiVersion}/${(original as { kind: string }).kind}`;
  const compiled = kindSchema(key)!.safeParse(input);
  const runtime = runtimeSchema(original).safeParse(input);
  expect(compiled.success, key).toBe(runtime.success);
  if (runtime.success) expect(described(compiled.data)).toEqual(described(runtime.data));
  else {
    const issues = (r: typeof runtime) => (r.error!.issues as { code: string; path: unknown[]; message: string }[]).map((i) => ({ code: i.code, path: i.path, message: i.message }));
    expect(issues(compiled as typeof runtime)).toEqual(issues(runtime));
  }
}

describe('compiled kind schemas answer as the schemas do', () => {
  it('the corpus holds objects of every kind netpolc reads', () => {
    const kinds = new Set(CORPUS.map((o) => `${(o as { apiVersion: string }).apiVersion}/${(o as { kind: string }).kind}`));
    expect([...Object.keys(KIND_SCHEMAS)].filter((k) => !kinds.has(k))).toEqual([]);
  });

  it('every fixture and example object, as it is', () => {
    for (const o of CORPUS) expectSameAnswer(o, structuredClone(o));
  });

  it('fixture and example objects after random mutations', () => {
    assertProperty(
      fc.property(fc.nat(CORPUS.length - 1), mutationsArb, (i, mutations) => {
        const original = CORPUS[i]!;
        expectSameAnswer(original, mutate(original, mutations));
      }),
      { numRuns: propertyRuns(2000), seed: freshSeed(), file: import.meta.url },
    );
  });

  it("random snapshots' objects, as they are and after random mutations", () => {
    assertProperty(
      fc.property(snapshotArb, fc.nat(), fc.option(mutationsArb, { nil: undefined }), (snapshot, pick, mutations) => {
        // As a request body gives it: JSON (the generator leaves some members undefined).
        const original = JSON.parse(JSON.stringify(snapshot.items[pick % snapshot.items.length])) as Json;
        expectSameAnswer(original, mutations ? mutate(original, mutations) : structuredClone(original));
      }),
      { numRuns: propertyRuns(1000), seed: freshSeed(), file: import.meta.url },
    );
  });
});
