// Item keys of the single-table layout. Layout (pk / sk):
//   t#<tableId>                                   / <chunk>      content-addressed rule table, shared by all versions
//   e#<setContentId>                              / <chunk>      a set's body (definition and members), content-addressed:
//                                                                a set keeps its id when members change, its body does not
//   k#<packId>                                    / <chunk>      tables and set bodies packed ~128 to an item (packs.ts),
//                                                                content-addressed: what a whole publish writes instead of
//                                                                one t# or e# item each
//   l#<packIndexId>                               / <chunk>      which ids each pack of a whole publish holds; the header
//                                                                names it (`packIndex`), versions from changes (and whole
//                                                                publishes from a stored base: content.ts) carry it and
//                                                                write their new tables and bodies as t# and e# items, or,
//                                                                when those are many, in new packs under a new index
//                                                                (change-packs.ts)
//   g#<manifestHash>                              / <chunk>      a node's manifest (pods → table ids, set id → body id),
//                                                                content-addressed: a node nothing changed for shares it;
//                                                                stored whole, or as a patch on earlier manifests that it
//                                                                names (manifest-patch.ts): whatever removes stored content
//                                                                must keep every manifest a kept one links to
//   o#<groupId>                                   / <chunk>      a group of snapshot objects (objects.ts), content-addressed
//   x#<cluster>#<version>#<snapshotHash>#<shard>  / <chunk>      which manifest each node of a shard has in this version
//                                                                (nodes spread over ceil(nodes/64) shards by name hash,
//                                                                so an agent's poll reads one small item)
//   n#<cluster>#<version>#<snapshotHash>          / <chunk>      the version's node names (kept out of the
//                                                                header so listings and agent polls stay small)
//   s#<cluster>#<version>#<snapshotHash>          / <chunk>      the ids of the version's object groups, checked on read
//                                                                against the content hash the header records
//   m#<cluster>#<version>#<snapshotHash>#<node>   / <chunk>      (versions written before manifests were shared) one node's manifest
//   c#<cluster>                                   / v#<vkey>     version header, addressed by version (versionKey is a key,
//                                                                not an order); its presence makes the version visible;
//                                                                `seq`: the pointer move that last made it latest
//   c#<cluster>                                   / p#<seq>      order item: the version the pointer moved to at its move
//                                                                <seq> (16 digits, zero-padded); the listing reads them
//                                                                newest first and shows a version at its last move only
//   c#<cluster>                                   / latest       the pointer: the most recently published version, the
//                                                                number of its move (`seq`), the versions it replaced that
//                                                                still have to expire (`retire`), `settled` once its
//                                                                order item is written and those have their expiry
// "Latest" is publish order, never an order of versions: Kubernetes API concepts, "Resource
// versions": "Clients must not assume that resource versions are numeric or collatable" (order.ts).
// Per-version items carry the snapshot hash in their key so two racing publishes of one version
// with different content never overwrite each other's: the header decides which set is read.
// Content-addressed items (t, e, k, l, g, o) are immutable and have no TTL; every chunk of one carries
// `writtenAt` (seconds: when a publish last wrote it or relied on it, content-age.ts). A
// collection (collect.ts: POST /v1/store/collect, from a schedule, never in the request path)
// deletes those no unexpired version reads, no kept manifest links to, and nothing stamped
// within its grace (default and least 1 hour). Per-version items, the header and the version's
// order item expire together by TTL once the pointer has passed the version.
import { fnv1a } from '../../core/fnv1a.js';
import { StoreInputError } from './types.js';

export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

