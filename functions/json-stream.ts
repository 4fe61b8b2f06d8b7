// A large JSON answer written in slices, with the event loop free between them. A node's set
// form can be ~9 MB of JSON (20,000 pods on one node); JSON.stringify of it holds the serving
// thread for ~50 ms, and four such reads at once held node agents' 304 polls (p50 190 ms, p99
// 508 ms). The bytes are exactly JSON.stringify's: the walk descends only into plain objects and
// arrays, hands everything else (and every small container) to JSON.stringify itself, and
// follows its rules for toJSON and for what it leaves out or writes as null. One difference, for
// no value an answer holds: a toJSON whose result has a toJSON of its own sees it called too.
import { nextTurn } from './turns.js';

/** Characters per slice: ~2 ms of work, one slice per turn of the event loop. */
const SLICE_CHARS = 256 * 1024;
/** Containers below the top levels with more entries than this are walked; smaller ones are one leaf. */
const LEAF_ENTRIES = 32;
const TOP_LEVELS = 2;
/** Members that are not walked, written by one JSON.stringify call. */
const BATCH = 256;

const hasToJSON = (v: unknown): v is { toJSON(key: string): unknown } => typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function';

const isPlainContainer = (v: unknown): v is Record<string, unknown> | unknown[] => {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && !hasToJSON(v);
};

/**
 * What JSON.stringify writes for a member under `key`: the value's toJSON(key) when it has one
 * (a record of sets or tables, core/sets/id-record.ts), so that its plain form is walked too.
 */
const jsonValue = (value: unknown, key: string): unknown => (hasToJSON(value) ? value.toJSON(key) : value);

/**
 * Whether the walk descends into a value: a plain container near the top, a large one, or one
 * that holds a large one (a set body and its members), so that no one JSON.stringify call
 * writes much more than a slice.
 */
function isWalked(value: unknown, depth: number): value is Record<string, unknown> | unknown[] {
  if (!isPlainContainer(value)) return false;
  if (depth < TOP_LEVELS) return true;
  let n = 0;
  for (const member of Array.isArray(value) ? value : Object.values(value)) {
    if (++n > LEAF_ENTRIES || isLarge(member)) return true;
  }
  return false;
}

const isLarge = (v: unknown): boolean => {
  if (!isPlainContainer(v)) return false;
  if (Array.isArray(v)) return v.length > LEAF_ENTRIES;
  let n = 0;
  for (const key in v) if (Object.hasOwn(v, key) && ++n > LEAF_ENTRIES) return true;
  return false;
};

/** Members written on their own: walked ones, and those with toJSON (called with their own key). */
const isOwnPiece = (v: unknown, depth: number): boolean => hasToJSON(v) || isWalked(v, depth);

/** JSON.stringify(value) in pieces, in order: their concatenation is its text. */
export function* jsonPieces(value: unknown): Generator<string> {
  const top = jsonValue(value, '');
  if (isWalked(top, 0)) yield* walk(top, 0);
  else {
    // undefined, a function or a symbol: JSON.stringify gives no text at all.
    const text = JSON.stringify(top) as string | undefined;
    if (text !== undefined) yield text;
  }
}

/**
 * A walked container's pieces (its toJSON already applied). Runs of members that are not walked
 * are written by one JSON.stringify call each, which also does what JSON.stringify does with
 * what it cannot write (undefined, a function, a symbol): a member left out, key and all; an
 * element written as null. A member written on its own follows the same rules here.
 */
function* walk(value: Record<string, unknown> | unknown[], depth: number): Generator<string> {
  const inner = depth + 1;
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; ) {
      const comma = i > 0 ? ',' : '';
      if (isOwnPiece(value[i], inner)) {
        const element = jsonValue(value[i], String(i));
        if (isWalked(element, inner)) {
          yield comma;
          yield* walk(element, inner);
        } else yield comma + ((JSON.stringify(element) as string | undefined) ?? 'null');
        i++;
        continue;
      }
      let j = i + 1;
      while (j < value.length && j - i < BATCH && !isOwnPiece(value[j], inner)) j++;
      yield comma + JSON.stringify(value.slice(i, j)).slice(1, -1);
      i = j;
    }
    yield ']';
    return;
  }
  yield '{';
  let first = true;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; ) {
    if (isOwnPiece(value[keys[i]!], inner)) {
      const key = keys[i++]!;
      const member = jsonValue(value[key], key);
      const prefix = `${first ? '' : ','}${JSON.stringify(key)}:`;
      if (isWalked(member, inner)) {
        yield prefix;
        yield* walk(member, inner);
      } else {
        const text = JSON.stringify(member) as string | undefined;
        if (text === undefined) continue;
        yield prefix + text;
      }
      first = false;
      continue;
    }
    const run: string[] = [];
    for (let n = 0; i < keys.length && n < BATCH && !isOwnPiece(value[keys[i]!], inner); n++, i++) {
      const text = JSON.stringify(value[keys[i]!]) as string | undefined;
      if (text !== undefined) run.push(`${JSON.stringify(keys[i])}:${text}`);
    }
    if (run.length === 0) continue;
    yield (first ? '' : ',') + run.join(',');
    first = false;
  }
  yield '}';
}

/**
 * A body stream of JSON.stringify(value)'s UTF-8 bytes, one slice per turn of the event loop
 * (turns.ts). The first slice is made before the stream is returned, so a value that fails at
 * once (not JSON data) throws here, before a status is sent; the answers streamed are plain data
 * the core made, and one failing later aborts the transfer (never a complete body).
 */
export function jsonStream(value: unknown): ReadableStream<Uint8Array> {
  const pieces = jsonPieces(value);
  const encoder = new TextEncoder();
  const slice = (): Uint8Array | null => {
    let out = '';
    for (let next = pieces.next(); !next.done; next = pieces.next()) {
      out += next.value;
      if (out.length >= SLICE_CHARS) return encoder.encode(out);
    }
    return out.length > 0 ? encoder.encode(out) : null;
  };
  let ahead: Uint8Array | null = slice();
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (ahead === null) {
          await nextTurn();
          // The client went away while this slice waited for its turn: nothing more is made.
          if (cancelled) return;
          ahead = slice();
        }
        if (ahead === null) controller.close();
        else controller.enqueue(ahead);
        ahead = null;
      },
      cancel() {
        cancelled = true;
        pieces.return(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
