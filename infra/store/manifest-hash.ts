// A node manifest's content hash: its ETag and the key it is stored under. It is made of parts,
// a digest of the node's addresses, bindings and table list and one digest per bucket of its set
// entries (a set goes to the bucket its id hashes to), hashed together: a Merkle tree of depth
// two over SHA-256, as collision-resistant as hashing the manifest text. (A sum of per-set
// digests would update as cheaply, but sums can be made to collide.)
//
// Why parts: a rolling update changes the members of a few sets that most nodes use, so at L
// ~10³ nodes get a new manifest of ~400 KB naming ~10³ sets. Hashing each whole (or building its
// text) costed ~1.5 s; from the node's digest in the version before, only the buckets holding
// a set with a new body are hashed again (manifest-write.ts).
import type { Sha256Hex } from '../../core/compile/index.js';
import { fnv1a } from '../../core/fnv1a.js';
import type { SetNode, SetPod } from '../../core/sets/index.js';
import type { Lookup } from '../../core/layered-map.js';
import { byText, includesSorted, sortOnce } from '../../core/sorted.js';
import { contentHashOfText, manifestText, type Manifest } from './codec.js';

/** Buckets of set entries: a node naming ~4,000 sets has ~16 per bucket. */
export const SET_BUCKETS = 256;

export interface ManifestDigest {
  /** `h` + 32 hex digits: the manifest's content hash. */
  readonly hash: string;
  /** Digest of the addresses, bindings and tables. */
  readonly rest: string;
  /** Per bucket, the digest of its set entries in id order; '' for an empty bucket. */
  readonly buckets: readonly string[];
  /** Characters of the manifest's text (codec.ts nodeManifestText): what a patch is weighed against. */
  readonly size: number;
}

export const bucketOf = (setId: string): number => fnv1a(setId) % SET_BUCKETS;

const entryText = (id: string, contentId: string): string => `${JSON.stringify(id)}:${JSON.stringify(contentId)}`;
const podText = (key: string, p: SetPod): string => `${JSON.stringify(key)}:{"ips":${JSON.stringify(p.ips)},"ingress":${JSON.stringify(p.ingress)},"egress":${JSON.stringify(p.egress)}}`;

/** The text of everything but the sets, as the manifest text writes it around them. */
function restText(addresses: readonly string[], pods: readonly string[], tables: readonly string[]): string {
  return `{"addresses":${JSON.stringify(addresses)},"pods":{${pods.join(',')}},"tables":${JSON.stringify(tables)}}`;
}

/** `{"addresses":…,"pods":{…},"sets":{`, `},"tables":` and `}` around the parts. */
const FRAME = '{"addresses":,"pods":{},"sets":{},"tables":}'.length - '{"addresses":,"pods":{},"tables":}'.length;

// Parts keep 128 bits of their SHA-256, as the hash itself does.
const part = (text: string, sha256Hex: Sha256Hex): string => sha256Hex(text).slice(0, 32);

function digestOf(rest: string, restLength: number, buckets: readonly string[], lengths: readonly number[], entries: number, sha256Hex: Sha256Hex): ManifestDigest {
  const setsLength = lengths.reduce((n, l) => n + l, 0) + Math.max(0, entries - 1);
  return { hash: `h${sha256Hex(`${rest}\n${buckets.join('\n')}`).slice(0, 32)}`, rest, buckets, size: restLength + FRAME + setsLength };
}

/** The digest of a stored manifest (a reader checks what it read against the hash it is stored under). */
export function manifestDigest(m: Manifest, sha256Hex: Sha256Hex): ManifestDigest {
  const node: SetNode = { addresses: m.addresses, pods: m.pods, sets: Object.keys(m.sets), tables: m.tables };
  const { hash, rest, buckets, size } = nodeDigest(node, { get: (id) => m.sets[id] }, sha256Hex);
  return { hash, rest, buckets, size };
}

/**
 * Whether a manifest read is the one `hash` names: by its digest, or by the hash of its text
 * (how an earlier netpolc named manifests; versions it stored read on).
 */
export function isManifestOf(hash: string, m: Manifest, sha256Hex: Sha256Hex): boolean {
  return manifestDigest(m, sha256Hex).hash === hash || contentHashOfText(manifestText(m), sha256Hex) === hash;
}

/** What a node's digest in the version before may give the next one. */
export interface EarlierDigest {
  readonly node: SetNode;
  readonly digest: NodeDigest;
  /** Sorted ids of the sets whose bodies may differ from the ones that digest hashed. */
  readonly changed: readonly string[];
}

