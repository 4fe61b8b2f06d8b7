// The identity of a snapshot's content, so re-sending the same cluster (other key order, other
// object order, other whitespace, YAML or JSON) is the same: SHA-256 over runs of objects in key
// order, each run hashed over its objects' keys and the digests of their canonical JSON. Digests
// and runs are kept per object: a version from changes shares its unchanged objects (and so
// most runs) with the version before, and hashes only the runs that changed.
import { objectKey } from '../../schemas/object-key.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { portableSha256Hex, type Sha256Hex } from '../compile/table-id.js';
import { fnv1a } from '../fnv1a.js';
import { jsonString } from '../json-string.js';
import { byText, joinRuns, sortOnce } from '../sorted.js';

/** The same value with object keys sorted, so JSON.stringify of equal content is equal text. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/**
 * JSON.stringify(canonical(v)), written directly: every object of a snapshot is hashed and stored
 * this way (181k at L), and building the sorted copy first costs twice the text. Held equal to
 * it by test/snapshot/canonical-json.property.test.ts.
 */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'string') return jsonString(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  // Parsed objects come in canonical key order (schemas/k8s/meta.ts sortedObject, sorted label
  // maps), as do objects read back from the store: then JSON.stringify writes the same text,
  // natively, ~2.5x faster at L.
  if (inCanonicalOrder(v)) return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      out += (i === 0 ? '' : ',') + (x === undefined || typeof x === 'function' || typeof x === 'symbol' ? 'null' : canonicalJson(x));
    }
    return out + ']';
  }
  const record = v as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const k of sortedKeys(record)) {
    const x = record[k];
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue;
    out += (first ? '' : ',') + jsonString(k) + ':' + canonicalJson(x);
    first = false;
  }
  return out + '}';
}

/**
 * Whether JSON.stringify lists every key of `v`, at every depth, in canonical order: keys sorted,
 * none that JS lists out of insertion order (a key starting with a digit may be an array index,
 * which JS lists first: left to the builder), no toJSON (JSON.stringify would call it).
 */
function inCanonicalOrder(v: object): boolean {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === 'object' && !inCanonicalOrder(x)) return false;
    }
    return true;
  }
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  let previous = '';
  for (const k in v) {
    if (!Object.hasOwn(v, k)) return false;
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || k < previous) return false;
    previous = k;
    const x: unknown = (v as Record<string, unknown>)[k];
    if (x !== null && typeof x === 'object' && !inCanonicalOrder(x)) return false;
  }
  return true;
}

// An array index: what JS objects list first, in numeric order, whatever the insertion order.
const INDEX = /^(?:0|[1-9][0-9]{0,9})$/;
const isIndex = (k: string) => {
  const c = k.charCodeAt(0);
  return c >= 48 && c <= 57 && INDEX.test(k) && Number(k) < 2 ** 32 - 1;
};

/** Keys in the order JSON.stringify lists them on the key-sorted copy: array indices first (numerically), then the rest sorted. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  if (!keys.some(isIndex)) return keys;
  const indices = keys.filter(isIndex).sort((a, b) => Number(a) - Number(b));
  return [...indices, ...keys.filter((k) => !isIndex(k))];
}

// What the hash reads of a parsed object, found once per object in one record (parsed objects
// are never mutated: every stage copies): its key, whether a run ends after it, whether its
// keys are in canonical order, and its digest and line under the hash function first asked
// (a process uses one). A WeakMap per fact was a lookup in each of five tables per object, and
// their ephemeron tables to grow and collect (181k objects at L).
interface ObjectFacts {
  key: string | undefined;
  /** Whether a run ends after the object (endsRun). */
  cut: boolean | undefined;
  /** Whether JSON.stringify writes it in canonical key order. */
  ordered: boolean | undefined;
  sha256Hex: Sha256Hex | undefined;
  digest: string | undefined;
  line: string | undefined;
}

const factsByObject = new WeakMap<SnapshotObject, ObjectFacts>();

/** The object's record, each fact undefined until first asked. */
function factsOf(o: SnapshotObject): ObjectFacts {
  let f = factsByObject.get(o);
  if (f === undefined) factsByObject.set(o, (f = { key: undefined, cut: undefined, ordered: undefined, sha256Hex: undefined, digest: undefined, line: undefined }));
  return f;
}