// Printable ASCII without '#': '#' separates key parts.
const KEY_SAFE = /^[!"$-~]+$/;
const LIMITS = { cluster: 128, version: 128, node: 253, snapshotHash: 256 } as const;

/** Why `value` cannot be a `field` of a key (null: it can). The one rule: checkName, and routes that check a name before the store is asked. */
export function nameProblem(field: keyof typeof LIMITS, value: unknown): string | null {
  if (typeof value === 'string' && value.length > 0 && value.length <= LIMITS[field] && KEY_SAFE.test(value)) return null;
  return `${field} must be 1 to ${LIMITS[field]} printable ASCII characters without '#' and spaces, got ${JSON.stringify(value)}`;
}

export function checkName(field: keyof typeof LIMITS, value: string): string {
  const problem = nameProblem(field, value);
  if (problem !== null) throw new StoreInputError(field, problem);
  return value;
}

/**
 * The header's sort key form of a version: integers by digit count then digits, anything else
 * after a '1'. Injective, and kept as earlier layouts wrote it so their headers stay addressable.
 * A key, not an order: which version is latest, and the listing, follow publish order (order.ts).
 */
export function versionKey(version: string): string {
  return /^(0|[1-9][0-9]*)$/.test(version) ? `0${String(version.length).padStart(3, '0')}${version}` : `1${version}`;
}

export const HEADER_SK_PREFIX = 'v#';
export const POINTER_SK = 'latest';
export const ORDER_SK_PREFIX = 'p#';
/** Digits of a move number in its order item's key: the string order of the keys is the numeric order. */
const SEQ_DIGITS = 16;

export const clusterPk = (cluster: string): string => `c#${cluster}`;
export const headerKey = (cluster: string, version: string): ItemKey => ({ pk: clusterPk(cluster), sk: `${HEADER_SK_PREFIX}${versionKey(version)}` });
export const pointerKey = (cluster: string): ItemKey => ({ pk: clusterPk(cluster), sk: POINTER_SK });
export const orderSk = (seq: number): string => `${ORDER_SK_PREFIX}${String(seq).padStart(SEQ_DIGITS, '0')}`;
export const orderKey = (cluster: string, seq: number): ItemKey => ({ pk: clusterPk(cluster), sk: orderSk(seq) });
export const tablePk = (id: string): string => `t#${id}`;
export const setPk = (contentId: string): string => `e#${contentId}`;
export const nodesPk = (cluster: string, version: string, snapshotHash: string): string => `n#${cluster}#${version}#${snapshotHash}`;
export const objectsPk = (cluster: string, version: string, snapshotHash: string): string => `s#${cluster}#${version}#${snapshotHash}`;
export const manifestPk = (cluster: string, version: string, snapshotHash: string, node: string): string => `m#${cluster}#${version}#${snapshotHash}#${node}`;
export const packPk = (id: string): string => `k#${id}`;
export const packIndexPk = (id: string): string => `l#${id}`;
export const manifestBodyPk = (manifestHash: string): string => `g#${manifestHash}`;
export const hashOfManifestPk = (pk: string): string => pk.slice('g#'.length);
export const objectGroupPk = (groupId: string): string => `o#${groupId}`;
export const manifestShardPk = (cluster: string, version: string, snapshotHash: string, shard: number): string => `x#${cluster}#${version}#${snapshotHash}#${shard}`;

/** Nodes per manifest shard, on average. */
const NODES_PER_SHARD = 64;
export const manifestShardCount = (nodes: number): number => Math.max(1, Math.ceil(nodes / NODES_PER_SHARD));

export const shardOf = (node: string, shards: number): number => fnv1a(node) % shards;

/** A table id as the set form makes it; anything else would not be a content address. */
export function checkTableId(id: string): string {
  if (!/^r[0-9a-f]{16}$/.test(id)) throw new StoreInputError('table', `not a table id: ${JSON.stringify(id)}`);
  return id;
}

/** A set body's content id (codec.ts setContentId). */
export function checkSetContentId(id: string): string {
  if (!/^e[0-9a-f]{16}$/.test(id)) throw new StoreInputError('set', `not a set content id: ${JSON.stringify(id)}`);
  return id;
}

/** A pack index id as a whole publish makes it (packs.ts). */
export function checkPackIndexId(id: string): string {
  if (!/^l[0-9a-f]{16}$/.test(id)) throw new StoreInputError('packIndex', `not a pack index id: ${JSON.stringify(id)}`);
  return id;
}
