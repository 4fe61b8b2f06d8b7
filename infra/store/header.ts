// The version header item: its presence makes a version visible, its TTL attribute ends it.
// Small on purpose (no node list): listings and every agent poll read it. `seq` (set after the
// header is written) is the pointer move that last made the version latest (pointer.ts);
// headers written before publish order was kept carry `vkey` instead and never a `seq`.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { decodeHeaderBody, encodeHeaderBody, type HeaderBody } from './codec.js';
import { headerKey } from './keys.js';
import { StoreCorruptionError, type VersionSummary } from './types.js';

/**
 * `objectsHash`: content hash of the object group index, checked when it is read back;
 * `manifestShards`: how many manifest shards the version has (versions without it predate them);
 * `packIndex`: the index of the packs holding its tables and set bodies (versions without it have none).
 */
export function headerItem(cluster: string, version: string, snapshotHash: string, body: HeaderBody, layout: { readonly objectsHash: string; readonly manifestShards: number; readonly packIndex?: string }): Item {
  return { ...headerKey(cluster, version), version, snapshotHash, objectsHash: layout.objectsHash, manifestShards: layout.manifestShards, ...(layout.packIndex !== undefined ? { packIndex: layout.packIndex } : {}), body: encodeHeaderBody(body) };
}

/** The index of the packs holding the version's tables and set bodies (packs.ts); absent: each is its own item. */
export const packIndexOf = (header: Item): string | undefined => (typeof header.packIndex === 'string' ? header.packIndex : undefined);

/** DynamoDB deletes expired items only eventually (typically within days): reads must not see them. */
export function isExpired(item: Item, nowSeconds: number): boolean {
  const at = item[TTL_ATTRIBUTE];
  return typeof at === 'number' && at <= nowSeconds;
}

/** Written by a netpolc that kept no publish order (it compared versions instead). */
export const isLegacyHeader = (item: Item): boolean => item.vkey !== undefined && item.seq === undefined;

export function summaryFromItem(cluster: string, item: Item): VersionSummary {
  const { version, snapshotHash, body } = item;
  if (typeof version !== 'string' || typeof snapshotHash !== 'string' || !(body instanceof Uint8Array)) throw new StoreCorruptionError(`malformed header item ${item.pk} ${item.sk}`);
  const b = decodeHeaderBody(body);
  const at = item[TTL_ATTRIBUTE];
  return {
    cluster,
    version,
    snapshotHash,
    nodeCount: b.nodeCount,
    tableCount: b.tableCount,
    ...(b.setCount !== undefined ? { setCount: b.setCount } : {}),
    objects: b.objects,
    ...(b.ignored !== undefined ? { ignored: b.ignored } : {}),
    compile: b.compile,
    publishedAt: b.publishedAt,
    expiresAt: typeof at === 'number' ? new Date(at * 1000).toISOString() : null,
  };
}
