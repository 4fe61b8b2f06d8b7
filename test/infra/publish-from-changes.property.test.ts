// A version compiled from changes is stored from what the compile made anew (its new tables and
// set bodies, the manifests of nodes that changed or name a changed set), and a process retires
// the version it replaces from the keys it wrote for it; the store must end up with exactly the
// items a new process publishing the same set form whole writes, after every step of random
// change sequences — a manifest stored as a patch on the one before (manifest-patch.ts) as the
// whole manifest it makes — but for where tables and set bodies are kept: a whole publish packs
// them (packs.ts), a version from changes keeps its base's packs and writes its new ones one per
// item, or packs them under an index of its own when they are many (change-packs.ts: half the
// sequences pack every change). There, every node of the version must read the same tables and
// bodies from both stores.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compiledState } from '../../core/sets/next-version.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import type { Item } from '../../infra/store/backend.js';
import { HEAD_SK, readBlobs } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { manifestText } from '../../infra/store/codec.js';
import { manifestDigest } from '../../infra/store/manifest-hash.js';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { hashOfManifestPk } from '../../infra/store/keys.js';
import { decodeStoredManifest, resolveManifest, type StoredManifest } from '../../infra/store/manifest-patch.js';
import { compiledSnapshotOf } from './support.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { assertProperty, freshSeed, replayCommand } from '../support/property.js';
import { nextVersionFrom, versionStepArb } from '../support/random-changes.js';
import { snapshotArb } from '../support/random-snapshot.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? (process.env.PROPERTY_DEPTH === 'deep' ? 300 : 60));
let patched = 0;

/** Where tables and set bodies are kept: their own items, packs and pack indexes (the header's pointer to its index is left out below). */
const isBodyStorage = (i: Item) => /^[tekl]#/.test(i.pk);

/** The backend's items, each manifest as the whole manifest it makes (its text), whatever its encoding; table and set-body storage left out (bodiesRead compares what it holds). */
async function resolvedDump(backend: MemoryBackend): Promise<Item[]> {
  const items = backend
    .dump()
    .filter((i) => !isBodyStorage(i))
    .map((i) => {
      if (!i.pk.startsWith('c#') || i.packIndex === undefined) return i;
      const { packIndex: _index, ...rest } = i;
      return rest;
    });
  const stored = new Map<string, StoredManifest>();
  const heads = items.filter((i) => i.pk.startsWith('g#') && i.sk === HEAD_SK).map((i) => i.pk);
  for (const [pk, blob] of (await readBlobs({ backend, compression: streamCompression }, heads)).complete) stored.set(hashOfManifestPk(pk), decodeStoredManifest(blob.bytes));
  return items.map((i) => {
    if (!i.pk.startsWith('g#')) return i;
    const hash = hashOfManifestPk(i.pk);
    if ('patch' in stored.get(hash)!) patched++;
    const resolved = resolveManifest(hash, stored);
    if (!('manifest' in resolved)) throw new Error(`manifest ${hash}: link ${resolved.need} is not stored`);
    const text = manifestText(resolved.manifest);
    // What a reader checks: the manifest made from the patches is the one its key names.
    const made = manifestDigest(resolved.manifest, portableSha256Hex).hash;
    if (made !== hash) throw new Error(`manifest ${hash}: its patches make ${made}`);
    return { pk: i.pk, sk: i.sk, manifest: text };
  });
}

const snapshotOf = compiledSnapshotOf;

/** A version's header item. */
function headerOf(backend: MemoryBackend, version: string): Item {
  const header = backend.dump().find((i) => i.pk === 'c#c' && i.sk.startsWith('v#') && i.version === version);
  if (!header) throw new Error(`no header for version ${version}`);
  return header;
}

