// A node manifest's hash made of parts (infra/store/manifest-hash.ts): made from the node's digest
// in the version before (only the buckets of sets with new bodies, or other sets, hashed again) it
// equals the digest made from scratch, on random nodes and body changes. That it is the hash of
// the manifest a reader decodes is held on random snapshots by codec.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import type { SetNode } from '../../core/sets/ir.js';
import { contentHashOfText, manifestOf, manifestText } from '../../infra/store/codec.js';
import { isManifestOf, nodeDigest } from '../../infra/store/manifest-hash.js';
import { assertProperty } from '../support/property.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const sha = portableSha256Hex;

/** A node naming `n` sets s00000…. */
function nodeWith(n: number, extra: Partial<SetNode> = {}): SetNode {
  const sets = Array.from({ length: n }, (_, i) => `s${String(i).padStart(5, '0')}`);
  return { addresses: ['10.0.0.1'], pods: { 'a/p': { ips: ['10.1.0.2'], ingress: 'r1', egress: 'r2' } }, sets, tables: ['r1', 'r2'], ...extra };
}

describe('node manifest hash', () => {
  it(`made from the version before equals made from scratch (${RUNS} random body changes)`, () => {
    let hashed = 0;
    assertProperty(
      fc.property(
        fc.integer({ min: 0, max: 600 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.constantFrom('same node', 'same sets', 'other pods', 'fewer sets', 'more sets'),
        fc.array(fc.nat(), { maxLength: 10 }),
        (n, changedAt, kind, claimed) => {
          const before = nodeWith(n);
          const ids0 = new Map(before.sets.map((id) => [id, `e${id}`]));
          const earlier = nodeDigest(before, ids0, sha);
          const ids1 = new Map(ids0);
          const changed = new Set<string>();
          for (const i of changedAt) if (n > 0) changed.add(before.sets[i % n]!);
          for (const id of changed) ids1.set(id, `e${id}-2`);
          // Ids claimed changed that did not change, or that the node does not name, change nothing.
          for (const i of claimed) changed.add(`s${String(i % (n + 5)).padStart(5, '0')}`);
          const after: SetNode =
            kind === 'same node' ? before : kind === 'same sets' ? { ...before } : kind === 'other pods' ? { ...before, pods: {}, tables: ['r3'] } : nodeWith(kind === 'fewer sets' ? Math.max(0, n - 1) : n + 3);
          for (const id of after.sets) if (!ids1.has(id)) ids1.set(id, `enew${id}`);
          const made = nodeDigest(after, ids1, sha, { node: before, digest: earlier, changed: [...changed].sort() });
          const scratch = nodeDigest(after, ids1, sha);
          expect(made.hash).toBe(scratch.hash);
          expect(made.size).toBe(scratch.size);
          expect(made.buckets).toEqual(scratch.buckets);
          if (changedAt.length > 0 && n > 0 && kind !== 'fewer sets') expect(made.hash).not.toBe(earlier.hash);
          hashed++;
        },
      ),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(hashed).toBe(RUNS);
  });

  it('changes with any one entry, and reads manifests named by the hash of their text', () => {
    const node = nodeWith(50);
    const ids = new Map(node.sets.map((id) => [id, `e${id}`]));
    const hash = nodeDigest(node, ids, sha).hash;
    const seen = new Set([hash]);
    for (const id of node.sets) seen.add(nodeDigest(node, new Map(ids).set(id, 'eother'), sha).hash);
    seen.add(nodeDigest({ ...node, addresses: [] }, ids, sha).hash);
    expect(seen.size).toBe(node.sets.length + 2);
    const m = manifestOf(node, ids);
    expect(isManifestOf(contentHashOfText(manifestText(m), sha), m, sha)).toBe(true);
    expect(isManifestOf('h0000', m, sha)).toBe(false);
  });
});
