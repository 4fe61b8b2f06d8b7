// Blob writes in batches (infra/store/blob.ts writeBlobs): every blob is stored whole with its
// tails written before its head; bodies are encoded only when their batch is, so a writer holds
// at most two batches; a failed write fails the call (never an unhandled rejection) and no head
// of the failed batch is readable.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeCompression } from '../../functions/node-compression.js';
import { HEAD_SK, readBlobs, writeBlobs, type BlobWrite } from '../../infra/store/blob.js';
import type { Item } from '../../infra/store/backend.js';
import type { BlobCompression } from '../../infra/store/compression.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { assertProperty } from '../support/property.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

/** A memory backend that logs every put, and fails the puts after `failAfter` items. */
class LoggingBackend extends MemoryBackend {
  readonly log: { pk: string; sk: string }[] = [];
  constructor(private readonly failAfter = Infinity) {
    super();
  }
  override async putItems(items: readonly Item[]): Promise<void> {
    if (this.log.length + items.length > this.failAfter) throw new Error('write failed');
    await null; // answered later, as a real store answers
    for (const i of items) this.log.push({ pk: i.pk, sk: i.sk });
    await super.putItems(items);
  }
}

// Pseudo-random bytes (xorshift32), which deflating does not shrink: stored as they are, chunked.
function bodyOf(seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = ((seed + 1) * 2654435761) | 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  return out;
}

describe('writeBlobs in batches', () => {
  it(`stores every blob whole, tails before heads, encoding at most two batches ahead of what is written (${RUNS} random runs)`, async () => {
    await assertProperty(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 9_000 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 20_000 }), async (sizes, batchBytes) => {
        const backend = new LoggingBackend();
        let encodedBytes = 0;
        let maxAhead = 0;
        const blobs: BlobWrite[] = sizes.map((n, i) => ({
          pk: `b#${i}`,
          bytes: i % 2 === 0 ? bodyOf(i, n) : () => {
            encodedBytes += n;
            const written = new Set(backend.log.filter((l) => l.sk === HEAD_SK).map((l) => l.pk));
            const ahead = sizes.reduce((sum, m, k) => (k % 2 === 1 && k <= i && !written.has(`b#${k}`) ? sum + m : sum), 0);
            maxAhead = Math.max(maxAhead, ahead);
            return bodyOf(i, n);
          },
        }));
        const kept = await writeBlobs({ backend, compression: nodeCompression }, blobs, 4096, (pk) => pk === 'b#0', batchBytes);
        expect(encodedBytes).toBe(sizes.reduce((sum, n, i) => (i % 2 === 1 ? sum + n : sum), 0));
        // The batch being encoded and the one being written, each under batchBytes plus its last body.
        expect(maxAhead).toBeLessThanOrEqual(2 * (batchBytes + Math.max(...sizes)));
        const { complete, incomplete } = await readBlobs({ backend, compression: nodeCompression }, blobs.map((b) => b.pk));
        expect(incomplete).toEqual([]);
        // Bytes compared natively: toEqual walks typed arrays element by element.
        sizes.forEach((n, i) => expect(Buffer.from(complete.get(`b#${i}`)!.bytes).equals(bodyOf(i, n)), `b#${i}`).toBe(true));
        // Each blob's tails were stored before its head.
        for (const b of blobs) {
          const at = backend.log.map((l, k) => (l.pk === b.pk ? k : -1)).filter((k) => k >= 0);
          const head = backend.log.findIndex((l) => l.pk === b.pk && l.sk === HEAD_SK);
          expect(Math.max(...at)).toBe(head);
        }
        // Only the items of the blobs asked for come back.
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.every((i) => i.pk === 'b#0')).toBe(true);
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it('a failed write fails the call, and no head of what was not written whole is stored', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const failAfter of [0, 3, 10, 25]) {
        const backend = new LoggingBackend(failAfter);
        const blobs = Array.from({ length: 20 }, (_, i) => ({ pk: `b#${i}`, bytes: () => bodyOf(i, 3_000) }));
        // Deflating that takes a while (as the web streams' does): a batch fails while the next is deflated.
        const slow: BlobCompression = { compress: async (b) => (await new Promise((r) => setTimeout(r, 1)), nodeCompression.compress(b)), decompress: nodeCompression.decompress };
        await expect(writeBlobs({ backend, compression: slow }, blobs, 1024, () => true, 5_000)).rejects.toThrow('write failed');
        const { complete, incomplete } = await readBlobs({ backend, compression: nodeCompression }, blobs.map((b) => b.pk));
        expect(incomplete).toEqual([]);
        for (const [pk, read] of complete) expect(Buffer.from(read.bytes).equals(bodyOf(Number(pk.slice(2)), 3_000)), pk).toBe(true);
        expect(complete.size).toBeLessThan(blobs.length);
      }
      await new Promise((r) => setTimeout(r, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
