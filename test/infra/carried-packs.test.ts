// A whole publish of a version compiled from a stored base (a new server's first change on it)
// relies on the base's packs for the tables and set bodies they hold (infra/store/content.ts
// carriedContent): it writes only the rest, one per item, stamps what it relies on where the
// stamp is old, and packs everything again when what it would rely on is not stored.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compiledState } from '../../core/sets/next-version.js';
import { HEAD_SK } from '../../infra/store/blob.js';
import { REFRESH_AGE_SECONDS, WRITTEN_AT } from '../../infra/store/content-age.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { bodiesRead, compiledSnapshotOf } from './support.js';

type Raw = { items: { kind: string; metadata: { name: string; labels?: Record<string, string> } }[] };

/** The README's example cluster, and the same with the pod `web` relabelled. */
function versions() {
  const raw = JSON.parse(readFileSync(new URL('../../examples/cluster.json', import.meta.url), 'utf8')) as Raw;
  const changed = structuredClone(raw);
  const web = changed.items.find((o) => o.kind === 'Pod' && o.metadata.name === 'web')!;
  web.metadata.labels = { ...web.metadata.labels, app: 'web-relabelled' };
  return [raw, changed].map((r) => {
    const parsed = parseSnapshot(r);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    return compiledSnapshotOf(compiledState(parsed.snapshot).state);
  });
}

const packKeys = (backend: MemoryBackend) => [...new Set(backend.dump().filter((i) => /^[kl]#/.test(i.pk)).map((i) => i.pk))].sort();
const ownBodyKeys = (backend: MemoryBackend) => [...new Set(backend.dump().filter((i) => /^[te]#/.test(i.pk)).map((i) => i.pk))].sort();

describe('a whole publish from a stored base', () => {
  const t0 = 1_700_000_000_000;

  it("writes no pack and no index: the base's hold what did not change, the rest is written one per item", async () => {
    const [v1, v2] = versions();
    const [backend, whole] = [new MemoryBackend(), new MemoryBackend()];
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '1', v1!);
    const packs = packKeys(backend);
    expect(ownBodyKeys(backend)).toEqual([]);
    // A new process, told the base.
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '2', v2!, { base: '1' });
    expect(packKeys(backend)).toEqual(packs);
    expect(ownBodyKeys(backend).length).toBeGreaterThan(0);
    // What nodes read equals a store that packed version 2 whole.
    await createSnapshotStore(whole, { now: () => t0 }).publish('c', '2', v2!);
    expect(await bodiesRead(backend, '2', t0)).toEqual(await bodiesRead(whole, '2', t0));
  });

  it('stamps the index and the packs it relies on again when their stamps are old', async () => {
    const [v1, v2] = versions();
    const backend = new MemoryBackend();
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '1', v1!);
    const later = t0 + (REFRESH_AGE_SECONDS + 60) * 1000;
    await createSnapshotStore(backend, { now: () => later }).publish('c', '2', v2!, { base: '1' });
    const stamps = backend.dump().filter((i) => /^[kl]#/.test(i.pk) && i.sk === HEAD_SK).map((i) => i[WRITTEN_AT]);
    // Every pack the second version relies on was stamped again; the example's version 2 relies on all of them.
    expect(stamps.length).toBeGreaterThan(1);
    expect(stamps.every((s) => s === Math.floor(later / 1000))).toBe(true);
  });

  it('packs everything again when a pack of the base is gone, and reads the same', async () => {
    const [v1, v2] = versions();
    const [backend, whole] = [new MemoryBackend(), new MemoryBackend()];
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '1', v1!);
    const lost = packKeys(backend).find((pk) => pk.startsWith('k#'))!;
    for (const i of backend.dump().filter((i) => i.pk === lost)) await backend.deleteIf({ pk: i.pk, sk: i.sk });
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '2', v2!, { base: '1' });
    await createSnapshotStore(whole, { now: () => t0 }).publish('c', '2', v2!);
    expect(await bodiesRead(backend, '2', t0)).toEqual(await bodiesRead(whole, '2', t0));
    expect(ownBodyKeys(backend)).toEqual([]);
  });

  it('packs everything when the base is not stored', async () => {
    const [, v2] = versions();
    const backend = new MemoryBackend();
    await createSnapshotStore(backend, { now: () => t0 }).publish('c', '2', v2!, { base: '1' });
    expect(packKeys(backend).some((pk) => pk.startsWith('l#'))).toBe(true);
    expect(ownBodyKeys(backend)).toEqual([]);
  });
});
