// Node's zlib for stored bodies (infra/store/compression.ts): raw DEFLATE at level 1, ~4× faster
// than the web streams' default level for a ~20% larger body, on libuv's threads rather than
// the serving thread. Only Node entry points import this; the Worker keeps the streams.
import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { exactly, type BlobCompression } from '../infra/store/compression.js';

const [deflate, inflate] = [promisify(deflateRaw), promisify(inflateRaw)];

export const nodeCompression: BlobCompression = {
  compress: async (bytes) => new Uint8Array(await deflate(bytes, { level: 1 })),
  // maxOutputLength: a damaged body stops inflating at the size its head recorded.
  decompress: async (bytes, rawBytes) => exactly(new Uint8Array(await inflate(bytes, { maxOutputLength: Math.max(1, rawBytes) })), rawBytes),
};
