// Small async helpers shared by the store and its backends.

/** Runs fn over items with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}

export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface BackoffOptions {
  /** First delay; doubles per attempt (full jitter), capped at maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** Attempts without progress before giving up. */
  readonly maxAttempts: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseDelayMs: 50, maxDelayMs: 5_000, maxAttempts: 10 };

/** "Full jitter" exponential backoff: spreads retries of many callers hitting the same throttle. */
export const backoffDelay = (attempt: number, o: BackoffOptions): number => Math.random() * Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** attempt);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
