// AppDeps from a platform's environment (process.env, Worker bindings): one reading of each
// setting for every adapter, and a clear error for a bad value instead of a silent default.
import type { AppDeps } from './app.js';

export type EnvSource = Readonly<Record<string, string | number | undefined>>;

function positiveInteger(name: string, value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer (bytes), got ${JSON.stringify(value)}`);
  return n;
}

export function depsFromEnv(env: EnvSource): AppDeps {
  return { maxBodyBytes: positiveInteger('MAX_BODY_BYTES', env.MAX_BODY_BYTES) };
}
