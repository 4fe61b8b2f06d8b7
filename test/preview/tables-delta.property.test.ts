// Property: a preview's head set form, compiled from the base's when only pods and policies
// changed, equals a full compile of the head (ids and bodies, and counts but the groups
// compiled; what each node changes), whether the head shares the base's objects (a change) or was parsed on its own (a
// snapshot or repository sent whole: equal objects, not the same ones).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { applyChanges } from '../../core/preview/index.js';
import { changedObjects, compiledSides, nodeDeltas } from '../../core/preview/tables.js';
import { compileSets } from '../../core/sets/compile.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { snapshotArb } from '../support/random-snapshot.js';
import { stepChange, versionStepArb } from '../support/random-changes.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(300);

function parsed(raw: unknown, at: string): ParsedSnapshot | null {
  const p = parseSnapshot(raw, at);
  return p.ok ? p.snapshot : null;
}

type RawObject = { kind: string; metadata: { name: string; namespace?: string } };
const rawKey = (o: { kind: string; namespace?: string | undefined; name: string }) => `${o.kind}/${o.namespace ?? ''}/${o.name}`;

/** The raw items with a change applied (deletes, then applies upserted), as a repository would hold them. */
function rawApplied(items: readonly unknown[], change: { apply: readonly unknown[]; delete: readonly { kind: string; namespace?: string; name: string }[] }): unknown[] {
  const byKey = new Map<string, unknown>();
  for (const o of items as RawObject[]) byKey.set(rawKey({ ...o.metadata, kind: o.kind }), o);
  for (const d of change.delete) byKey.delete(rawKey(d));
  for (const o of change.apply as RawObject[]) byKey.set(rawKey({ ...o.metadata, kind: o.kind }), o);
  return structuredClone([...byKey.values()]);
}

describe("a preview's head set form", () => {
  it(`equals a full compile of the head, from a change or from the head sent whole (${RUNS} random snapshots and changes)`, () => {
    const ways = { incremental: 0, sentWholeIncremental: 0 };
    assertProperty(
      fc.property(snapshotArb, versionStepArb, fc.boolean(), (raw, step, sentWhole) => {
        const base = parsed(raw, '$.base');
        if (!base) return;
        const change = stepChange(base.objects, step, 0);
        const apply = parsed({ items: change.apply }, '$.changes.apply');
        if (!apply) return;
        const applied = applyChanges(base, { apply, delete: change.delete });
        if (!applied.ok) return;
        // Sent whole: the same content, every object parsed again from its own text (in another order).
        const head = sentWhole ? parsed({ items: rawApplied(raw.items, change).reverse() }, '$.head') : applied.snapshot;
        if (!head) return;
        const snapshots = { base, head };
        const clusters = { base: buildCluster(base), head: buildCluster(head) };
        const sides = compiledSides(clusters, snapshots);
        const whole = compileSets(buildCluster(head));
        expect(JSON.stringify(sides.head.ir)).toBe(JSON.stringify(whole.ir));
        expect({ ...sides.head.stats, groups: 0 }).toEqual({ ...whole.stats, groups: 0 });
        // And so is what each node changes (unchanged nodes told from the change, not sliced).
        expect(nodeDeltas({ base: sides.base.ir, head: sides.head.ir }, sides.change)).toEqual(nodeDeltas({ base: sides.base.ir, head: whole.ir }, null));
        if (sides.change) ways.incremental++;
        if (sentWhole && sides.change) ways.sentWholeIncremental++;
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    // The head was compiled from the base often enough to mean something (a change of any kind
    // is; whole only when no change is told: none, or a key twice, which is compileSets itself).
    expect(ways.incremental).toBeGreaterThan(RUNS / 2);
    // Heads sent whole too: their objects are equal to the base's, not the same.
    expect(ways.sentWholeIncremental).toBeGreaterThan(RUNS / 4);
  });
});

describe('changedObjects', () => {
  const ns = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  const np = (name: string, port: number) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, namespace: 'a' }, spec: { podSelector: {}, ingress: [{ ports: [{ port }] }] } });
  const snap = (items: unknown[]) => parsed({ items }, '$')!;

  it('names what was applied, replaced or deleted, whatever the order and the key order inside objects', () => {
    const base = snap([ns('a'), np('x', 80), np('y', 80)]);
    const reordered = { apiVersion: 'v1', kind: 'Namespace', metadata: { labels: {}, name: 'a' } };
    const head = snap([np('y', 80), np('z', 80), reordered, np('x', 81)]);
    expect(changedObjects({ base, head })!.map((o) => `${o.kind} ${o.name}`).sort()).toEqual(['NetworkPolicy x', 'NetworkPolicy z']);
    expect(changedObjects({ base: head, head: base })!.map((o) => `${o.kind} ${o.name}`).sort()).toEqual(['NetworkPolicy x', 'NetworkPolicy z']);
    expect(changedObjects({ base, head: base })).toEqual([]);
  });
});
