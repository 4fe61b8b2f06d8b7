// Seeds of property runs, and how to replay a failure. fc.assert is given its seed up front
// (PROPERTY_SEED, else the global one test/setup.ts pins in CI, else a new one), so when it
// fails the report can end with the exact command that runs the same cases again.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

/** PROPERTY_SEED when set, else a new seed: for properties that must explore on every run, CI included. */
export function freshSeed(): number {
  const pinned = process.env.PROPERTY_SEED;
  return pinned !== undefined ? Number(pinned) : Math.floor(Math.random() * 2 ** 31);
}

/**
 * How many cases a property runs: PROPERTY_RUNS when set; else `full` under `npm run test:deep`
 * (PROPERTY_DEPTH=deep, which CI runs after `npm test`), and a quarter of it (at least 25) in
 * `npm test`, so the everyday suite stays within minutes on a 2-core machine.
 */
export function propertyRuns(full: number): number {
  const set = process.env.PROPERTY_RUNS;
  if (set !== undefined) return Number(set);
  return process.env.PROPERTY_DEPTH === 'deep' ? full : Math.max(25, Math.round(full / 4));
}

/** The command that replays `seed` on one test file; run-count variables in `env` that are set are carried along. */
export function replayCommand(seed: number, testFileUrl: string, env: readonly string[] = ['PROPERTY_RUNS', 'PROPERTY_DEPTH']): string {
  const vars = env.filter((k) => process.env[k] !== undefined).map((k) => `${k}=${process.env[k]}`);
  return [`PROPERTY_SEED=${seed}`, ...vars, 'npx vitest run', relative(process.cwd(), fileURLToPath(testFileUrl))].join(' ');
}

interface ReplayOptions {
  /** import.meta.url of the test file. */
  readonly file: string;
  /** Environment variables that set the run count, carried into the replay command. */
  readonly env?: readonly string[];
}

function withReplay(e: unknown, seed: number, o: ReplayOptions): never {
  if (e instanceof Error) {
    const line = `\nReplay (seed ${seed}): ${replayCommand(seed, o.file, o.env)}`;
    e.message += line;
    if (e.stack) e.stack = e.stack.replace(/^([\s\S]*?)(\n\s+at )/, `$1${line}$2`);
  }
  throw e;
}

/** fc.assert, with the seed fixed first and the replay command added to a failure's report. */
export function assertProperty<Ts>(property: fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts> & ReplayOptions): Promise<void>;
export function assertProperty<Ts>(property: fc.IProperty<Ts>, params: fc.Parameters<Ts> & ReplayOptions): void;
export function assertProperty<Ts>(property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>, params: fc.Parameters<Ts> & ReplayOptions): void | Promise<void> {
  const { file, env, ...rest } = params;
  const seed = rest.seed ?? fc.readConfigureGlobal().seed ?? freshSeed();
  const o = { file, ...(env ? { env } : {}) };
  try {
    const run = fc.assert(property as fc.IProperty<Ts>, { ...rest, seed }) as void | Promise<void>;
    if (run instanceof Promise) return run.catch((e: unknown) => withReplay(e, seed, o));
  } catch (e) {
    withReplay(e, seed, o);
  }
}
