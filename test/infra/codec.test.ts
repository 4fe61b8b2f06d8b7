// The node manifest written as text directly is byte for byte the manifest object stringified,
// and its hash made from the node is the hash of what a reader decodes (its size the text's
// length), on random compiled snapshots and on keys JSON must escape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { compileSets } from '../../core/sets/compile.js';
import type { SetNode } from '../../core/sets/ir.js';
import { decodeManifest, manifestOf, manifestText, nodeManifestText, utf8 } from '../../infra/store/codec.js';
import { isManifestOf, manifestDigest, nodeDigest } from '../../infra/store/manifest-hash.js';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { assertProperty } from '../support/property.js';
import { snapshotArb } from '../support/random-snapshot.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

describe('node manifest text', () => {
  it(`equals the manifest object stringified, and hashes as a reader hashes it (${RUNS} random snapshots)`, () => {
    let nodes = 0;
    assertProperty(
      fc.property(snapshotArb, (snap) => {
        const parsed = parseSnapshot(snap);
        if (!parsed.ok) return;
        const { ir } = compileSets(buildCluster(parsed.snapshot));
        const contentIds = new Map([...ir.sets.ids()].map((id, i) => [id, `b${i}`]));
        for (const node of Object.values(ir.nodes)) {
          nodes++;
          const text = nodeManifestText(node, contentIds);
          expect(text).toBe(manifestText(manifestOf(node, contentIds)));
          // Its hash (manifest-hash.ts), made from the node, is the one a reader makes from what it decodes.
          const entries = new Map<string, string>();
          const digest = nodeDigest(node, contentIds, portableSha256Hex, undefined, entries);
          expect(digest.size).toBe(text.length);
          // The entry texts the digest wrote, as a publish hands them over, make the same text.
          if (node.sets.length > 0) expect(entries.size).toBeGreaterThan(0);
          expect(nodeManifestText(node, contentIds, entries)).toBe(text);
          const read = decodeManifest(utf8(text));
          expect(manifestDigest(read, portableSha256Hex).hash).toBe(digest.hash);
          expect(isManifestOf(digest.hash, read, portableSha256Hex)).toBe(true);
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(nodes).toBeGreaterThan(RUNS);
  });

  it('escapes as JSON.stringify does, and sorts what is not in order', () => {
    const node: SetNode = {
      addresses: ['10.0.0.1', 'fd00::1'],
      pods: { 'b/"q"\\\u2028': { ips: ['10.1.0.2'], ingress: 'r2', egress: 'r1' }, 'a/p\n': { ips: [], ingress: 'r1', egress: 'r1' } },
      sets: ['s2', 's1'],
      tables: ['r2', 'r1'],
    };
    const ids = new Map([['s1', 'b"1'], ['s2', 'b2']]);
    expect(nodeManifestText(node, ids)).toBe(manifestText(manifestOf(node, ids)));
    expect(JSON.parse(nodeManifestText(node, ids)).tables).toEqual(['r1', 'r2']);
  });
});
