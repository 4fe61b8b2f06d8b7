// What every stage of the shared store needs: the backend and the policies around it.
import type { ItemBackend } from './backend.js';
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/index.js';
import { DEFAULT_CHUNK_BYTES } from './blob.js';
import type { IrSet, SetIr, SetNode } from '../../core/sets/index.js';
import type { NodeDigest } from './manifest-hash.js';
import type { LayeredMap } from '../../core/layered-map.js';
import { ContentCache } from './content-cache.js';
import { streamCompression, type BlobCompression } from './compression.js';
import { OwnItemsMemo, PointerHints } from './hints.js';
import { isFresh } from './content-age.js';
import { AfterAnswer } from './after-answer.js';
import { DEFAULT_CHANGE_PACK_MIN_BODIES } from './packs.js';

export interface SnapshotStoreOptions {
  /** How long a version stays readable after it stopped being latest (default 7 days). */
  readonly retentionSeconds?: number;
  /** Chunk payload size for large tables and manifests (default 350 KiB, under DynamoDB's 400 KB item limit). */
  readonly chunkBytes?: number;
  /** Clock, milliseconds since the epoch (tests move it). */
  readonly now?: () => number;
  /** Parallel item updates when a version is retired. */
  readonly concurrency?: number;
  /** SHA-256 for checking table ids on write and read (the portable one by default; Node entries pass node:crypto's). */
  readonly sha256Hex?: Sha256Hex;
  /** Bytes (as stored) of tables and set bodies kept after reading (default 64 MiB; 0: none). */
  readonly contentCacheBytes?: number;
  /** Deflate for stored bodies (web-standard streams by default; Node entries pass zlib's, faster). */
  readonly compression?: BlobCompression;
  /** Where a failure of work done after a publish's answer is reported (after-answer.ts; console by default). */
  readonly reportError?: (e: unknown) => void;
  /** New tables and set bodies a version from changes writes one per item at most before it packs them (change-packs.ts; default 256). */
  readonly changePackMinBodies?: number;
}

const DEFAULT_CONTENT_CACHE_BYTES = 64 * 1024 * 1024;

export interface StoreContext {
  readonly backend: ItemBackend;
  readonly retentionSeconds: number;
  readonly chunkBytes: number;
  readonly concurrency: number;
  readonly nowSeconds: () => number;
  readonly nowIso: () => string;
  readonly sha256Hex: Sha256Hex;
  readonly compression: BlobCompression;
  /** See SnapshotStoreOptions.changePackMinBodies. */
  readonly changePackMinBodies: number;
  /**
   * Content-addressed keys (tables, set bodies, manifests, object groups) this process wrote or
   * found stored: they never change, so a later publish need not read them again while the
   * knowledge is fresh (content-age.ts: collect.ts removes unreferenced ones after a grace).
   * Bounded: cleared when it grows past KNOWN_KEYS.
   */
  readonly known: KnownKeys;
  /** Set bodies' content ids (codec.ts setContentId of their text), per set object, with the function that hashed them. */
  readonly contentIds: WeakMap<IrSet, { readonly sha256Hex: Sha256Hex; readonly content: string }>;
  /**
   * Node manifests' digests (manifest-hash.ts), per node object, with the set content ids (the
   * published form's map) they were made with: the next version's digest starts from them.
   */
  readonly manifests: WeakMap<object, { readonly node: SetNode; readonly digest: NodeDigest; readonly form: LayeredMap<string, string> }>;
  /**
   * Manifests this process stored, by hash: the links below each down to a whole one, and the
   * bytes of those patches (manifest-write.ts decides from them whether the next is a patch).
   */
  readonly chains: BoundedMap<string, { readonly base: readonly string[]; readonly patchBytes: number }>;
  /** Per set form this store published: what a version compiled from it starts from. */
  readonly published: WeakMap<SetIr, PublishedForm>;
  /** Tables and set bodies read, by pk (content-cache.ts). */
  readonly content: ContentCache;
  /** Each cluster's latest pointer as last seen here: the next move's first guess (hints.ts). */
  readonly pointers: PointerHints;
  /** Versions' own item keys as their publish wrote them: their retirement needs no reads (hints.ts). */
  readonly ownItems: OwnItemsMemo;
  /** Pointer moves settled after the publish answered (PublishOptions.settleLater). */
  readonly afterAnswer: AfterAnswer;
}

