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

const INFLATE_CHUNK_MAX = 8 * 2 ** 20;

export const nodeCompression: BlobCompression = {
  compress: async (bytes) => new Uint8Array(deflateRawSync(bytes, { level: 1 })),
  compressSync: (bytes) => new Uint8Array(deflateRawSync(bytes, { level: 1 })),
  // maxOutputLength: a damaged body stops inflating at the size its head recorded. chunkSize:
  // one output buffer of that size (and a byte, so zlib ends the stream inside it), where the
  // default 16 KiB chunks made a body of n KiB n/16 buffers and a copy joining them; at most
  // 8 MiB at once, whatever a damaged head says.
  decompress: async (bytes, rawBytes) => exactly(new Uint8Array(inflateRawSync(bytes, { maxOutputLength: Math.max(1, rawBytes), chunkSize: Math.min(INFLATE_CHUNK_MAX, Math.max(64, rawBytes + 1)) })), rawBytes),
};

/**
 * Answers compressed by zlib at level 1 (functions/answer-compression.ts says why), as web
 * streams: the work runs on libuv's thread pool, not on the thread serving polls.
 */
export const nodeAnswerCompressor: AnswerCompressor = (encoding) => Duplex.toWeb(encoding === 'gzip' ? createGzip({ level: 1 }) : createDeflate({ level: 1 })) as ReturnType<AnswerCompressor>;
