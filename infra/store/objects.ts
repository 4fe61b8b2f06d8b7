// A version's snapshot objects, stored as content-addressed groups shared between versions: the
// runs the snapshot hash cuts (core/snapshot/hash.ts: objects in key order, cut on keys alone),
// so a changed object changes only its own group and an added or deleted one at most its
// neighbours; a one-pod version writes one group, not the whole cluster. A version keeps only
// the list of its groups' ids.
import type { Sha256Hex } from '../../core/compile/index.js';
import { contentId } from '../../core/sets/index.js';
import { objectDigest, objectRuns, objectsJson, parsedWithDigest, type HashedObjects } from '../../core/snapshot/index.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { storedTextSync } from './blob.js';
import { fromUtf8, utf8 } from './codec.js';
import { arrayElementSpans } from './json-elements.js';
import { StoreCorruptionError, type ObjectGroupEncoder, type StoredBody } from './types.js';

// The parsed form of objects belongs to this release's schemas: a tag lets a later release that
// changes that form recognise older blobs instead of misreading them.
const OBJECTS_FORMAT = 'netpolc.parsed-objects/1';
const INDEX_FORMAT = 'netpolc.object-groups/1';

export interface ObjectGroup {
  /** `o` + 16 hex digits of SHA-256 over the digests of its objects, in order. */
  readonly id: string;
  readonly objects: readonly SnapshotObject[];
}

const groupId = (objects: readonly SnapshotObject[], sha256Hex: Sha256Hex): string => contentId('o', objects.map((o) => objectDigest(o, sha256Hex)).join('\n'), sha256Hex);

// Per parsed object (never mutated): the last group that ended with it. A version from changes
// carries most objects, and so most groups, along.
const endedGroups = new WeakMap<SnapshotObject, { readonly group: ObjectGroup; readonly sha256Hex: Sha256Hex }>();

function groupOf(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex): ObjectGroup {
  const last = objects[objects.length - 1]!;
  const earlier = endedGroups.get(last);
  if (earlier && earlier.sha256Hex === sha256Hex && earlier.group.objects.length === objects.length && earlier.group.objects.every((o, i) => o === objects[i])) return earlier.group;
  const group = { id: groupId(objects, sha256Hex), objects };
  endedGroups.set(last, { group, sha256Hex });
  return group;
}

/**
 * A version's objects as groups: the runs its snapshot hash cut them into (`hashed`), or cut
 * here the same way. A run made of the same objects as an earlier group is that group (a
 * version from changes hashes anew, and here writes, only the runs holding a changed object).
 */
export function objectGroups(objects: readonly SnapshotObject[], sha256Hex: Sha256Hex, hashed?: HashedObjects): ObjectGroup[] {
  return (hashed ? hashed.runs.map((r) => r.objects) : objectRuns(objects)).map((run) => groupOf(run, sha256Hex));
}

/** The whole-snapshot blob of versions written before groups: the same format, no id to check. */
export const decodeLegacyObjects = (bytes: Uint8Array): SnapshotObject[] => objectsOfText(fromUtf8(bytes));

function objectsOfText(text: string): SnapshotObject[] {
  const o = JSON.parse(text) as { format?: unknown; items?: unknown } | null;
  if (!o || o.format !== OBJECTS_FORMAT || !Array.isArray(o.items)) throw new StoreCorruptionError(`snapshot objects not in the ${OBJECTS_FORMAT} format`);
  return o.items as SnapshotObject[];
}

// Canonical JSON (keys sorted): a group's id hashes its objects' canonical digests, so the same
// id must always be the same bytes, whichever key order a client sent (another process may
// write the item again without reading it first).
export const encodeGroup = (g: ObjectGroup): Uint8Array => utf8(groupBody(g));

/** A group's stored text (encodeGroup's bytes, as text). */
export const groupBody = (g: ObjectGroup): string => groupText(objectsJson(g.objects));

const GROUP_HEAD = `{"format":${JSON.stringify(OBJECTS_FORMAT)},"items":`;
const groupText = (itemsJson: string) => `${GROUP_HEAD}${itemsJson}}`;

/**
 * A whole publish's object groups encoded from the canonical text the snapshot hash writes for
 * each object's digest, a run at a time: the group is then not written again from the objects
 * (at L, 111 MB of text: ~1.5 s of a publish), and what waits for the publish is its deflated
 * form (~1/8 of it), not the text. The bytes are encodeGroup's (held equal in the tests).
 */
export function objectGroupEncoder(compressSync: (bytes: Uint8Array) => Uint8Array): ObjectGroupEncoder {
  const encoded = new Map<readonly SnapshotObject[], StoredBody>();
  return {
    encoded,
    onTexts: (objects, texts) => void encoded.set(objects, storedTextSync(compressSync, groupText(`[${texts.join(',')}]`))),
  };
}

/**
 * A stored group, checked against its id: what comes back is what was hashed. The group was
 * written as its objects' canonical texts (groupBody, objectGroupEncoder), so each object's digest
 * is that of its text where it lies in the bytes, and is kept with the parsed object (a version
 * from changes on this base hashes it again otherwise). Bytes that are not laid out so (none that
 * netpolc writes) are checked as before, by writing each parsed object's canonical text again.
 */
export function decodeGroup(id: string, bytes: Uint8Array, sha256Hex: Sha256Hex): SnapshotObject[] {
  const text = fromUtf8(bytes);
  // Validated by parseSnapshot before they were stored.
  const items = objectsOfText(text);
  const spans = text.startsWith(GROUP_HEAD) ? arrayElementSpans(text, GROUP_HEAD.length) : null;
  if (spans && spans.length === 2 * items.length) {
    const digests = items.map((_, i) => sha256Hex(text.slice(spans[2 * i]!, spans[2 * i + 1]!)));
    if (contentId('o', digests.join('\n'), sha256Hex) === id) {
      items.forEach((o, i) => parsedWithDigest(o, sha256Hex, digests[i]!));
      return items;
    }
  }
  const actual = groupId(items, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`object group ${id}: stored objects hash to ${actual}`);
  return items;
}

export const encodeGroupIndex = (groups: readonly ObjectGroup[]): Uint8Array => utf8(JSON.stringify({ format: INDEX_FORMAT, groups: groups.map((g) => g.id) }));

export function decodeGroupIndex(bytes: Uint8Array): string[] {
  const o = JSON.parse(fromUtf8(bytes)) as { format?: unknown; groups?: unknown } | null;
  if (!o || o.format !== INDEX_FORMAT || !Array.isArray(o.groups) || !o.groups.every((g) => typeof g === 'string' && /^o[0-9a-f]{16}$/.test(g))) {
    throw new StoreCorruptionError(`object group index not in the ${INDEX_FORMAT} format`);
  }
  return o.groups as string[];
}
