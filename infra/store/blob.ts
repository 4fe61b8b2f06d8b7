// Values larger than one item (DynamoDB's limit is 400 KB) as a head item plus tail chunks under
// one partition key: sk "0" holds the first chunk and the count, sk "1".."n-1" the rest. Tails are
// written before heads, so a head that is readable always has its chunks stored.
import type { AttrValue, Item, ItemBackend } from './backend.js';
import { joinChunks, splitChunks } from './codec.js';
import type { ItemKey } from './keys.js';

/** Chunk payload size: leaves room under 400 KB for the keys and the other attributes. */
export const DEFAULT_CHUNK_BYTES = 350 * 1024;
export const HEAD_SK = '0';

export interface BlobWrite {
  readonly pk: string;
  readonly bytes: Uint8Array;
  /** Extra attributes on the head item. */
  readonly head?: Readonly<Record<string, AttrValue>>;
}

/** Writes each blob as head and tail chunks; returns the key of every item written. */
export async function writeBlobs(backend: ItemBackend, blobs: readonly BlobWrite[], chunkBytes: number): Promise<ItemKey[]> {
  const tails: Item[] = [];
  const heads: Item[] = [];
  for (const b of blobs) {
    const chunks = splitChunks(b.bytes, chunkBytes);
    chunks.slice(1).forEach((body, i) => tails.push({ pk: b.pk, sk: String(i + 1), body }));
    heads.push({ ...b.head, pk: b.pk, sk: HEAD_SK, chunks: chunks.length, body: chunks[0]! });
  }
  if (tails.length > 0) await backend.putItems(tails);
  if (heads.length > 0) await backend.putItems(heads);
  return [...heads, ...tails].map(({ pk, sk }) => ({ pk, sk }));
}

export interface BlobRead {
  readonly head: Item;
  readonly bytes: Uint8Array;
}

export interface BlobReads {
  readonly complete: ReadonlyMap<string, BlobRead>;
  /** Heads whose chunks are not all there (only possible for items already expiring). */
  readonly incomplete: readonly string[];
}

export async function readBlobs(backend: ItemBackend, pks: readonly string[]): Promise<BlobReads> {
  const heads = await backend.getItems(
    pks.map((pk) => ({ pk, sk: HEAD_SK })),
    { consistent: true },
  );
  const tailKeys = heads.flatMap((h) => Array.from({ length: chunkCount(h) - 1 }, (_, i) => ({ pk: h.pk, sk: String(i + 1) })));
  const tails = tailKeys.length > 0 ? await backend.getItems(tailKeys, { consistent: true }) : [];
  const tailByKey = new Map(tails.map((t) => [`${t.pk}\n${t.sk}`, t]));
  const complete = new Map<string, BlobRead>();
  const incomplete: string[] = [];
  for (const head of heads) {
    const parts = [head, ...Array.from({ length: chunkCount(head) - 1 }, (_, i) => tailByKey.get(`${head.pk}\n${i + 1}`))];
    if (parts.every((p): p is Item => p !== undefined && p.body instanceof Uint8Array)) {
      complete.set(head.pk, { head, bytes: joinChunks(parts.map((p) => p.body as Uint8Array)) });
    } else {
      incomplete.push(head.pk);
    }
  }
  return { complete, incomplete };
}

export const chunkCount = (head: Item): number => (typeof head.chunks === 'number' && head.chunks >= 1 ? head.chunks : 1);
