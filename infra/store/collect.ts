// Collection of content-addressed items (t#, e#, k#, l#, g#, o#) no live version reads, so storage
// follows the versions kept, not every version ever published. Run on purpose (the admin route
// POST /v1/store/collect, a schedule), never in the request path: it scans the whole table.
//
// Mark: every header of every cluster (c# partitions) that has not expired, latest or not, and
// those expired less than the grace ago (a rollback that read its header before it expired
// still finds its items), and every content item each reads (needed.ts). Sweep: every content
// head (one scan); kept are the marked ones, those stamped (`writtenAt`) within the grace, and
// every manifest a kept one names as a link (manifest-links.ts); of the rest, an item is
// deleted only after every other candidate naming it as a link is, with the condition that its
// stamp is still older than the grace (a publish that stamped it meanwhile wins), then its
// chunks under the same condition (a publish writing it again stamps new ones).
//
// Why a concurrent publish never loses an item (content-age.ts has the numbers): a publish
// relies on a content item only if it wrote it, found it stored (stamping it again when its
// stamp is older than REFRESH_AGE), learnt either less than KNOWN_MAX_AGE ago, or the version
// it starts from names it and was stored less than KNOWN_MAX_AGE ago (then that version, or
// the one before it in the same stream of changes, was stored before the mark and is still
// visible: passed versions stay for the retention, so the mark keeps the item); a patch it
// builds names only the links of a manifest it relies on (which exist while that manifest
// does: the sweep keeps a kept manifest's links and deletes links only after their referrers).
// So when its header is written at h, every item it names is stamped at or after
// h − LONGEST_PUBLISH − KNOWN_MAX_AGE − REFRESH_AGE ≥ h − grace. A collection that marked
// before h deletes only items stamped before its start − grace ≤ h − grace: none of those. One
// that marks after h finds the header. Clocks of publishers and collectors are assumed to
// agree within a small part of the grace's margin.
import { TTL_ATTRIBUTE, type Item } from './backend.js';
import { HEAD_SK } from './blob.js';
import { mapLimit } from './concurrency.js';
import { DEFAULT_GRACE_SECONDS, MIN_GRACE_SECONDS, stampOf, WRITTEN_AT } from './content-age.js';
import type { StoreContext } from './context.js';
import { headerKey, HEADER_SK_PREFIX } from './keys.js';
import { LINK_ATTRIBUTES, linksOfHead } from './manifest-links.js';
import { versionNeeds } from './needed.js';
import { StoreCorruptionError, StoreInputError, type CollectOptions, type CollectResult } from './types.js';

const CONTENT_PREFIXES = ['t#', 'e#', 'k#', 'l#', 'o#'] as const;
const MANIFEST_PREFIX = 'g#';
const DEFAULT_PAGE = 1000;
const HEADER_ATTRIBUTES = ['version', 'snapshotHash', 'manifestShards', 'objectsHash', 'packIndex', TTL_ATTRIBUTE];

export async function collect(ctx: StoreContext, opts: CollectOptions = {}): Promise<CollectResult> {
  const grace = opts.graceSeconds ?? DEFAULT_GRACE_SECONDS;
  if (!Number.isSafeInteger(grace) || grace < MIN_GRACE_SECONDS) throw new StoreInputError('grace', `the grace must be a whole number of seconds, at least ${MIN_GRACE_SECONDS}, got ${JSON.stringify(grace)}`);
  const page = opts.pageSize ?? DEFAULT_PAGE;
  const start = ctx.nowSeconds();
  const cutoff = start - grace;
  const { marked, versions } = await mark(ctx, start - grace, page);
  const heads = await sweepHeads(ctx, page);
  const kept = new Set<string>();
  let keptYoung = 0;
  const keep = (pk: string) => {
    const todo = [pk];
    for (let at = todo.pop(); at !== undefined; at = todo.pop()) {
      if (kept.has(at)) continue;
      kept.add(at);
      todo.push(...(heads.get(at)?.links ?? []));
    }
  };
  for (const [pk, h] of heads) {
    if (marked.has(pk)) keep(pk);
    else if (h.stamp >= cutoff) [keep(pk), keptYoung++];
  }
  const keptMarked = [...heads.keys()].filter((pk) => marked.has(pk)).length;
  const swept = await sweep(ctx, heads, kept, cutoff);
  return {
    versions,
    marked: marked.size,
    scanned: heads.size,
    deleted: swept.deleted,
    bytesFreed: swept.bytes,
    keptMarked,
    keptYoung,
    keptLinked: [...kept].filter((pk) => heads.has(pk) && !marked.has(pk) && heads.get(pk)!.stamp < cutoff).length,
    raced: swept.raced,
    graceSeconds: grace,
    cutoff: new Date(cutoff * 1000).toISOString(),
  };
}

/** Every page of a scan. */
async function* scanAll(ctx: StoreContext, o: { pkPrefixes: readonly string[]; sk?: string; attributes: readonly string[]; limit: number }): AsyncGenerator<readonly Item[]> {
  let startAfter = null;
  do {
    const res = await ctx.backend.scanPage({ ...o, startAfter });
    yield res.items;
    startAfter = res.last;
  } while (startAfter !== null);
}

