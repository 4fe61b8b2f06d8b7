// Stored bodies deflated (infra/store/compression.ts, blob.ts): what is read is what was written,
// for both deflates (web streams, Node's zlib), across chunks, small and incompressible bodies
// stored as they are; a damaged or mislabelled body is the store's corruption error, never a
// crash or a body of another size; heads written before compression read as they are.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeCompression } from '../../functions/node-compression.js';
import { HEAD_SK, readBlobs, writeBlobs } from '../../infra/store/blob.js';
import { MIN_COMPRESSED_BYTES, streamCompression, type BlobCompression } from '../../infra/store/compression.js';
import { MemoryBackend } from '../../infra/store/memory.js';
import { StoreCorruptionError } from '../../infra/store/types.js';
import { assertProperty } from '../support/property.js';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const text = (s: string) => new TextEncoder().encode(s);
// JSON-like text (compressible) or random bytes (not), up to a few chunks of 4 KiB.
const bodyArb = fc.oneof(
  fc.array(fc.record({ name: fc.string({ maxLength: 12 }), ip: fc.ipV4(), app: fc.constantFrom('web', 'db', 'cache') }), { minLength: 30, maxLength: 300 }).map((xs) => text(JSON.stringify(xs))),
  fc.uint8Array({ maxLength: 12_000 }),
);

describe.each([
  ['web streams', streamCompression],
  ['zlib', nodeCompression],
] as [string, BlobCompression][])('stored bodies deflated with %s', (_, compression) => {
  it(`read back as written, chunked after deflating (${RUNS} random sets of bodies)`, async () => {
    let deflated = 0;
    await assertProperty(
      fc.asyncProperty(fc.array(bodyArb, { minLength: 1, maxLength: 4 }), async (bodies) => {
        const backend = new MemoryBackend();
        const io = { backend, compression };
        await writeBlobs(io, bodies.map((bytes, i) => ({ pk: `b#${i}`, bytes })), 4096);
        const { complete, incomplete } = await readBlobs(io, bodies.map((_, i) => `b#${i}`));
        expect(incomplete).toEqual([]);
        bodies.forEach((bytes, i) => expect(complete.get(`b#${i}`)!.bytes).toEqual(bytes));
        for (const item of backend.dump().filter((i) => i.sk === HEAD_SK)) {
          if (item.encoding !== undefined) deflated++;
          // Small bodies are never deflated; a deflated one is smaller than it was.
          if (item.encoding !== undefined) expect(item.rawBytes).toBeGreaterThanOrEqual(MIN_COMPRESSED_BYTES);
        }
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
    expect(deflated).toBeGreaterThan(RUNS / 4);
  });

  it(`bodies given as text read back as their UTF-8, one batch after another (${RUNS} random sets of texts)`, async () => {
    // Any UTF-16 (lone surrogates too), repetitive or not, and one body past the reused encode buffer.
    const textArb = fc.oneof(fc.string({ unit: 'binary', maxLength: 3000 }), fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((t) => t.repeat(200)));
    const huge = `${'é'.repeat(800_000)}${'x'.repeat(800_000)}`;
    await assertProperty(
      fc.asyncProperty(fc.array(textArb, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.constantFrom(1, 2 ** 30), async (texts, withHuge, batchBytes) => {
        const bodies = withHuge ? [...texts, huge] : texts;
        const backend = new MemoryBackend();
        const io = { backend, compression };
        // Batches of one body (each encoded after the one before was handed on), or one batch of all.
        await writeBlobs(io, bodies.map((t, i) => ({ pk: `t#${i}`, bytes: i % 2 === 0 ? t : () => t })), 4096, undefined, batchBytes);
        const { complete } = await readBlobs(io, bodies.map((_, i) => `t#${i}`));
        bodies.forEach((t, i) => expect(new TextDecoder().decode(complete.get(`t#${i}`)!.bytes)).toBe(new TextDecoder().decode(text(t))));
      }),
      { numRuns: Math.min(RUNS, 50), file: import.meta.url },
    );
  });

  it('a damaged, mislabelled or unknown encoding is the store corruption error', async () => {
    const backend = new MemoryBackend();
    const io = { backend, compression };
    const body = text(JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ pod: `p${i}`, ip: `10.0.${i >> 8}.${i & 255}` }))));
    await writeBlobs(io, [{ pk: 'b#1', bytes: body }], 350 * 1024);
    const head = backend.dump().find((i) => i.pk === 'b#1')!;
    expect(head.encoding).toBe('deflate-raw');
    const stored = head.body as Uint8Array;
    const flipped = stored.slice();
    for (let i = 0; i < flipped.length; i += 7) flipped[i] = flipped[i]! ^ 0x5a;
    for (const damaged of [{ ...head, body: flipped }, { ...head, rawBytes: body.length - 1 }, { ...head, rawBytes: body.length + 1 }, { ...head, encoding: 'zstd' }, { ...head, body: stored.slice(0, stored.length >> 1) }]) {
      await backend.putItems([damaged]);
      await expect(readBlobs(io, ['b#1'])).rejects.toThrow(StoreCorruptionError);
    }
  });
});

describe('heads written before bodies were deflated', () => {
  it('read as they are', async () => {
    const backend = new MemoryBackend();
    const bytes = text('x'.repeat(5000));
    await backend.putItems([{ pk: 'b#old', sk: HEAD_SK, chunks: 1, body: bytes }]);
    const { complete } = await readBlobs({ backend, compression: streamCompression }, ['b#old']);
    expect(complete.get('b#old')!.bytes).toEqual(bytes);
  });
});