/** Partition keys of packs and pack indexes. */
const packItems = (backend: MemoryBackend): string[] => [...new Set(backend.dump().filter((i) => /^[kl]#/.test(i.pk)).map((i) => i.pk))].sort();

/** Every node's tables and set bodies in a version, as a new process reads them (set id → body, table id → table). */
async function bodiesRead(backend: MemoryBackend, version: string): Promise<Record<string, unknown>> {
  const store = createSnapshotStore(backend, { now: () => 1_700_000_000_000, contentCacheBytes: 0 });
  const out: Record<string, unknown> = {};
  for (const node of (await store.getHeader('c', version))!.nodes) {
    const m = (await store.getNodeTables('c', version, node))!;
    const bodies = await store.getSets(Object.values(m.sets), m.packIndex);
    const tables = await store.getTables(m.tableIds, m.packIndex);
    out[node] = { sets: Object.fromEntries(Object.entries(m.sets).map(([id, content]) => [id, bodies.get(content) ?? 'missing'])), tables: Object.fromEntries(m.tableIds.map((id) => [id, tables.get(id) ?? 'missing'])) };
  }
  return out;
}

describe('publishing a version from changes', () => {
  it(`writes the same items as publishing its set form whole (${RUNS} random sequences)`, async () => {
    let fromChanges = 0;
    let packedChanges = 0;
    let carried = 0;
    const seed = fc.readConfigureGlobal().seed ?? freshSeed();
    await assertProperty(
      fc.asyncProperty(snapshotArb, fc.array(versionStepArb, { minLength: 1, maxLength: 4 }), fc.boolean(), async (base, steps, packChanges) => {
        const first = parseSnapshot(base);
        if (!first.ok) return;
        const now = () => 1_700_000_000_000;
        const [hinted, whole, coldBackend] = [new MemoryBackend(), new MemoryBackend(), new MemoryBackend()];
        // `b` is a new store (a new process) for every publish: it reads the pointer and what it
        // retires from the table, where `a` starts from what its own publishes wrote. `cold` is
        // a new process too, told the base its version was compiled from (a new server's first
        // change): it relies on the base's stored packs instead of packing everything again.
        const a = createSnapshotStore(hinted, { now, ...(packChanges ? { changePackMinBodies: 1 } : {}) });
        const b = { publish: (...args: Parameters<typeof a.publish>) => createSnapshotStore(whole, { now }).publish(...args) };
        const cold = { publish: (...args: Parameters<typeof a.publish>) => createSnapshotStore(coldBackend, { now }).publish(...args) };
        let state = compiledState(first.snapshot).state;
        await a.publish('c', '1', snapshotOf(state));
        await b.publish('c', '1', snapshotOf(state));
        await cold.publish('c', '1', snapshotOf(state));
        const firstPacks = packItems(coldBackend);
        let version = 1;
        for (const [i, s] of steps.entries()) {
          const next = nextVersionFrom(state, s, i);
          if (!next) continue;
          if (next.change) fromChanges++;
          const indexes = packItems(hinted).filter((pk) => pk.startsWith('l#')).length;
          version++;
          await a.publish('c', String(version), snapshotOf(next.state, next.change));
          await b.publish('c', String(version), snapshotOf(next.state));
          await cold.publish('c', String(version), snapshotOf(next.state), { base: String(version - 1) });
          const [wholeDump, wholeBodies] = [await resolvedDump(whole), await bodiesRead(whole, String(version))];
          expect(await resolvedDump(hinted)).toEqual(wholeDump);
          expect(await bodiesRead(hinted, String(version))).toEqual(wholeBodies);
          if (packChanges && next.change && next.change.tables.length + next.change.sets.length > 0 && packItems(hinted).filter((pk) => pk.startsWith('l#')).length > indexes) packedChanges++;
          expect(await resolvedDump(coldBackend)).toEqual(wholeDump);
          expect(await bodiesRead(coldBackend, String(version))).toEqual(wholeBodies);
          // The cold publish named its base's index and packed nothing: the packs and index are
          // those version 1 wrote.
          expect(headerOf(coldBackend, String(version)).packIndex).toBe(headerOf(coldBackend, '1').packIndex);
          expect(packItems(coldBackend)).toEqual(firstPacks);
          carried++;
          state = next.state;
        }
      }),
      { numRuns: RUNS, file: import.meta.url, seed },
    );
    // A count that falls short is a property of these sequences: the same ones again.
    const replay = `counts of seed ${seed}: ${replayCommand(seed, import.meta.url)}`;
    expect(fromChanges, replay).toBeGreaterThan(RUNS / 2);
    expect(carried, replay).toBeGreaterThan(RUNS / 2);
    // Changes packed under an index of their own were read back, not only ones written one per item.
    expect(packedChanges, replay).toBeGreaterThan(RUNS / 8);
    // Patches were written and read back, not only whole manifests.
    expect(patched, replay).toBeGreaterThan(RUNS / 4);
  }, 30_000 + RUNS * 500);
});
