// How old content-addressed items (t#, e#, g#, o#) may be before a publish must not rely on them
// without writing them again, and how long collect.ts leaves unreferenced ones alone. Every
// write of such an item stamps `writtenAt` (seconds) on all its chunks; a publish that finds
// one stored with an old stamp refreshes it before its header is written, and trusts what it
// learned earlier (context.ts `known`, a published form) only for KNOWN_MAX_AGE_SECONDS. So an
// item a publish relies on has a stamp at most KNOWN_MAX_AGE + LONGEST_PUBLISH + REFRESH_AGE
// old when the header naming it is written, and a collection whose grace is at least that
// never deletes it (collect.ts states the argument in full).
import type { Item } from './backend.js';

export const WRITTEN_AT = 'writtenAt';

/** What this process learnt about stored content (written, or found stored) is trusted this long. */
export const KNOWN_MAX_AGE_SECONDS = 10 * 60;
/** A stored item found with a stamp older than this is stamped again before a publish relies on it. */
export const REFRESH_AGE_SECONDS = 30 * 60;
/** A publish takes at most this long from reading what is stored to writing its header (L: ~2 minutes). */
export const LONGEST_PUBLISH_SECONDS = 20 * 60;
/** The shortest grace collect accepts: the oldest stamp a header being written can rely on. */
export const MIN_GRACE_SECONDS = KNOWN_MAX_AGE_SECONDS + LONGEST_PUBLISH_SECONDS + REFRESH_AGE_SECONDS;
export const DEFAULT_GRACE_SECONDS = 60 * 60;

/** Learnt at `at` (seconds) and still to be trusted at `now`. */
export const isFresh = (at: number, now: number): boolean => now - at < KNOWN_MAX_AGE_SECONDS;

/** A stored head without a stamp (written before stamps) counts as old. */
export const stampOf = (item: Item): number => (typeof item[WRITTEN_AT] === 'number' ? item[WRITTEN_AT] : 0);

export const needsRefresh = (head: Item, now: number): boolean => stampOf(head) < now - REFRESH_AGE_SECONDS;
