// Values larger than one item (DynamoDB's limit is 400 KB) as a head item plus tail chunks under
// one partition key: sk "0" holds the first chunk and the count, sk "1".."n-1" the rest. Tails are
// written before heads, so a head that is readable always has its chunks stored. Bodies of 1 KB
// and more are deflated first (compression.ts); the head says so, with the raw size. Heads
// without it (written before, or small) are read as they are.
import type { AttrValue, Item, ItemBackend } from './backend.js';
import { joinChunks, splitChunks, utf8 } from './codec.js';
import { DEFLATE_RAW, inflated, MIN_COMPRESSED_BYTES, type BlobCompression } from './compression.js';
import { StoreCorruptionError, type StoredBody } from './types.js';

/** What blob reads and writes need of the store's context. */
export interface BlobIo {
  readonly backend: ItemBackend;
  readonly compression: BlobCompression;
}

/** Chunk payload size: leaves room under 400 KB for the keys and the other attributes. */
export const DEFAULT_CHUNK_BYTES = 350 * 1024;
export const HEAD_SK = '0';

export interface BlobWrite {
  readonly pk: string;
  /**
   * The body (bytes, or text stored as UTF-8), or how to make it when its batch is written
   * (writeBlobs), or the body already in its stored form.
   */
  readonly bytes: Uint8Array | string | (() => Uint8Array | string) | StoredBody;
  /** Extra attributes on the head item. */
  readonly head?: Readonly<Record<string, AttrValue>>;
  /** Extra attributes on every item of the blob, head and tails. */
  readonly every?: Readonly<Record<string, AttrValue>>;
}

/**
 * Raw bytes encoded, deflated and written per batch. A whole publish of L writes 215 MB of
 * bodies: encoded all before any was written, their buffers put V8 under external memory
 * pressure with a heap near its 1.5 GB budget (new space shrunk, a scavenge every ~1 MB
 * allocated), and encoding the 2,828 object groups and 1,000 manifests took 13.9 s, where the
 * groups alone take 1.1 s outside a publish. Batches also keep 250 MB off the peak RSS.
 */
export const WRITE_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Writes each blob as head and tail chunks, a batch at a time, each encoded only when its batch
 * is: the tails of a batch before its heads, so a head that is readable always has its chunks
 * stored. While a batch is written the next one is encoded; at most two are held. Returns the
 * items written of the blobs `keep` names (default: every item).
 */
export async function writeBlobs(io: BlobIo, blobs: readonly BlobWrite[], chunkBytes: number, keep: (pk: string) => boolean = () => true, batchBytes = WRITE_BATCH_BYTES): Promise<Item[]> {
  const kept: Item[] = [];
  let batch: { readonly blob: BlobWrite; readonly body: Uint8Array | StoredBody }[] = [];
  let held = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = async () => {
    const ready = batch;
    [batch, held] = [[], 0];
    const stored = await Promise.all(ready.map((r) => (r.body instanceof Uint8Array ? storedForm(io.compression, r.body) : r.body)));
    await writing;
    writing = writeBatch(io.backend, ready.map((r, i) => ({ blob: r.blob, bytes: stored[i]!.stored, encoding: stored[i]!.encoding })), chunkBytes, keep, kept);
    // Awaited with the next batch or at the end; handled now, so a failure meanwhile is no unhandled rejection.
    writing.catch(() => undefined);
  };
  const { compressSync } = io.compression;
  for (const blob of blobs) {
    const made = typeof blob.bytes === 'function' ? blob.bytes() : blob.bytes;
    const body = typeof made !== 'string' ? made : compressSync ? storedTextSync(compressSync, made) : utf8(made);
    batch.push({ blob, body });
    held += body instanceof Uint8Array ? body.length : body.stored.length;
    if (held >= batchBytes) await flush();
  }
  if (batch.length > 0) await flush();
  await writing;
  return kept;
}

