// Where a version from changes keeps its new tables and set bodies: one per item while they are
// few, packed under an index of its own when they are many (infra/store/change-packs.ts); and
// a body its base's index lists in a pack that a collection removed since is read from its own
// item (infra/store/read.ts readPacked, needed.ts).
import { describe, expect, it } from 'vitest';
import { compiledState, nextVersion, type CompiledState } from '../../core/sets/next-version.js';
import type { ObjectRef } from '../../core/preview/changes.js';
import { MIN_GRACE_SECONDS } from '../../infra/store/content-age.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { storeContext } from '../../infra/store/context.js';
import { missingItems } from '../../infra/store/admin.js';
import { headerKey } from '../../infra/store/keys.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { bodiesRead, compiledSnapshotOf } from './support.js';

const PODS = 300;

const pod = (i: number, extra: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${i}`, namespace: 'shop', labels: { app: `a${i}`, ...extra } },
  spec: { nodeName: `node-${i % 3}` },
  status: { podIP: `10.1.${i >> 8}.${i & 255}` },
});

/** Ingress to pod i from pod i+1 only: a table and a set of its own per pod. */
const policy = (i: number) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: `np${i}`, namespace: 'shop' },
  spec: { podSelector: { matchLabels: { app: `a${i}` } }, policyTypes: ['Ingress'], ingress: [{ from: [{ podSelector: { matchLabels: { app: `a${(i + 1) % PODS}` } } }], ports: [{ port: 80 }] }] },
});

const all = Array.from({ length: PODS }, (_, i) => i);

function parsed(items: unknown[]) {
  const p = parseSnapshot({ items });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.snapshot;
}

function firstState(): CompiledState {
  const nodes = [0, 1, 2].map((n) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: `node-${n}` }, status: { addresses: [{ type: 'InternalIP', address: `172.18.0.${n + 2}` }] } }));
  return compiledState(parsed([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, ...nodes, ...all.map((i) => pod(i)), ...all.map(policy)])).state;
}

/** The next version from `apply` and `remove` on `state`, compiled from it. */
function next(state: CompiledState, apply: unknown[], remove: ObjectRef[] = []) {
  const n = nextVersion(state, { apply: parsed(apply), delete: remove });
  if (!n.ok || !n.change) throw new Error('not compiled from the base');
  return { ...n, change: n.change };
}

const policyRef = (i: number): ObjectRef => ({ kind: 'NetworkPolicy', namespace: 'shop', name: `np${i}` });
const kinds = (backend: MemoryBackend, prefix: string) => new Set(backend.dump().filter((i) => i.pk.startsWith(prefix)).map((i) => i.pk)).size;

describe('a version from changes', () => {
  const t0 = 1_700_000_000_000;

  it('packs its new tables and set bodies when they are many, under an index of its own, and reads as a whole publish', async () => {
    const v1 = firstState();
    // Every policy dropped, then every policy back: ~600 bodies new to the version each time.
    const v2 = next(v1, [], all.map(policyRef));
    const v3 = next(v2.state, all.map(policy));
    const [packed, single, whole] = [new MemoryBackend(), new MemoryBackend(), new MemoryBackend()];
    const stores = [createSnapshotStore(packed, { now: () => t0 }), createSnapshotStore(single, { now: () => t0, changePackMinBodies: Infinity })];
    for (const store of stores) {
      await store.publish('c', '1', compiledSnapshotOf(v1));
      await store.publish('c', '2', compiledSnapshotOf(v2.state, v2.change));
    }
    const [packsBefore, indexesBefore] = [kinds(packed, 'k#'), kinds(packed, 'l#')];
    for (const store of stores) await store.publish('c', '3', compiledSnapshotOf(v3.state, v3.change));
    await createSnapshotStore(whole, { now: () => t0 }).publish('c', '3', compiledSnapshotOf(v3.state));
    // Version 3's new bodies (more than 256 of them) went into packs and a new index, none on its own.
    const fresh = v3.change.tables.length + v3.change.sets.length;
    expect(fresh).toBeGreaterThan(500);
    expect(kinds(packed, 'l#')).toBe(indexesBefore + 1);
    expect(kinds(packed, 'k#')).toBeGreaterThan(packsBefore);
    expect(kinds(packed, 'k#') - packsBefore).toBeLessThan(fresh / 50);
    const ownBodies = (b: MemoryBackend) => kinds(b, 't#') + kinds(b, 'e#');
    expect(ownBodies(single)).toBeGreaterThan(fresh);
    expect(ownBodies(packed)).toBe(ownBodies(single) - fresh);
    const header = (b: MemoryBackend, v: string) => b.dump().find((i) => i.pk === headerKey('c', v).pk && i.sk === headerKey('c', v).sk)!;
    expect(header(packed, '3').packIndex).not.toBe(header(packed, '2').packIndex);
    expect(header(single, '3').packIndex).toBe(header(single, '1').packIndex);
    const read = await bodiesRead(whole, '3', t0);
    expect(await bodiesRead(packed, '3', t0)).toEqual(read);
    expect(await bodiesRead(single, '3', t0)).toEqual(read);
    // Version 2 still reads from its own index.
    expect(await bodiesRead(packed, '2', t0)).toEqual(await bodiesRead(single, '2', t0));
    // A new server's first change from a stored base packs what its base's packs lack the same way.
    const cold = new MemoryBackend();
    await createSnapshotStore(cold, { now: () => t0 }).publish('c', '2', compiledSnapshotOf(v2.state));
    await createSnapshotStore(cold, { now: () => t0 }).publish('c', '3', compiledSnapshotOf(v3.state), { base: '2' });
    expect(kinds(cold, 'l#')).toBe(2);
    expect(await bodiesRead(cold, '3', t0)).toEqual(read);
  });

  it("writes a few new bodies one per item, under its base's index", async () => {
    const v1 = firstState();
    const v2 = next(v1, [], [policyRef(7)]);
    const backend = new MemoryBackend();
    const store = createSnapshotStore(backend, { now: () => t0 });
    await store.publish('c', '1', compiledSnapshotOf(v1));
    const indexes = kinds(backend, 'l#');
    await store.publish('c', '2', compiledSnapshotOf(v2.state, v2.change));
    expect(kinds(backend, 'l#')).toBe(indexes);
    expect(kinds(backend, 't#') + kinds(backend, 'e#')).toBeGreaterThan(0);
  });

  it("reads a body its base's index lists in a pack collected since from the body's own item", async () => {
    // Version 1 packs every body; versions 2.. drop all policies but one and run on as a stream
    // of changes (each from the one before, so each names version 1's index) while version 1
    // expires and its packs no live version reads are collected. Then every policy comes back:
    // bodies new to that version, written one per item, that version 1's index lists in packs
    // now gone.
    const backend = new MemoryBackend();
    const clock = { now: t0 };
    const store = createSnapshotStore(backend, { now: () => clock.now, retentionSeconds: 60, changePackMinBodies: Infinity });
    let state = firstState();
    await store.publish('c', '1', compiledSnapshotOf(state));
    const packsOfFirst = kinds(backend, 'k#');
    expect(packsOfFirst).toBeGreaterThan(1);
    let n = next(state, [], all.filter((i) => i !== 0).map(policyRef));
    let version = 1;
    // Five minutes apart (within what a publisher trusts of the version before) past the grace.
    for (let step = 0; step * 300 < MIN_GRACE_SECONDS + 600; step++) {
      clock.now += 1000;
      await store.publish('c', String(++version), compiledSnapshotOf(n.state, n.change));
      state = n.state;
      clock.now += 299_000;
      n = next(state, [pod(0, { step: String(step) })]);
    }
    const collected = await createSnapshotStore(backend, { now: () => clock.now, retentionSeconds: 60 }).collect({ graceSeconds: MIN_GRACE_SECONDS });
    expect(collected.deleted).toBeGreaterThan(0);
    expect(kinds(backend, 'k#')).toBeLessThan(packsOfFirst);
    const back = next(state, all.map(policy));
    await store.publish('c', String(++version), compiledSnapshotOf(back.state, back.change));
    const whole = new MemoryBackend();
    await createSnapshotStore(whole, { now: () => clock.now }).publish('c', String(version), compiledSnapshotOf(back.state));
    expect(await bodiesRead(backend, String(version), clock.now)).toEqual(await bodiesRead(whole, String(version), clock.now));
    // Nothing it reads is missing (what a rollback to it checks), and a collection keeps its own items.
    const ctx = storeContext(backend, { now: () => clock.now });
    const header = (await backend.getItem(headerKey('c', String(version))))!;
    expect(await missingItems(ctx, 'c', String(version), header)).toEqual([]);
    clock.now += (MIN_GRACE_SECONDS + 60) * 1000;
    await createSnapshotStore(backend, { now: () => clock.now, retentionSeconds: 60 }).collect({ graceSeconds: MIN_GRACE_SECONDS });
    expect(await bodiesRead(backend, String(version), clock.now)).toEqual(await bodiesRead(whole, String(version), clock.now));
  });
});