/** The content items of every version not expired before `since` (seconds). */
async function mark(ctx: StoreContext, since: number, limit: number): Promise<{ marked: Set<string>; versions: number }> {
  const marked = new Set<string>();
  let versions = 0;
  for await (const items of scanAll(ctx, { pkPrefixes: ['c#'], attributes: HEADER_ATTRIBUTES, limit })) {
    const headers = items.filter((h) => h.sk.startsWith(HEADER_SK_PREFIX) && !(typeof h[TTL_ATTRIBUTE] === 'number' && h[TTL_ATTRIBUTE] <= since));
    await mapLimit(headers, ctx.concurrency, async (h) => {
      const cluster = h.pk.slice('c#'.length);
      const version = String(h.version);
      const needs = await versionNeeds(ctx, cluster, version, h);
      if (needs.unreadable.length > 0 && (await stillVisible(ctx, cluster, version, h))) {
        // What it names cannot all be known: nothing is removed until the version is repaired or deleted.
        throw new StoreCorruptionError(`collect stopped: version ${version} of cluster ${cluster} does not read back (${needs.unreadable.slice(0, 3).join(', ')})`);
      }
      for (const pk of needs.shared) marked.add(pk);
      for (const own of needs.packed.values()) for (const pk of own) marked.add(pk);
      versions++;
    });
  }
  return { marked, versions };
}

/** A header read back unchanged and unexpired: its own items expire with it, so only a visible one must read back. */
async function stillVisible(ctx: StoreContext, cluster: string, version: string, seen: Item): Promise<boolean> {
  const now = await ctx.backend.getItem(headerKey(cluster, version));
  if (!now || now.snapshotHash !== seen.snapshotHash) return false;
  const at = now[TTL_ATTRIBUTE];
  return !(typeof at === 'number' && at <= ctx.nowSeconds());
}

interface Head {
  readonly stamp: number;
  readonly links: readonly string[];
}

/** Every content head: its stamp, and for manifests the manifests it names. */
async function sweepHeads(ctx: StoreContext, limit: number): Promise<Map<string, Head>> {
  const heads = new Map<string, Head>();
  for await (const items of scanAll(ctx, { pkPrefixes: CONTENT_PREFIXES, sk: HEAD_SK, attributes: [WRITTEN_AT], limit })) {
    for (const h of items) heads.set(h.pk, { stamp: stampOf(h), links: [] });
  }
  for await (const items of scanAll(ctx, { pkPrefixes: [MANIFEST_PREFIX], sk: HEAD_SK, attributes: [WRITTEN_AT, ...LINK_ATTRIBUTES], limit })) {
    await Promise.all(items.map(async (h) => heads.set(h.pk, { stamp: stampOf(h), links: (await linksOfHead(ctx.compression, h)).map((hash) => `${MANIFEST_PREFIX}${hash}`) })));
  }
  return heads;
}

const bodyBytes = (item: Item): number => (item.body instanceof Uint8Array ? item.body.length : 0);

/**
 * Deletes the heads not kept, referrers first: a manifest only once every candidate naming it is
 * deleted (one whose delete lost to a publish keeps what it names), then each one's chunks.
 */
async function sweep(ctx: StoreContext, heads: ReadonlyMap<string, Head>, kept: ReadonlySet<string>, cutoff: number): Promise<{ deleted: number; bytes: number; raced: number }> {
  const candidates = [...heads.keys()].filter((pk) => !kept.has(pk));
  const referrers = new Map<string, number>(candidates.map((pk) => [pk, 0]));
  for (const pk of candidates) for (const link of heads.get(pk)!.links) if (referrers.has(link)) referrers.set(link, referrers.get(link)! + 1);
  const old = { attribute: WRITTEN_AT, absentOrBelow: cutoff };
  let [deleted, bytes, raced] = [0, 0, 0];
  let wave = candidates.filter((pk) => referrers.get(pk) === 0);
  while (wave.length > 0) {
    const next: string[] = [];
    await mapLimit(wave, ctx.concurrency, async (pk) => {
      const head = await ctx.backend.deleteIf({ pk, sk: HEAD_SK }, old);
      if (!head) {
        raced++;
        return;
      }
      deleted++;
      bytes += bodyBytes(head);
      const tails = Array.from({ length: (typeof head.chunks === 'number' ? head.chunks : 1) - 1 }, (_, i) => ({ pk, sk: String(i + 1) }));
      for (const tail of await mapLimit(tails, ctx.concurrency, (k) => ctx.backend.deleteIf(k, old))) if (tail) bytes += bodyBytes(tail);
      for (const link of heads.get(pk)!.links) {
        const left = referrers.get(link);
        if (left === undefined) continue;
        referrers.set(link, left - 1);
        if (left === 1) next.push(link);
      }
    });
    wave = next;
  }
  return { deleted, bytes, raced };
}