/** `kind/namespace/name`: one object per key in a snapshot. */
export function snapshotObjectKey(o: SnapshotObject): string {
  const f = factsOf(o);
  return (f.key ??= objectKey({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name }));
}

/** Binary search over objects in key order (a compiled state keeps them so); when absent, -1 - the index it would have. */
export function indexOfKey(objects: readonly SnapshotObject[], key: string): number {
  let [lo, hi] = [0, objects.length - 1];
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = snapshotObjectKey(objects[mid]!);
    if (k === key) return mid;
    if (k < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1 - lo;
}

/** An object's canonical JSON (canonicalJson), its key order checked once per object. */
export function objectJson(o: SnapshotObject): string {
  const f = factsOf(o);
  f.ordered ??= inCanonicalOrder(o);
  return f.ordered ? JSON.stringify(o) : canonicalJson(o);
}

// Digests and lines under any other hash function than an object's first.
const otherDigests = new WeakMap<Sha256Hex, WeakMap<SnapshotObject, { digest: string; line?: string }>>();

/** The object's digest record under `sha256Hex`, or undefined when none was made yet. */
function digestOf(o: SnapshotObject, sha256Hex: Sha256Hex): { digest: string; line?: string | undefined } | undefined {
  const f = factsOf(o);
  if (f.sha256Hex === sha256Hex) return f as { digest: string; line: string | undefined };
  return f.sha256Hex === undefined ? undefined : otherDigests.get(sha256Hex)?.get(o);
}

function setDigest(o: SnapshotObject, sha256Hex: Sha256Hex, digest: string): { digest: string; line?: string | undefined } {
  const f = factsOf(o);
  if (f.sha256Hex === undefined) {
    [f.sha256Hex, f.digest] = [sha256Hex, digest];
    return f as { digest: string; line: string | undefined };
  }
  let cache = otherDigests.get(sha256Hex);
  if (!cache) otherDigests.set(sha256Hex, (cache = new WeakMap()));
  const record = { digest };
  cache.set(o, record);
  return record;
}

/** The canonical JSON of a list of objects: one JSON.stringify when each was found in order already. */
export function objectsJson(objects: readonly SnapshotObject[]): string {
  for (const o of objects) if (factsOf(o).ordered !== true) return `[${objects.map(objectJson).join(',')}]`;
  return JSON.stringify(objects);
}

/**
 * An object parsed from its canonical JSON, with the SHA-256 of that very text (the store's
 * object groups, checked against their ids as read): its digest, not hashed again. Canonical JSON
 * is JSON.stringify's text of key-sorted values, and such a text parses back to a value that
 * JSON.stringify writes alike (held in test/infra/object-groups.property.test.ts).
 */
export function parsedWithDigest(o: SnapshotObject, sha256Hex: Sha256Hex, digest: string): void {
  if (digestOf(o, sha256Hex) === undefined) setDigest(o, sha256Hex, digest);
}

/** SHA-256 (hex) of an object's canonical JSON, computed once per object and hash function. */
export function objectDigest(o: SnapshotObject, sha256Hex: Sha256Hex = portableSha256Hex): string {
  return (digestOf(o, sha256Hex) ?? setDigest(o, sha256Hex, sha256Hex(objectJson(o)))).digest;
}

/** An object's line in its run (its key and digest), made once per object and hash function: a version from changes carries most objects of the one before. */
function lineOf(o: SnapshotObject, sha256Hex: Sha256Hex): string {
  const record = digestOf(o, sha256Hex) ?? setDigest(o, sha256Hex, sha256Hex(objectJson(o)));
  return (record.line ??= `${snapshotObjectKey(o)} ${record.digest}`);
}

/** Objects per run on average. */
export const RUN_SPAN = 64;

/**
 * Whether a run of objects (in key order) ends after this one: when its key hashes to 0 mod
 * RUN_SPAN. Cuts depend on keys alone (content-defined chunking), so a changed object changes
 * only its own run, and an added or deleted one at most its neighbours'. The store keeps
 * objects in these runs (its object groups).
 */
function endsRun(o: SnapshotObject): boolean {
  const f = factsOf(o);
  return (f.cut ??= fnv1a(snapshotObjectKey(o)) % RUN_SPAN === 0);
}

/** A run of objects and the SHA-256 of its lines. */
interface Run {
  readonly objects: readonly SnapshotObject[];
  readonly digest: string;
}

/** A snapshot hash with the runs it hashed: what the next version's hash starts from. */
export interface HashedObjects {
  /** The objects in key order. */
  readonly objects: readonly SnapshotObject[];
  readonly runs: readonly Run[];
  readonly hash: string;
}

const byKey = (a: SnapshotObject, b: SnapshotObject) => byText(snapshotObjectKey(a), snapshotObjectKey(b));

// The last run that ended with an object (never mutated): a version from changes carries most
// objects, and so most runs, along.
const endedRuns = new WeakMap<Sha256Hex, WeakMap<SnapshotObject, Run>>();

/**
 * Told each run the hash writes every object's canonical JSON of (a run of objects none of which
 * was hashed before), with those texts: the store keeps objects in these runs, and a whole
 * publish can encode each group from the text the hash wrote instead of writing it again.
 */
export type RunTexts = (objects: readonly SnapshotObject[], texts: readonly string[]) => void;

function runOf(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex, onTexts?: RunTexts): Run {
  let cache = endedRuns.get(sha256Hex);
  if (!cache) endedRuns.set(sha256Hex, (cache = new WeakMap()));
  const last = objects[objects.length - 1]!;
  const earlier = cache.get(last);
  if (earlier && earlier.objects.length === objects.length && earlier.objects.every((o, i) => o === objects[i])) return earlier;
  const texts = onTexts ? freshTexts(objects, sha256Hex) : null;
  const run = { objects, digest: sha256Hex(objects.map((o) => lineOf(o, sha256Hex)).join('\n')) };
  if (texts) onTexts!(objects, texts);
  cache.set(last, run);
  return run;
}

/** The run's canonical texts, their digests recorded, when no object of it has a digest yet; else null. */
function freshTexts(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex): string[] | null {
  if (objects.some((o) => digestOf(o, sha256Hex) !== undefined)) return null;
  return objects.map((o) => {
    const text = objectJson(o);
    setDigest(o, sha256Hex, sha256Hex(text));
    return text;
  });
}

/** `sha256Hex`: the portable SHA-256 by default; Node entries pass node:crypto's (same digest). */
export function snapshotHash(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  return hashObjects(objects, sha256Hex).hash;
}

/**
 * The identity of a snapshot's content: SHA-256 over the digests of its runs (objects in key
 * order, cut by endsRun), each the SHA-256 of its objects' lines (key and digest of the canonical
 * JSON). A version from changes hashes only the runs holding a changed object: from `earlier`
 * and `edits` (the sorted keys of every object added, deleted or replaced since `earlier.objects`,
 * with `objects` in key order, as a version from pod changes has them) by binary searches
 * (runsAfterEdits), and `objects` kept as given; without `edits`, when objects were only
 * replaced in place (same count, same key at every position: the cuts are where they were), by
 * a scan of references; otherwise runs ending with the same object and holding the same objects
 * are the earlier ones.
 */
export function hashObjects(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex = portableSha256Hex, earlier?: HashedObjects, edits?: readonly string[], onTexts?: RunTexts): HashedObjects {
  const reused = earlier && edits ? runsAfterEdits(objects, sha256Hex, earlier, edits) : earlier ? runsInPlace(objects, sha256Hex, earlier) : null;
  let sorted = objects;
  let runs: Run[];
  if (reused) runs = reused;
  else {
    sorted = inKeyOrder(objects) ? objects.slice() : objects.slice().sort(byKey);
    runs = cutRuns(sorted).map((objs) => runOf(objs, sha256Hex, onTexts));
  }
  return { objects: sorted, runs, hash: sha256Hex(runs.map((r) => r.digest).join('\n')) };
}

/** Objects (any order) as the runs snapshotHash cuts them into, without hashing them. */
export function objectRuns(objects: readonly SnapshotObject[]): (readonly SnapshotObject[])[] {
  return cutRuns(inKeyOrder(objects) ? objects.slice() : objects.slice().sort(byKey));
}

/** Whether objects are in key order (a version's are kept so): each key looked up once, not once per comparison side. */
function inKeyOrder(objects: readonly SnapshotObject[]): boolean {
  let previous = '';
  for (const o of objects) {
    const key = snapshotObjectKey(o);
    if (key < previous) return false;
    previous = key;
  }
  return true;
}

/** The objects from `from` to `to` (a run starts at `from`; one ends at `to`) as runs. */
function cutRuns(sorted: readonly SnapshotObject[], from = 0, to = sorted.length): SnapshotObject[][] {
  const runs: SnapshotObject[][] = [];
  let start = from;
  for (let i = from; i < to; i++) {
    if (!endsRun(sorted[i]!) && i < to - 1) continue;
    runs.push(sorted.slice(start, i + 1));
    start = i + 1;
  }
  return runs;
}

function runsInPlace(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex, earlier: HashedObjects): Run[] | null {
  if (earlier.objects.length !== objects.length) return null;
  for (let i = 0; i < objects.length; i++) {
    if (objects[i] !== earlier.objects[i] && snapshotObjectKey(objects[i]!) !== snapshotObjectKey(earlier.objects[i]!)) return null;
  }
  const runs: Run[] = [];
  let at = 0;
  for (const r of earlier.runs) {
    const end = at + r.objects.length;
    let same = true;
    for (let i = at; i < end && same; i++) same = objects[i] === earlier.objects[i];
    runs.push(same ? r : runOf(objects.slice(at, end), sha256Hex));
    at = end;
  }
  return runs;
}

/**
 * The runs of `objects` (in key order) after `edits` (sorted keys) of `earlier`: a run no edit
 * falls into holds the same objects and still ends where it did, so it is kept; the others are
 * cut again from the objects between the kept runs around them, found by binary search. A run
 * whose last object was deleted no longer ends there: it is cut again with the next one. At L a
 * 100-pod rolling update (one app's pods, neighbours in key order) cuts 7 of 2,828 runs again,
 * and the other ~180k objects are not read.
 */
function runsAfterEdits(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex, earlier: HashedObjects, edits: readonly string[]): Run[] {
  const old = earlier.runs;
  const cut = (from: number, to: number) => cutRuns(objects, from, to).map((run) => runOf(run, sha256Hex));
  if (old.length === 0) return cut(0, objects.length);
  const hit = runsHit(old, edits);
  const parts: (readonly Run[])[] = [];
  let kept = 0;
  for (let i = 0; i < hit.length; ) {
    const first = hit[i]!;
    let last = first;
    // The stretch ends after the first run from `first` whose last object is still there (the
    // others no longer end a run), or with the objects.
    let to = objects.length;
    for (; last < old.length - 1; last++) {
      const key = lastKey(old[last]!);
      const n = countUpTo(objects, key);
      if (n > 0 && snapshotObjectKey(objects[n - 1]!) === key) {
        to = n;
        break;
      }
    }
    while (i < hit.length && hit[i]! <= last) i++;
    // The run before `first` is kept (or ended a cut-again stretch): its last object is there.
    parts.push(old.slice(kept, first), cut(first === 0 ? 0 : countUpTo(objects, lastKey(old[first - 1]!)), to));
    kept = last + 1;
  }
  parts.push(old.slice(kept));
  return joinRuns(parts);
}

const lastKey = (r: Run) => snapshotObjectKey(r.objects[r.objects.length - 1]!);

/**
 * The runs edits (sorted keys) fall into, ascending, once each: the first run ending at or after
 * an edit's key, the last run for keys after its end. Each edit's is at or after the one before.
 */
function runsHit(runs: readonly Run[], edits: readonly string[]): number[] {
  const hit: number[] = [];
  let lo = 0;
  for (const key of edits) {
    let hi = runs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (lastKey(runs[mid]!) < key) lo = mid + 1;
      else hi = mid;
    }
    if (hit[hit.length - 1] !== lo) hit.push(lo);
  }
  return hit;
}

/** How many of the objects (in key order) have a key up to `key`: binary search. */
function countUpTo(objects: readonly SnapshotObject[], key: string): number {
  let [lo, hi] = [0, objects.length];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (snapshotObjectKey(objects[mid]!) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The snapshot hash as netpolc computed it before runs (SHA-256 over every object's line, in key
 * order): versions stored then carry it, and the same content sent again must still match them.
 */
export function formerSnapshotHash(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex = portableSha256Hex): string {
  const all = objects.map((o) => lineOf(o, sha256Hex));
  sortOnce(all, byText);
  return sha256Hex(all.join('\n'));
}
