// What the collection tests compare against: the content live versions read, every version
// reading back whole from a new process, and item counts.
import { expect } from 'vitest';
import { TTL_ATTRIBUTE, type Item, type ItemBackend } from '../../infra/store/backend.js';
import { HEAD_SK } from '../../infra/store/blob.js';
import { streamCompression } from '../../infra/store/compression.js';
import { storeContext } from '../../infra/store/context.js';
import { HEADER_SK_PREFIX } from '../../infra/store/keys.js';
import { LINK_ATTRIBUTES, linksOfHead } from '../../infra/store/manifest-links.js';
import { versionNeeds } from '../../infra/store/needed.js';
import { createSnapshotStore } from '../../infra/store/snapshot-store.js';

export const CONTENT = ['t#', 'e#', 'k#', 'l#', 'g#', 'o#'];

/** Every item whose pk starts with one of `prefixes` (a scan in small pages, as a large table is read). */
export async function scanned(backend: ItemBackend, prefixes: readonly string[], sk?: string): Promise<Item[]> {
  const out: Item[] = [];
  let startAfter = null;
  do {
    const page = await backend.scanPage({ pkPrefixes: prefixes, limit: 50, startAfter, ...(sk !== undefined ? { sk } : {}) });
    out.push(...page.items);
    startAfter = page.last;
  } while (startAfter !== null);
  return out;
}

/** Visible versions, as (cluster, version). */
export async function visibleVersions(backend: ItemBackend, nowSeconds: number, cluster?: string): Promise<{ cluster: string; version: string; header: Item }[]> {
  return (await scanned(backend, [cluster === undefined ? 'c#' : `c#${cluster}`]))
    .filter((h) => cluster === undefined || h.pk === `c#${cluster}`)
    .filter((h) => h.sk.startsWith(HEADER_SK_PREFIX) && !(typeof h[TTL_ATTRIBUTE] === 'number' && h[TTL_ATTRIBUTE] <= nowSeconds))
    .map((header) => ({ cluster: header.pk.slice(2), version: String(header.version), header }));
}

/** Stored content pks the visible versions read: what needed.ts names, and the links of manifests stored as patches. */
export async function liveContent(backend: ItemBackend, nowMs: number): Promise<Set<string>> {
  const ctx = storeContext(backend, { now: () => nowMs, contentCacheBytes: 0 });
  const out = new Set<string>();
  for (const v of await visibleVersions(backend, Math.floor(nowMs / 1000))) {
    const needs = await versionNeeds(ctx, v.cluster, v.version, v.header);
    for (const pk of needs.shared) out.add(pk);
    for (const own of needs.packed.values()) for (const pk of own) out.add(pk);
  }
  let frontier = [...out].filter((pk) => pk.startsWith('g#'));
  while (frontier.length > 0) {
    const heads = await backend.getItems(frontier.map((pk) => ({ pk, sk: HEAD_SK })), { attributes: [...LINK_ATTRIBUTES] });
    frontier = [];
    for (const h of heads) for (const hash of await linksOfHead(streamCompression, h)) if (!out.has(`g#${hash}`)) [out.add(`g#${hash}`), frontier.push(`g#${hash}`)];
  }
  // needed.ts names a packed body's own item too (read when its pack is gone): those stored.
  const stored = await contentHeads(backend);
  return new Set([...out].filter((pk) => stored.has(pk)));
}

export const contentHeads = async (backend: ItemBackend): Promise<Set<string>> => new Set((await scanned(backend, CONTENT, HEAD_SK)).map((i) => i.pk));

/**
 * Every visible version reads back whole in a new process without a cache, and in one process
 * with a content cache that reads every version in turn (as a server answering node polls does:
 * a manifest's patch chain then meets links already read whole): every node's manifest, tables,
 * set bodies, and the objects.
 */
export async function expectAllReadBack(backend: ItemBackend, nowMs: number, cluster?: string): Promise<number> {
  const versions = await visibleVersions(backend, Math.floor(nowMs / 1000), cluster);
  const cached = createSnapshotStore(backend, { now: () => nowMs });
  for (const { cluster, version } of versions) {
    for (const store of [createSnapshotStore(backend, { now: () => nowMs, contentCacheBytes: 0 }), cached]) await expectReadBack(store, cluster, version);
  }
  return versions.length;
}

async function expectReadBack(store: ReturnType<typeof createSnapshotStore>, cluster: string, version: string): Promise<void> {
  const header = await store.getHeader(cluster, version);
  expect(header, `${cluster} ${version}`).not.toBeNull();
  for (const node of header!.nodes) {
    const m = await store.getNodeTables(cluster, version, node);
    expect(m, `${cluster} ${version} ${node}`).not.toBeNull();
    const tables = await store.getTables(m!.tableIds, m!.packIndex);
    expect(m!.tableIds.filter((id) => !tables.has(id)), `${cluster} ${version} ${node} tables`).toEqual([]);
    const bodies = Object.values(m!.sets);
    const sets = await store.getSets(bodies, m!.packIndex);
    expect(bodies.filter((id) => !sets.has(id)), `${cluster} ${version} ${node} sets`).toEqual([]);
  }
  await store.getSnapshotObjects(cluster, version);
}
