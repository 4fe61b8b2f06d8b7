// Parsed objects come out in canonical key order (schemas/k8s/meta.ts sortedObject and sorted
// maps), so their canonical JSON, written for every object by the snapshot hash and the store,
// is JSON.stringify's. Not a matter of correctness (canonicalJson sorts whatever it is given),
// but of speed at L: this fails when a schema or a transform writes keys out of order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GENERATORS } from '../../bench/generate.js';
import { parseSnapshot, type SnapshotObject } from '../../schemas/snapshot.js';
import { canonical, canonicalJson } from '../../core/snapshot/hash.js';
import { snapshotArb } from '../support/random-snapshot.js';
import { exampleItems } from '../support/cli.js';
import { loadYaml, SEED_FIXTURES } from '../support/cluster-builders.js';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Paths (with array indices as []) of objects whose keys are not sorted. */
function unsorted(v: unknown, path: string, out: Set<string>): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) return v.forEach((x) => unsorted(x, `${path}[]`, out));
  const keys = Object.keys(v);
  if (keys.some((k, i) => i > 0 && k < keys[i - 1]!)) out.add(`${path} {${keys.join(',')}}`);
  for (const k of keys) unsorted((v as Record<string, unknown>)[k], `${path}.${k}`, out);
}

function expectCanonicalOrder(objects: readonly SnapshotObject[]): void {
  const out = new Set<string>();
  for (const o of objects) unsorted(o, o.kind, out);
  expect([...out]).toEqual([]);
}

const parsed = (raw: unknown): SnapshotObject[] => {
  const r = parseSnapshot(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues.slice(0, 3)));
  return r.snapshot.objects;
};

describe('parsed objects are in canonical key order', () => {
  it('the bench snapshot S, the example cluster and the seed fixtures', () => {
    expectCanonicalOrder(parsed(JSON.parse(JSON.stringify(GENERATORS.S()))));
    expectCanonicalOrder(parsed({ items: exampleItems() }));
    // Every seed document netpolc reads (the proposals' drafts, ClusterNetworkPolicy and AdminNetworkPolicy forms).
    for (const dir of readdirSync(SEED_FIXTURES, { withFileTypes: true }).filter((d) => d.isDirectory())) {
      for (const file of readdirSync(join(SEED_FIXTURES, dir.name)).filter((f) => f.endsWith('.yaml'))) {
        const r = parseSnapshot({ items: loadYaml(join(dir.name, file)) }, '$', { lenient: true });
        if (r.ok) expectCanonicalOrder(r.snapshot.objects);
      }
    }
  });

  it('random snapshots, with label maps and annotations in any order', () => {
    fc.assert(
      fc.property(snapshotArb, (s) => {
        const objects = parsed(JSON.parse(JSON.stringify(s)));
        expectCanonicalOrder(objects);
        // And so the canonical JSON is JSON.stringify's, and the key-sorted copy's.
        for (const o of objects) expect(canonicalJson(o)).toBe(JSON.stringify(o));
        for (const o of objects) expect(canonicalJson(o)).toBe(JSON.stringify(canonical(o)));
      }),
      { numRuns: 50 },
    );
  });
});
