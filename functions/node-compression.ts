// Node's zlib for stored bodies (infra/store/compression.ts): raw DEFLATE at level 1, ~4× faster
// than the web streams' default level for a ~20% larger body. Synchronous: a publish stores 10⁵
// bodies of a few KB, and zlib's asynchronous calls cost more per body (a stream, its buffers,
// a thread hop) than deflating it; publishes run on compute threads, and reads inflate bodies
// of a few KB. Only Node entry points import this; the Worker keeps the streams.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { exactly, type BlobCompression } from '../infra/store/compression.js';

export const nodeCompression: BlobCompression = {
  compress: async (bytes) => new Uint8Array(deflateRawSync(bytes, { level: 1 })),
  // maxOutputLength: a damaged body stops inflating at the size its head recorded.
  decompress: async (bytes, rawBytes) => exactly(new Uint8Array(inflateRawSync(bytes, { maxOutputLength: Math.max(1, rawBytes) })), rawBytes),
};
