// Every failure of the store reaches the API as one kind of error that names the store: a
// network error, a throttled or refused request, a full disk or unreadable files under the
// embedded store's directory. The API answers those 503 with the cause and where the store is,
// never 500 (not a bug in netpolc) and never a crash. Errors that are answers stay as they are:
// the store's own answers below.
import { LatestConditionError, StoreCorruptionError, StoreInputError, VersionConflictError, VersionIncompleteError, VersionIsLatestError, type SnapshotStore } from './types.js';

export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}

// The store's own answers (types.ts): a version conflict, an unmet condition on latest, an
// incomplete version, deleting the latest, a name it cannot key, corruption it detected.
const ANSWERS = [VersionConflictError, LatestConditionError, VersionIncompleteError, VersionIsLatestError, StoreInputError, StoreCorruptionError, StoreUnavailableError];

/** `where`: the store as the operator configured it (the embedded store's directory and DATA_DIR, a table name). */
export function guardStore<S extends SnapshotStore>(store: S, where: string): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const wrap = (e: unknown): never => {
          if (ANSWERS.some((kind) => e instanceof kind)) throw e;
          const cause = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
          throw new StoreUnavailableError(`the snapshot store failed: ${cause} (${where})`, { cause: e });
        };
        try {
          const out: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
          return out instanceof Promise ? out.catch(wrap) : out;
        } catch (e) {
          return wrap(e);
        }
      };
    },
  });
}
