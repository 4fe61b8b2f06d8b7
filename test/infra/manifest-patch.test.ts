// Node manifests stored as patches (infra/store/manifest-patch.ts): a patch applied to the
// manifest before makes the manifest after, byte for byte; a long run of small changes keeps
// chains at most MAX_CHAIN long; a new process reads every version's node tables as they were
// compiled; a store whose links disagree with what a head lists, or lack one, is read or refused
// as it should be.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { portableSha256Hex } from '../../core/compile/table-id.js';
import { compiledState, nextVersion, type CompiledState } from '../../core/sets/next-version.js';
import type { SetNode, SetPod } from '../../core/sets/ir.js';
import type { Item } from '../../infra/store/backend.js';
import { HEAD_SK, readBlobs } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { manifestOf, manifestText, setContentId, type Manifest } from '../../infra/store/codec.js';
import { manifestDigest } from '../../infra/store/manifest-hash.js';
import { CONDITIONAL_PATCHES, writePatches } from '../../infra/store/manifest-write.js';
import { storeContext } from '../../infra/store/context.js';
import { manifestBodyPk } from '../../infra/store/keys.js';
import { applyPatch, decodeStoredManifest, manifestPatch, MAX_CHAIN, patchText } from '../../infra/store/manifest-patch.js';
import { readManifest } from '../../infra/store/manifest-read.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';
import { StoreCorruptionError } from '../../infra/store/types.js';
import { compiledSnapshotOf } from './support.js';
import { parseSnapshot } from '../../schemas/snapshot.js';
import { assertProperty } from '../support/property.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);

