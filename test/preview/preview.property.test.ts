// Property: on random snapshots and random changes, the cells a preview reports (aggregates
// expanded back to endpoint pairs, ports, protocols, families) are exactly the cells whose
// verdict differs when every pair is evaluated in both snapshots.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../core/cluster.js';
import { applyChanges, preview } from '../../core/preview/index.js';
import { parseSnapshot, type ParsedSnapshot } from '../../schemas/snapshot.js';
import { bruteForceCells, previewCells, type PortProto } from '../support/preview-cells.js';
import { changeArb, changeOf, EXTERNAL, NODES, snapshotArb } from '../support/random-snapshot.js';
import { assertProperty } from '../support/property.js';

// Every port the random policies can start or end a range at, and its neighbours.
const NUMBERS = [...new Set([1, 65535, ...[53, 80, 81, 443, 5432, 8080].flatMap((p) => [p - 1, p, p + 1, p + 2, p + 500, p + 501, p + 1000, p + 1001])])];
const PORTS: PortProto[] = NUMBERS.flatMap((port) => (['TCP', 'UDP', 'SCTP'] as const).map((protocol) => ({ port, protocol })));
const ADDRESSES = [...NODES.flatMap((n) => [n.v4, n.v6]), ...EXTERNAL];

function parsed(raw: unknown, at: string): ParsedSnapshot {
  const p = parseSnapshot(raw, at);
  if (!p.ok) throw new Error(`${at}: ${JSON.stringify(p.issues.slice(0, 3))}`);
  return p.snapshot;
}

const diff = (a: Set<string>, b: Set<string>) => ({ onlyPreview: [...a].filter((x) => !b.has(x)).slice(0, 10), onlyBruteForce: [...b].filter((x) => !a.has(x)).slice(0, 10) });

describe('preview (property)', () => {
  it('reports exactly the flows whose verdict differs, on random snapshots and changes', () => {
    let changed = 0;
    assertProperty(
      fc.property(snapshotArb, changeArb, (base, c) => {
        const change = changeOf(base, c);
        const b = parsed(base, '$.base');
        const head = applyChanges(b, { apply: parsed(change.apply, '$.changes.apply'), delete: change.delete });
        if (!head.ok) throw new Error(JSON.stringify(head.issues));
        const p = preview({ base: b, head: head.snapshot }, { tables: false, lint: false, headFromChanges: true });
        const clusters = { base: buildCluster(b), head: buildCluster(head.snapshot) };
        const got = previewCells(p, clusters, PORTS, ADDRESSES);
        const want = bruteForceCells(clusters, PORTS, ADDRESSES);
        if (want.size > 0) changed++;
        expect(diff(got, want)).toEqual({ onlyPreview: [], onlyBruteForce: [] });
      }),
      { file: import.meta.url, numRuns: 120 },
    );
    // The generator must actually change verdicts, or the property proves nothing.
    expect(changed).toBeGreaterThan(30);
  });
});
