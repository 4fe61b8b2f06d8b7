// Node's zlib at level 1. Stored bodies (infra/store/compression.ts): raw DEFLATE, ~4× faster
// than the web streams' default level for a ~20% larger body, and synchronous: a publish stores
// 10⁵ bodies of a few KB, and zlib's asynchronous calls cost more per body (a stream, its
// buffers, a thread hop) than deflating it; publishes run on compute threads, and reads inflate
// bodies of a few KB. Answers (functions/answer-compression.ts): gzip or deflate streams. Only
// Node entry points import this; the Worker keeps the streams.
import { Duplex } from 'node:stream';
import { createDeflate, createGzip, deflateRawSync, inflateRawSync } from 'node:zlib';
import { exactly, type BlobCompression } from '../infra/store/compression.js';
import type { AnswerCompressor } from './answer-compression.js';

export const nodeCompression: BlobCompression = {
  compress: async (bytes) => new Uint8Array(deflateRawSync(bytes, { level: 1 })),
  compressSync: (bytes) => new Uint8Array(deflateRawSync(bytes, { level: 1 })),
  // maxOutputLength: a damaged body stops inflating at the size its head recorded.
  decompress: async (bytes, rawBytes) => exactly(new Uint8Array(inflateRawSync(bytes, { maxOutputLength: Math.max(1, rawBytes) })), rawBytes),
};

/**
 * Answers compressed by zlib at level 1 (functions/answer-compression.ts says why), as web
 * streams: the work runs on libuv's thread pool, not on the thread serving polls.
 */
export const nodeAnswerCompressor: AnswerCompressor = (encoding) => Duplex.toWeb(encoding === 'gzip' ? createGzip({ level: 1 }) : createDeflate({ level: 1 })) as ReturnType<AnswerCompressor>;