const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}`);
const podArb: fc.Arbitrary<SetPod> = fc.record({ ips: fc.array(fc.constantFrom('10.0.0.1', '10.0.0.2', 'fd00::1'), { maxLength: 2 }), ingress: fc.constantFrom(...ids('r', 4)), egress: fc.constantFrom(...ids('r', 4)) });
/** A node and its sets' content ids, drawn from small pools so two draws overlap. */
const nodeFormArb = fc.record({
  addresses: fc.subarray(['172.18.0.2', 'fc00::2']),
  pods: fc.dictionary(fc.constantFrom(...ids('ns/p', 8)), podArb, { maxKeys: 6 }),
  sets: fc.subarray(ids('s', 12)),
  tables: fc.subarray(ids('r', 4)),
  bodies: fc.array(fc.constantFrom('e1', 'e2', 'e3'), { minLength: 12, maxLength: 12 }),
});
type NodeFormValue = typeof nodeFormArb extends fc.Arbitrary<infer T> ? T : never;
const formOf = (v: NodeFormValue) => ({
  node: { addresses: v.addresses, pods: v.pods, sets: v.sets, tables: v.tables } satisfies SetNode,
  contentIds: new Map(ids('s', 12).map((id, i) => [id, v.bodies[i]!])),
});

describe('a manifest patch', () => {
  it(`applied to the manifest before makes the manifest after, byte for byte (${RUNS} random pairs)`, () => {
    assertProperty(
      fc.property(nodeFormArb, nodeFormArb, fc.boolean(), (a, b, sameRecord) => {
        const before = formOf(a);
        // The record carried along (the same arrays): only the sets said to have changed are compared.
        const after = sameRecord ? { node: before.node, contentIds: formOf(b).contentIds } : formOf(b);
        const changed = ids('s', 12).filter((id) => before.contentIds.get(id) !== after.contentIds.get(id));
        const patch = manifestPatch([`h${'0'.repeat(32)}`], before, after, changed);
        const stored = decodeStoredManifest(new TextEncoder().encode(patchText(patch)));
        if (!('patch' in stored)) throw new Error('a patch decoded as a whole manifest');
        const made = applyPatch(manifestOf(before.node, before.contentIds), stored.patch);
        expect(manifestText(made)).toBe(manifestText(manifestOf(after.node, after.contentIds)));
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });
});

const pod = (name: string, app: string, ip: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'a', labels: { app } }, spec: { nodeName: 'n1', containers: [{ name: 'c' }] }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] } });
const baseItems = [
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
  { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '172.18.0.2' }] } },
  // Enough pods that a one-pod patch is small next to the whole manifest (patches are kept under half of it).
  ...Array.from({ length: 60 }, (_, i) => pod(`p${i}`, i % 2 ? 'web' : 'db', `10.0.0.${10 + i}`)),
  { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'db', namespace: 'a' }, spec: { podSelector: { matchLabels: { app: 'db' } }, ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }] }] } },
];
const parsed = (items: readonly unknown[]) => {
  const p = parseSnapshot({ items });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.snapshot;
};
const snapshotOf = compiledSnapshotOf;

/** Publishes version 1 whole, then `changes` new addresses of one pod (a member of a set), each from the version before. */
async function publishReaddresses(backend: MemoryBackend, changes: number): Promise<CompiledState[]> {
  const store = createSnapshotStore(backend);
  let state = compiledState(parsed(baseItems)).state;
  const states = [state];
  await store.publish('c', '1', snapshotOf(state));
  for (let v = 2; v <= changes + 1; v++) {
    const next = nextVersion(state, { apply: parsed([pod('p1', 'web', `10.0.1.${v}`)]), delete: [] });
    if (!next.ok) throw new Error('change refused');
    await store.publish('c', String(v), snapshotOf(next.state, next.change));
    states.push((state = next.state));
  }
  return states;
}

const manifestItems = async (backend: MemoryBackend) => {
  const heads = backend.dump().filter((i) => i.pk.startsWith('g#') && i.sk === HEAD_SK).map((i) => i.pk);
  return [...(await readBlobs({ backend, compression: streamCompression }, heads)).complete.values()].map((b) => decodeStoredManifest(b.bytes));
};

describe('manifests stored as patches', () => {
  it(`keep chains at most ${MAX_CHAIN} long, and a new process reads every version as compiled`, async () => {
    const backend = new MemoryBackend();
    const states = await publishReaddresses(backend, 3 * MAX_CHAIN);
    const stored = await manifestItems(backend);
    const patches = stored.filter((m) => 'patch' in m);
    expect(patches.length).toBeGreaterThan(MAX_CHAIN);
    // A whole manifest again once a chain is full.
    expect(stored.length - patches.length).toBeGreaterThan(1);
    for (const m of patches) if ('patch' in m) expect(m.patch.base.length).toBeLessThanOrEqual(MAX_CHAIN);
    const reader = createSnapshotStore(backend);
    for (const [i, state] of states.entries()) {
      const tables = await reader.getNodeTables('c', String(i + 1), 'n1');
      const expected = manifestOf(state.ir.nodes.n1!, new Map([...state.ir.sets.entries()].map(([id, set]) => [id, setContentId(JSON.stringify(set))])));
      expect({ addresses: tables!.addresses, pods: tables!.pods, sets: tables!.sets, tables: tables!.tableIds }).toEqual(expected);
    }
  });
});


describe('a manifest stored before', () => {
  it('is not replaced by a patch from another process (which would link it to a manifest stored after it)', async () => {
    const backend = new MemoryBackend();
    // Another process stores the state the node comes back to, whole.
    const first = compiledState(parsed(baseItems)).state;
    await createSnapshotStore(backend).publish('other', '1', snapshotOf(first));
    const whole = new Set(backend.dump().filter((i) => i.pk.startsWith('g#')).map((i) => i.pk));
    // This process starts elsewhere and comes to it from changes: as a patch on where it was.
    const store = createSnapshotStore(backend);
    const elsewhere = compiledState(parsed(baseItems.map((o) => (o.metadata.name === 'p1' ? pod('p1', 'web', '10.0.1.2') : o)))).state;
    await store.publish('c', '2', snapshotOf(elsewhere));
    const next = nextVersion(elsewhere, { apply: parsed([pod('p1', 'web', '10.0.0.11')]), delete: [] });
    if (!next.ok) throw new Error('change refused');
    await store.publish('c', '3', snapshotOf(next.state, next.change));
    expect((await createSnapshotStore(backend).getNodeTables('c', '3', 'n1'))!.hash).toBe((await createSnapshotStore(backend).getNodeTables('other', '1', 'n1'))!.hash);
    const heads = await readBlobs({ backend, compression: streamCompression }, [...whole]);
    for (const b of heads.complete.values()) expect('whole' in decodeStoredManifest(b.bytes)).toBe(true);
  });
});

describe('reading a manifest from its links', () => {
  const whole = (pods: Record<string, SetPod>): Manifest => ({ addresses: ['172.18.0.2'], pods, sets: { s1: 'e1' }, tables: ['r1'] });
  const hashOf = (m: Manifest) => manifestDigest(m, portableSha256Hex).hash;
  const item = (hash: string, text: string): Item => ({ pk: manifestBodyPk(hash), sk: HEAD_SK, chunks: 1, body: new TextEncoder().encode(text) });
  const m0 = whole({ 'a/p0': { ips: ['10.0.0.1'], ingress: 'r1', egress: 'r1' } });
  const m1 = whole({ ...m0.pods, 'a/p1': { ips: ['10.0.0.2'], ingress: 'r1', egress: 'r1' } });
  const m2 = whole({ ...m1.pods, 'a/p2': { ips: ['10.0.0.3'], ingress: 'r1', egress: 'r1' } });
  const patchOf = (base: string[], from: Manifest, to: Manifest) => patchText({ base, addresses: to.addresses, pods: Object.fromEntries(Object.entries(to.pods).filter(([k]) => !(k in from.pods))), sets: {}, tables: { add: [], remove: [] } });

  it.each([['conditional writes', CONDITIONAL_PATCHES], ['a batch read, then a batch write', 0]] as const)('written by %s, leave a manifest stored whole as it is and store the others', async (_, upTo) => {
    const backend = new MemoryBackend();
    await backend.putItems([item(hashOf(m1), manifestText(m1))]);
    const enc = (text: string) => new TextEncoder().encode(text);
    await writePatches(storeContext(backend), new Map([[hashOf(m1), enc(patchOf([hashOf(m0)], m0, m1))], [hashOf(m2), enc(patchOf([hashOf(m1)], m1, m2))]]), upTo);
    const heads = await readBlobs({ backend, compression: streamCompression }, [manifestBodyPk(hashOf(m1)), manifestBodyPk(hashOf(m2))]);
    expect('whole' in decodeStoredManifest(heads.complete.get(manifestBodyPk(hashOf(m1)))!.bytes)).toBe(true);
    expect('patch' in decodeStoredManifest(heads.complete.get(manifestBodyPk(hashOf(m2)))!.bytes)).toBe(true);
  });

  it('follows a link that leads elsewhere than the head lists (another publish stored it first)', async () => {
    const backend = new MemoryBackend();
    const other = whole({ 'a/p0': { ips: ['10.0.0.1'], ingress: 'r1', egress: 'r1' }, 'a/x': { ips: [], ingress: 'r1', egress: 'r1' } });
    // m1 was stored by another process as a patch on `other`; m2's head believes m1 leads to m0.
    const m1OnOther = patchText({ base: [hashOf(other)], addresses: m1.addresses, pods: { 'a/x': null, 'a/p1': m1.pods['a/p1']! }, sets: {}, tables: { add: [], remove: [] } });
    await backend.putItems([item(hashOf(other), manifestText(other)), item(hashOf(m0), manifestText(m0)), item(hashOf(m1), m1OnOther), item(hashOf(m2), patchOf([hashOf(m1), hashOf(m0)], m1, m2))]);
    expect(await readManifest(storeContext(backend), hashOf(m2))).toEqual(m2);
    // The same, where the manifest that link leads to was read whole before (a server answering
    // polls keeps it in its content cache): the chain ends there instead of reading it again.
    const cached = storeContext(backend);
    expect(await readManifest(cached, hashOf(other))).toEqual(other);
    expect(await readManifest(cached, hashOf(m2))).toEqual(m2);
  });

  it('refuses a chain with a link missing, and patches that make another manifest than their key names', async () => {
    const missing = new MemoryBackend();
    await missing.putItems([item(hashOf(m2), patchOf([hashOf(m1), hashOf(m0)], m1, m2)), item(hashOf(m0), manifestText(m0))]);
    await expect(readManifest(storeContext(missing), hashOf(m2))).rejects.toThrow(StoreCorruptionError);
    const wrong = new MemoryBackend();
    // Stored under m2's hash, but makes m1 from m0.
    await wrong.putItems([item(hashOf(m2), patchOf([hashOf(m0)], m0, m1)), item(hashOf(m0), manifestText(m0))]);
    await expect(readManifest(storeContext(wrong), hashOf(m2))).rejects.toThrow(/not what its hash says/);
  });
});
