// Blob bodies are stored deflated: snapshot objects, set bodies and manifests are JSON that
// deflate shrinks 5–8× (the M snapshot's 15 MiB of objects to 1.9 MiB), and DynamoDB charges
// writes and reads per KB (dynalite takes ~30 µs per KB on top of ~0.15 ms per item). The raw
// size is kept on the head, so a damaged body cannot inflate past it.
import { StoreCorruptionError } from './types.js';

export interface BlobCompression {
  compress(bytes: Uint8Array): Promise<Uint8Array>;
  /**
   * The same deflate, synchronous, where the platform has one (Node's zlib): a whole publish
   * deflates the object groups as the snapshot hash writes their text (objects.ts).
   */
  readonly compressSync?: (bytes: Uint8Array) => Uint8Array;
  /** Throws when `bytes` do not inflate to exactly `rawBytes`. */
  decompress(bytes: Uint8Array, rawBytes: number): Promise<Uint8Array>;
}

/** The encoding a compressed head names: raw DEFLATE (RFC 1951), as CompressionStream and zlib write it. */
export const DEFLATE_RAW = 'deflate-raw';

/** Bodies below this are stored as they are: a DynamoDB write unit is 1 KB. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Web-standard streams (workerd, Node, browsers): the portable default. */
export const streamCompression: BlobCompression = {
  compress: (bytes) => pipe(bytes, new CompressionStream(DEFLATE_RAW), Infinity),
  decompress: async (bytes, rawBytes) => exactly(await pipe(bytes, new DecompressionStream(DEFLATE_RAW), rawBytes), rawBytes),
};

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  void writer.write(bytes).then(() => writer.close()).catch(() => undefined);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.readable.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`inflates past ${limit} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) [out.set(p, at), (at += p.length)];
  return out;
}

export function exactly(bytes: Uint8Array, rawBytes: number): Uint8Array {
  if (bytes.length !== rawBytes) throw new Error(`inflates to ${bytes.length} bytes, not ${rawBytes}`);
  return bytes;
}

/** A stored body inflated, or the store's corruption error naming the item. */
export async function inflated(c: BlobCompression, pk: string, bytes: Uint8Array, rawBytes: number): Promise<Uint8Array> {
  try {
    return await c.decompress(bytes, rawBytes);
  } catch (e) {
    throw new StoreCorruptionError(`${pk}: stored body does not inflate (${e instanceof Error ? e.message : String(e)})`);
  }
}
