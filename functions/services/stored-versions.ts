// A cluster's stored versions besides publishing them: the listing, one version's header,
// removing a version, making a version latest on purpose (rollback), and collecting content no
// version reads. Each answers 503 without a store and names what it did not find with a 404.
import { VersionIncompleteError, VersionIsLatestError, type SnapshotStore } from '../../infra/store/types.js';
import type { CompiledVersions } from '../compiled-versions.js';
import { ApiError } from '../errors.js';
import type { PollIndex } from '../poll-index.js';
import { requireStore, storeErrors } from './stored-clusters.js';

const notStored = (cluster: string, version: string) => new ApiError('not_found', `version ${version} of cluster ${cluster} is not stored (or expired)`);

export class StoredVersions {
  constructor(
    private readonly store: SnapshotStore | undefined,
    /** Forgotten for a cluster on every write here: the warm compiled state and the node polls' view. */
    private readonly warm: CompiledVersions,
    private readonly polls: PollIndex | null,
  ) {}

  /** The store, or the 503 without one. */
  private need(): SnapshotStore {
    return requireStore(this.store);
  }

  /** Versions in publish order, a page at a time; an unknown cluster has none. */
  list(cluster: string, page: { readonly limit: number | undefined; readonly cursor: string | null }) {
    return storeErrors(this.need().listVersions(cluster, { ...(page.limit !== undefined ? { limit: page.limit } : {}), cursor: page.cursor }));
  }

  async header(cluster: string, version: string) {
    const header = await storeErrors(this.need().getHeader(cluster, version));
    if (!header) throw notStored(cluster, version);
    return header;
  }

  /** A version that is not latest expires at once; 409 naming it when it is latest. */
  async remove(cluster: string, version: string): Promise<void> {
    const removed = await storeErrors(this.need().deleteVersion(cluster, version)).catch((e: unknown) => {
      if (e instanceof VersionIsLatestError) throw new ApiError('conflict', e.message, undefined, { body: { latest: version } });
      throw e;
    });
    if (!removed) throw notStored(cluster, version);
    this.polls?.forget(cluster);
  }

  /** Rollback: a stored, unexpired version becomes latest; 409 naming the items that do not read back. */
  async makeLatest(cluster: string, version: string) {
    const moved = await storeErrors(this.need().setLatest(cluster, version)).catch((e: unknown) => {
      if (e instanceof VersionIncompleteError) throw new ApiError('conflict', e.message, undefined, { body: { missing: e.missing } });
      throw e;
    });
    if (!moved) throw notStored(cluster, version);
    // The warm state follows latest only through publishes: drop it rather than keep a stale guess.
    this.warm.drop(cluster);
    this.polls?.forget(cluster);
    return { cluster, latest: moved.latest, previous: moved.previous };
  }

  /** Deletes content no unexpired version reads (the whole store: every cluster's content is shared). */
  collect(graceSeconds: number | undefined) {
    return storeErrors(this.need().collect(graceSeconds === undefined ? {} : { graceSeconds }));
  }
}
