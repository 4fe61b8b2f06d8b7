// The manifests a stored manifest item names (manifest-patch.ts): a patch's `base`, every link
// down to a whole manifest; none for a whole one. A reader fetches all of them, so whatever
// removes stored content (collect.ts) keeps every manifest a kept one names, and a publish
// that builds a patch on a stored manifest names only links that manifest's item names.
import type { Item } from './backend.js';
import { chunkCount, rawBody } from './blob.js';
import type { BlobCompression } from './compression.js';
import { decodeStoredManifest } from './manifest-patch.js';

/** Fields of a head item the links are read from. */
export const LINK_ATTRIBUTES = ['chunks', 'body', 'encoding', 'rawBytes'] as const;

/** From the head item alone: a patch always fits one item, so a head with tails is whole. */
export async function linksOfHead(c: BlobCompression, head: Item): Promise<readonly string[]> {
  if (chunkCount(head) > 1 || !(head.body instanceof Uint8Array)) return [];
  const stored = decodeStoredManifest(await rawBody(c, head, head.body));
  return 'patch' in stored ? stored.patch.base : [];
}
