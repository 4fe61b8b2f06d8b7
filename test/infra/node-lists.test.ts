// A node's table and set lists name only what the version carries: a publish refuses a node that
// names another id, whole or from changes (infra/store/content.ts). From changes, the ids a node's
// list held in the earlier version were checked when that one was published: only the ids the
// list gained are looked up again.
import { describe, expect, it } from 'vitest';
import { compiledState, nextVersion, type CompiledState } from '../../core/sets/next-version.js';
import type { SetFormChange, SetNode } from '../../core/sets/index.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { compiledSnapshotOf } from './support.js';

const NOT_CARRIED = 's0000000000000000';

const parsed = (items: unknown[]) => {
  const p = parseSnapshot({ items });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.snapshot;
};

const pod = (i: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}`, namespace: 'shop', labels: { app: `a${i % 3}` } }, spec: { nodeName: `node-${i % 2}` }, status: { podIP: `10.1.0.${i + 1}` } });
const nodes = [0, 1].map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${n}` }, status: { addresses: [{ type: 'InternalIP', address: `172.18.0.${n + 2}` }] } }));
/** Ingress to every pod from the pods of `from` apps: one set per app list, named by every node's list. */
const policy = (from: string[]) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'np', namespace: 'shop' },
  spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: from }] } }] }] },
});

/** The state with one node's set list given one more id, as a compile that went wrong would. */
function withSetOnNode(state: CompiledState, node: string, id: string): CompiledState {
  const n = state.ir.nodes[node]!;
  const forged: SetNode = { ...n, sets: [...n.sets, id].sort() };
  return { ...state, ir: { ...state.ir, nodes: { ...state.ir.nodes, [node]: forged } } };
}

describe("a node's lists", () => {
  const t0 = 1_700_000_000_000;
  const v1 = compiledState(parsed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, ...nodes, ...[0, 1, 2, 3, 4, 5].map(pod), policy(['a0'])])).state;
  // The rule's peer widened: a new set, named by both nodes' lists instead of the old one.
  const v2 = nextVersion(v1, { apply: parsed([policy(['a0', 'a1'])]), delete: [] });
  if (!v2.ok || !v2.change) throw new Error('not compiled from the base');
  const change: SetFormChange = v2.change;

  it('name what the version carries, else the publish is refused: whole', async () => {
    const store = createSnapshotStore(new MemoryBackend(), { now: () => t0 });
    await expect(store.publish('c', '1', compiledSnapshotOf(withSetOnNode(v1, 'node-0', NOT_CARRIED)))).rejects.toThrow(`node node-0 refers to set ${NOT_CARRIED} that the snapshot does not carry`);
    expect(await store.getHeader('c', '1')).toBeNull();
  });

  it('name what the version carries, else the publish is refused: from changes, the ids a list gained', async () => {
    const store = createSnapshotStore(new MemoryBackend(), { now: () => t0 });
    await store.publish('c', '1', compiledSnapshotOf(v1));
    // Both nodes' set lists changed (a set left, one came), so both are checked.
    expect(change.nodes).toEqual(['node-0', 'node-1']);
    const forged = withSetOnNode(v2.state, 'node-1', NOT_CARRIED);
    await expect(store.publish('c', '2', compiledSnapshotOf(forged, { ...change, from: v1.ir }))).rejects.toThrow(`node node-1 refers to set ${NOT_CARRIED} that the snapshot does not carry`);
    expect(await store.getHeader('c', '2')).toBeNull();
    // As compiled, it is stored, and reads back as a whole publish of it would.
    expect((await store.publish('c', '2', compiledSnapshotOf(v2.state, change))).status).toBe('created');
    for (const node of ['node-0', 'node-1']) expect((await store.getNodeTables('c', '2', node))?.pods).toEqual(v2.state.ir.nodes[node]!.pods);
  });
});
