// A sliced JSON answer (functions/json-stream.ts) is byte for byte JSON.stringify's, on any JSON
// value and on what JSON.stringify treats specially (undefined, functions and symbols as members
// and as elements, toJSON with its key, holes, null-prototype objects, boxed primitives), with
// containers large enough to be walked and batched; and it gives the event loop a turn between
// slices, so other connections are served while a large answer is written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonPieces, jsonStream } from '../../functions/json-stream.js';
import { IdRecord } from '../../core/sets/index.js';
import { assertProperty, propertyRuns } from '../support/property.js';

const RUNS = propertyRuns(400);

/** What JSON.stringify writes in its own way. */
const odd = fc.constantFrom<unknown>(
  undefined,
  () => 1,
  Symbol('s'),
  new Date(0),
  { toJSON: (key: string) => `key ${key}` },
  { toJSON: () => undefined },
  Object.assign(Object.create(null) as object, { a: 1 }),
  new Number(3),
  new String('x'),
  [1, , 3],
);

const leaf = fc.oneof(fc.jsonValue({ maxDepth: 1 }), odd);

const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), tie('v'), { maxKeys: 5 }),
    // Large enough to be walked and written in batches.
    fc.array(leaf, { minLength: 30, maxLength: 700 }),
    fc.dictionary(fc.string({ maxLength: 8 }), leaf, { minKeys: 30, maxKeys: 700 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('v'), { maxKeys: 3 }).map((r) => IdRecord.fromObject(r as Record<string, unknown>)),
  ),
})).v;

async function streamed(v: unknown): Promise<string> {
  return new Response(jsonStream(v)).text();
}

describe('sliced JSON', () => {
  it(`its pieces are JSON.stringify's text (${RUNS} random values)`, () => {
    assertProperty(
      fc.property(value, (v) => {
        expect([...jsonPieces(v)].join('')).toBe(JSON.stringify(v) ?? '');
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it(`its stream is JSON.stringify's UTF-8 bytes (${RUNS} random values)`, async () => {
    await assertProperty(
      fc.asyncProperty(value, async (v) => {
        expect(await streamed(v)).toBe(JSON.stringify(v) ?? '');
      }),
      { numRuns: RUNS, file: import.meta.url },
    );
  });

  it('leaves out members it cannot write wherever they fall among batches and pieces of their own', () => {
    const many = (n: number, v: unknown) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, v]));
    const cases: unknown[] = [
      { a: undefined, b: new Date(0) },
      { a: () => 1, b: Array.from({ length: 40 }, (_, i) => i), c: Symbol('s') },
      { ...many(300, undefined), last: 1 },
      { ...many(300, undefined), walked: many(40, 1) },
      { first: many(40, 1), ...many(300, undefined) },
      { rows: [undefined, new Date(0), () => 1, ...Array.from({ length: 300 }, () => undefined), { toJSON: (k: string) => k }] },
      { rows: Array.from({ length: 300 }, () => ({ toJSON: () => undefined })) },
    ];
    for (const v of cases) expect([...jsonPieces(v)].join('')).toBe(JSON.stringify(v));
  });

  it('writes a set form of many large records in many slices, equal to JSON.stringify', async () => {
    const members = Array.from({ length: 5000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24`);
    const sets = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`s${String(i).padStart(4, '0')}`, { definition: { kind: 'pods', namespace: `ns${i}` }, members: members.slice(0, 100 + i * 10) }]));
    const body = { cluster: 'c', node: 'n', ir: { version: 2, sets: IdRecord.fromObject(sets), nodes: { n: { pods: Object.fromEntries(members.map((m, i) => [m, `t${i % 7}`])) } } } };
    const chunks: number[] = [];
    const reader = jsonStream(body).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      chunks.push(r.value.byteLength);
      text += decoder.decode(r.value, { stream: true });
    }
    expect(text).toBe(JSON.stringify(body));
    expect(chunks.length).toBeGreaterThan(10);
    // No one slice is much larger than the slice size (a walked batch may pass it by one member).
    expect(Math.max(...chunks)).toBeLessThan(2 * 256 * 1024);
  });

  it('lets other work run between slices: a callback queued after the first slice runs before the last', async () => {
    const body = { rows: Array.from({ length: 200_000 }, (_, i) => ({ i, name: `row ${i}` })) };
    const reader = jsonStream(body).getReader();
    let slicesRead = 0;
    let slicesWhenOtherWorkRan = -1;
    await reader.read();
    slicesRead++;
    setImmediate(() => (slicesWhenOtherWorkRan = slicesRead));
    for (let r = await reader.read(); !r.done; r = await reader.read()) slicesRead++;
    expect(slicesRead).toBeGreaterThan(3);
    expect(slicesWhenOtherWorkRan).toBeGreaterThan(0);
    expect(slicesWhenOtherWorkRan).toBeLessThan(slicesRead);
  });

  it('stops making slices when the client goes away, a slice waiting for its turn included', async () => {
    let read = 0;
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ i, name: `row ${i}` }));
    // A getter counts how far the walk went.
    const body = { rows: new Proxy(rows, { get: (t, k, r) => ((typeof k === 'string' && /^\d+$/.test(k) && read++), Reflect.get(t, k, r)) }) };
    const reader = jsonStream(body).getReader();
    await reader.read();
    const waiting = reader.read();
    // Its pull is now waiting for its turn of the event loop.
    for (let i = 0; i < 5; i++) await null;
    await reader.cancel('client gone');
    expect((await waiting).done).toBe(true);
    const readAtCancel = read;
    await new Promise((r) => setTimeout(r, 20));
    expect(read).toBe(readAtCancel);
    expect(read).toBeLessThan(rows.length);
  });

  it('refuses a value that is not JSON data before any byte is sent', () => {
    expect(() => jsonStream({ a: 1n })).toThrow(TypeError);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => jsonStream(cycle)).toThrow(TypeError);
  });
});