async function writeBatch(backend: ItemBackend, batch: readonly { blob: BlobWrite; bytes: Uint8Array; encoding: Readonly<Record<string, AttrValue>> }[], chunkBytes: number, keep: (pk: string) => boolean, kept: Item[]): Promise<void> {
  const tails: Item[] = [];
  const heads: Item[] = [];
  for (const { blob: b, bytes, encoding } of batch) {
    const chunks = splitChunks(bytes, chunkBytes);
    chunks.slice(1).forEach((body, i) => tails.push({ ...b.every, pk: b.pk, sk: String(i + 1), body }));
    heads.push({ ...b.every, ...b.head, pk: b.pk, sk: HEAD_SK, chunks: chunks.length, body: chunks[0]!, ...encoding });
  }
  if (tails.length > 0) await backend.putItems(tails);
  if (heads.length > 0) await backend.putItems(heads);
  for (const item of heads) if (keep(item.pk)) kept.push(item);
  for (const item of tails) if (keep(item.pk)) kept.push(item);
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

/** A body as stored: deflated when that makes it smaller, with what the head must say of it. */
export async function storedForm(c: BlobCompression, bytes: Uint8Array): Promise<StoredBody> {
  return bytes.length < MIN_COMPRESSED_BYTES ? { stored: bytes, encoding: {} } : smaller(bytes, await c.compress(bytes));
}

/** The same with the platform's synchronous deflate. */
export function storedFormSync(compressSync: (bytes: Uint8Array) => Uint8Array, bytes: Uint8Array): StoredBody {
  return bytes.length < MIN_COMPRESSED_BYTES ? { stored: bytes, encoding: {} } : smaller(bytes, compressSync(bytes));
}

/**
 * A text's stored form with the platform's synchronous deflate, its UTF-8 written into one
 * buffer reused from body to body. Each body's own bytes would be memory outside V8's heap, and
 * V8 answers every 64 MB of that with a full marking of the heap ("external memory pressure"):
 * a whole publish of L encodes ~210 MB of bodies over ~1 GB of live heap, and its collections
 * were a third of its time. Only the deflated body is allocated (a copy when stored raw).
 */
export function storedTextSync(compressSync: (bytes: Uint8Array) => Uint8Array, text: string): StoredBody {
  // UTF-8 takes at most 3 bytes per UTF-16 unit; a body larger than the buffer is encoded apart.
  if (text.length * 3 > ENCODE_BUFFER_BYTES) return storedFormSync(compressSync, utf8(text));
  encodeBuffer ??= new Uint8Array(ENCODE_BUFFER_BYTES);
  const { written } = textEncoder.encodeInto(text, encodeBuffer);
  const view = encodeBuffer.subarray(0, written);
  if (written < MIN_COMPRESSED_BYTES) return { stored: view.slice(), encoding: {} };
  const deflated = compressSync(view);
  return deflated.length < written ? { stored: deflated, encoding: { encoding: DEFLATE_RAW, rawBytes: written } } : { stored: view.slice(), encoding: {} };
}

const ENCODE_BUFFER_BYTES = 4 * 1024 * 1024;
const textEncoder = new TextEncoder();
let encodeBuffer: Uint8Array | undefined;

const smaller = (bytes: Uint8Array, deflated: Uint8Array): StoredBody => (deflated.length < bytes.length ? { stored: deflated, encoding: { encoding: DEFLATE_RAW, rawBytes: bytes.length } } : { stored: bytes, encoding: {} });

export async function readBlobs(io: BlobIo, pks: readonly string[]): Promise<BlobReads> {
  const { backend } = io;
  const heads = await backend.getItems(
    pks.map((pk) => ({ pk, sk: HEAD_SK })),
    { consistent: true },
  );
  const tailKeys = heads.flatMap((h) => Array.from({ length: chunkCount(h) - 1 }, (_, i) => ({ pk: h.pk, sk: String(i + 1) })));
  const tails = tailKeys.length > 0 ? await backend.getItems(tailKeys, { consistent: true }) : [];
  const tailByKey = new Map(tails.map((t) => [`${t.pk}\n${t.sk}`, t]));
  const complete = new Map<string, BlobRead>();
  const incomplete: string[] = [];
  await Promise.all(heads.map(async (head) => {
    const parts = [head, ...Array.from({ length: chunkCount(head) - 1 }, (_, i) => tailByKey.get(`${head.pk}\n${i + 1}`))];
    if (!parts.every((p): p is Item => p !== undefined && p.body instanceof Uint8Array)) {
      incomplete.push(head.pk);
      return;
    }
    const bytes = joinChunks(parts.map((p) => p.body as Uint8Array));
    complete.set(head.pk, { head, bytes: await rawBody(io.compression, head, bytes) });
  }));
  return { complete, incomplete };
}

/** A stored body as written: inflated when its head says it is deflated (an unknown encoding is damage). */
export async function rawBody(c: BlobCompression, head: Item, bytes: Uint8Array): Promise<Uint8Array> {
  if (head.encoding === undefined) return bytes;
  if (head.encoding !== DEFLATE_RAW || typeof head.rawBytes !== 'number') throw new StoreCorruptionError(`${head.pk}: unknown body encoding ${JSON.stringify(head.encoding)}`);
  return inflated(c, head.pk, bytes, head.rawBytes);
}

export const chunkCount = (head: Item): number => (typeof head.chunks === 'number' && head.chunks >= 1 ? head.chunks : 1);
