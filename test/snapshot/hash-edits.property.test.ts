// A snapshot hash from the earlier one and the keys edited (core/snapshot/hash.ts hashObjects
// with `edits`) is the hash from scratch: same hash, same runs, same objects, over random
// objects in key order and random adds, deletes and replacements. Keys are drawn mostly from
// ones that end a run, so edits land on run boundaries often: a deleted run end (two runs
// merge), an added one (a run splits), edits before the first key and after the last, every
// object deleted, an earlier snapshot with no runs. Runs no edit falls into must come back as
// the earlier Run objects: a version that hashed every run again would fail.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/table-id.js';
import { fnv1a } from '../../core/fnv1a.js';
import { hashObjects, RUN_SPAN, snapshotObjectKey, type HashedObjects } from '../../core/snapshot/hash.js';
import { byText } from '../../core/sorted.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(500);

const pod = (namespace: string, name: string, v: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name }, spec: { v } }) as unknown as SnapshotObject;
const keyOf = (namespace: string, name: string) => snapshotObjectKey(pod(namespace, name, 0));
const endsRun = (key: string) => fnv1a(key) % RUN_SPAN === 0;

/** `cuts` names whose key ends a run and `plain` that do not (after `natural` names as they come), in key order. */
function universe(cuts: number, plain: number, natural = 0): { namespace: string; name: string; key: string }[] {
  const out: { namespace: string; name: string; key: string }[] = [];
  let [c, p] = [0, 0];
  for (let i = 0; c < cuts || p < plain || i < natural; i++) {
    const namespace = i % 3 === 0 ? 'a' : 'b';
    const name = `p${i}`;
    const key = keyOf(namespace, name);
    if (i < natural) out.push({ namespace, name, key });
    else if (endsRun(key) ? c++ < cuts : p++ < plain) out.push({ namespace, name, key });
  }
  return out.sort((x, y) => byText(x.key, y.key));
}

// Tiny ones (runs of about two objects, every edit near a boundary) and a larger one (runs of ~10).
const UNIVERSES = [universe(3, 3), universe(5, 7), universe(20, 20), universe(40, 0, 400)];
const PERCENT = [0, 3, 15, 50, 100];

/** Two functions with the same digest: runs hashed under each are cached apart (hash.ts runOf). */
const sha = (): Sha256Hex => (text) => portableSha256Hex(text);

const caseArb = fc.constantFrom(...UNIVERSES).chain((u) =>
  fc.record({
    u: fc.constant(u),
    present: fc.constantFrom(0, 50, 90, 100),
    // Percent of the objects there edited, and of those how many deleted (the others replaced).
    edited: fc.constantFrom(...PERCENT),
    deleted: fc.constantFrom(0, 50, 100),
    // Percent of the keys not there added.
    added: fc.constantFrom(...PERCENT),
    draws: fc.array(fc.tuple(fc.nat(99), fc.nat(99), fc.nat(99)), { minLength: u.length, maxLength: u.length }),
  }),
);

/** Earlier runs an edit leaves as they were: none of the edit keys in their range, and the run before still ending where it did. */
function untouched(earlier: HashedObjects, edits: readonly string[], after: ReadonlySet<string>) {
  const runs = earlier.runs;
  const last = (j: number) => snapshotObjectKey(runs[j]!.objects[runs[j]!.objects.length - 1]!);
  return runs.filter((_, j) => {
    const from = j === 0 ? null : last(j - 1);
    const to = j === runs.length - 1 ? null : last(j);
    if (from !== null && !after.has(from)) return false;
    return !edits.some((k) => (from === null || k > from) && (to === null || k <= to));
  });
}

describe('snapshot hash from edits', () => {
  it(`equals the hash from scratch and keeps the runs no edit falls into (${RUNS} random edits)`, () => {
    const seen = { mergedRuns: 0, splitRun: 0, beforeFirst: 0, afterLast: 0, noEarlierRuns: 0, allDeleted: 0, noEdits: 0 };
    assertProperty(
      fc.property(caseArb, ({ u, present, edited, deleted, added, draws }) => {
        const before: SnapshotObject[] = [];
        const after: SnapshotObject[] = [];
        const edits: string[] = [];
        u.forEach(({ namespace, name, key }, i) => {
          const [p, e, d] = draws[i]!;
          const was = p < present ? pod(namespace, name, 0) : null;
          if (was) before.push(was);
          const edit = e < (was ? edited : added);
          if (edit) edits.push(key);
          const now = !edit ? was : was && d < deleted ? null : pod(namespace, name, 1);
          if (now) after.push(now);
        });
        const earlier = hashObjects(before, sha());
        const got = hashObjects(after, sha(), earlier, edits);
        const scratch = hashObjects(after, sha());
        expect(got.hash).toBe(scratch.hash);
        expect(got.runs.map((r) => r.digest)).toEqual(scratch.runs.map((r) => r.digest));
        expect(got.runs.length).toBe(scratch.runs.length);
        got.runs.forEach((r, j) => {
          expect(r.objects.length).toBe(scratch.runs[j]!.objects.length);
          expect(r.objects.every((o, k) => o === scratch.runs[j]!.objects[k])).toBe(true);
        });
        expect(got.objects.length).toBe(scratch.objects.length);
        expect(got.objects.every((o, k) => o === scratch.objects[k])).toBe(true);
        const afterKeys = new Set(after.map(snapshotObjectKey));
        const reused = new Set(got.runs);
        for (const r of untouched(earlier, edits, afterKeys)) expect(reused.has(r)).toBe(true);

        // What the draw exercised.
        const ends = earlier.runs.slice(0, -1).map((r) => snapshotObjectKey(r.objects[r.objects.length - 1]!));
        if (ends.some((k) => !afterKeys.has(k))) seen.mergedRuns++;
        const beforeKeys = new Set(before.map(snapshotObjectKey));
        const lastAfter = after.length > 0 ? snapshotObjectKey(after[after.length - 1]!) : '';
        if (edits.some((k) => !beforeKeys.has(k) && afterKeys.has(k) && endsRun(k) && k < lastAfter)) seen.splitRun++;
        if (before.length > 0 && edits.some((k) => k < snapshotObjectKey(before[0]!))) seen.beforeFirst++;
        if (before.length > 0 && edits.some((k) => k > snapshotObjectKey(before[before.length - 1]!))) seen.afterLast++;
        if (earlier.runs.length === 0 && after.length > 0) seen.noEarlierRuns++;
        if (before.length > 0 && after.length === 0) seen.allDeleted++;
        if (edits.length === 0 && before.length > 0) seen.noEdits++;
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    // Each case comes up in ~2% of draws or more.
    if (RUNS >= 500) for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });
});