/** A published set form's set content ids and node manifest hashes (its items are all stored). */
export interface PublishedForm {
  readonly setContentIds: LayeredMap<string, string>;
  /** The index of the packs holding the form's tables and set bodies (packs.ts); a version from it names it too. */
  readonly packIndex?: string;
  readonly manifests: ReadonlyMap<string, string>;
  /**
   * When its version's header was written (seconds): from then on that version names every item
   * of the form, and collection keeps what a visible version names. A version from changes relies
   * on the form only while this is recent (content-age.ts KNOWN_MAX_AGE): a stream of changes
   * re-anchors it with every version, each passed version stays visible for the retention.
   */
  readonly storedAt: number;
}

const KNOWN_KEYS = 2_000_000;
/** Manifests whose chains are remembered (a few versions of every node at L). */
const MANIFEST_CHAINS = 20_000;

/** A map forgetting everything at once when full (what it holds is only a shortcut). */
export class BoundedMap<K, V> {
  private map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    if (this.map.size >= this.max) this.map = new Map();
    this.map.set(key, value);
  }
}

/**
 * Content ids per kind of item (told apart by the item key function), with when each was learnt,
 * forgetting everything at once when full (re-reading is only slower). Ids, not item keys: a
 * publish asks about every id of a version, and building each key to ask would cost more than
 * the question. Knowledge older than KNOWN_MAX_AGE_SECONDS counts as none (content-age.ts).
 */
export class KnownKeys {
  private byKind = new Map<(id: string) => string, Map<string, number>>();
  private size = 0;
  /** Known stored, learnt recently enough at `now` to be relied on. */
  has(kind: (id: string) => string, id: string, now: number): boolean {
    const at = this.byKind.get(kind)?.get(id);
    return at !== undefined && isFresh(at, now);
  }
  add(kind: (id: string) => string, id: string, at: number): void {
    if (this.size >= KNOWN_KEYS) [this.byKind, this.size] = [new Map(), 0];
    let ids = this.byKind.get(kind);
    if (!ids) this.byKind.set(kind, (ids = new Map()));
    if (!ids.has(id)) this.size++;
    ids.set(id, at);
  }
}

export const DEFAULT_RETENTION_SECONDS = 7 * 24 * 3600;

export function storeContext(backend: ItemBackend, o: SnapshotStoreOptions = {}): StoreContext {
  const now = o.now ?? Date.now;
  return {
    backend,
    retentionSeconds: o.retentionSeconds ?? DEFAULT_RETENTION_SECONDS,
    chunkBytes: o.chunkBytes ?? DEFAULT_CHUNK_BYTES,
    concurrency: o.concurrency ?? 16,
    nowSeconds: () => Math.floor(now() / 1000),
    nowIso: () => new Date(now()).toISOString(),
    sha256Hex: o.sha256Hex ?? portableSha256Hex,
    compression: o.compression ?? streamCompression,
    changePackMinBodies: o.changePackMinBodies ?? DEFAULT_CHANGE_PACK_MIN_BODIES,
    known: new KnownKeys(),
    contentIds: new WeakMap(),
    manifests: new WeakMap(),
    chains: new BoundedMap(MANIFEST_CHAINS),
    published: new WeakMap(),
    content: new ContentCache(o.contentCacheBytes ?? DEFAULT_CONTENT_CACHE_BYTES),
    pointers: new PointerHints(),
    ownItems: new OwnItemsMemo(),
    afterAnswer: new AfterAnswer(o.reportError ?? ((e) => console.error('netpolc: settling a published version after its answer failed; the next publish of the cluster finishes it:', e))),
  };
}