/** A node's sorted set ids by bucket: positions in `ids`, bucket b's from starts[b] to starts[b + 1]. */
interface Layout {
  readonly ids: readonly string[];
  readonly starts: Int32Array;
  readonly positions: Int32Array;
}

/** A publish's digest of a node, with what the next version's digest of it starts from. */
export interface NodeDigest extends ManifestDigest {
  readonly restLength: number;
  readonly lengths: readonly number[];
  readonly layout: Layout;
}

/**
 * The digest of the manifest a publish writes for `node` (codec.ts manifestOf), from scratch or
 * from `earlier`: its rest when the node is the same object, and each bucket that holds the same
 * sets as before, none of them with a new body. `entries`: set entry texts by id, shared by the
 * nodes of one version (a set's entry is the same in every node that names it).
 */
export function nodeDigest(node: SetNode, contentIds: Pick<Lookup<string, string>, 'get'>, sha256Hex: Sha256Hex, earlier?: EarlierDigest, entries: Map<string, string> = new Map()): NodeDigest {
  let rest: string;
  let restLength: number;
  if (earlier && earlier.node === node) [rest, restLength] = [earlier.digest.rest, earlier.digest.restLength];
  else {
    const text = restText(node.addresses, sortOnce(Object.keys(node.pods), byText).map((k) => podText(k, node.pods[k]!)), sortOnce([...node.tables], byText));
    [rest, restLength] = [part(text, sha256Hex), text.length];
  }
  const sameArray = earlier !== undefined && earlier.node.sets === node.sets;
  const layout = sameArray ? earlier.digest.layout : layoutOf(inOrder(node.sets));
  const { ids } = layout;
  const before = earlier?.digest.layout;
  const buckets = earlier ? [...earlier.digest.buckets] : [];
  const lengths = earlier ? [...earlier.digest.lengths] : [];
  const dirty = new Set<number>();
  if (earlier) for (const id of earlier.changed) if (includesSorted(ids, id)) dirty.add(bucketOf(id));
  const hash = (b: number) => {
    const [from, to] = [layout.starts[b]!, layout.starts[b + 1]!];
    let joined = '';
    for (let i = from; i < to; i++) {
      const id = ids[layout.positions[i]!]!;
      let text = entries.get(id);
      if (text === undefined) {
        const content = contentIds.get(id);
        text = entryText(id, content!);
        // Only an entry with a content id is one the manifest text writes (codec.ts nodeManifestText).
        if (content !== undefined) entries.set(id, text);
      }
      joined += i === from ? text : `,${text}`;
    }
    buckets[b] = to > from ? part(joined, sha256Hex) : '';
    lengths[b] = joined.length - Math.max(0, to - from - 1);
  };
  // The same sets: only buckets with a new body. Otherwise also those whose sets differ (a
  // touched node's list is mostly the same list made again).
  if (sameArray) for (const b of dirty) hash(b);
  else for (let b = 0; b < SET_BUCKETS; b++) if (!before || dirty.has(b) || !sameBucket(b, layout, before)) hash(b);
  return { ...digestOf(rest, restLength, buckets, lengths, ids.length, sha256Hex), restLength, lengths, layout };
}

function sameBucket(b: number, layout: Layout, before: Layout): boolean {
  const [from, to, fromBefore] = [layout.starts[b]!, layout.starts[b + 1]!, before.starts[b]!];
  if (to - from !== before.starts[b + 1]! - fromBefore) return false;
  for (let i = 0; i < to - from; i++) if (layout.ids[layout.positions[from + i]!] !== before.ids[before.positions[fromBefore + i]!]) return false;
  return true;
}

/** Sorted ids as they are (a compiled node's are), or a sorted copy. */
function inOrder(ids: readonly string[]): readonly string[] {
  for (let i = 1; i < ids.length; i++) if (ids[i - 1]! > ids[i]!) return [...ids].sort(byText);
  return ids;
}

/** Positions of sorted ids grouped by bucket, in id order within each. */
function layoutOf(ids: readonly string[]): Layout {
  const starts = new Int32Array(SET_BUCKETS + 1);
  const bucket = new Uint8Array(ids.length);
  ids.forEach((id, i) => starts[(bucket[i] = bucketOf(id)) + 1]!++);
  for (let b = 0; b < SET_BUCKETS; b++) starts[b + 1]! += starts[b]!;
  const next = starts.slice(0, SET_BUCKETS);
  const positions = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) positions[next[bucket[i]!]!++] = i;
  return { ids, starts, positions };
}
