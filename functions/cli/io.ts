// What every command shares: the process's streams, and the errors that end a command with
// exit code 2 (bad usage, bad input) rather than a crash.
export interface Io {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
  readonly stdin: () => string;
  /** Options every command takes about its input (main reads them): `--exclude GLOB`, `--keep-going`. */
  readonly input?: InputOptions;
}

export interface InputOptions {
  readonly exclude: readonly string[];
  readonly keepGoing: boolean;
}

/** Bad input (unreadable, invalid, empty): printed with where it is, exit 2. */
export class InputError extends Error {}

/** Bad arguments: printed with the usage text, exit 2. */
export class UsageError extends Error {}

/**
 * JSON.stringify(record, null, 2) and a newline, written entry by entry: the same bytes, but no
 * one string holds them all (a runtime's longest string is ~512 MiB; every node's nftables or
 * flat tables of a large cluster are more).
 */
export function outPrettyRecord(io: Pick<Io, 'out'>, record: Readonly<Record<string, unknown>>): void {
  const keys = Object.keys(record);
  if (keys.length === 0) return io.out(JSON.stringify(record, null, 2));
  io.out('{');
  keys.forEach((key, i) => {
    // The entry as the whole would print it: `{\n  "key": …\n}` without its braces.
    const entry = JSON.stringify({ [key]: record[key] }, null, 2);
    io.out(`${entry.slice(2, -2)}${i < keys.length - 1 ? ',' : ''}`);
  });
  io.out('}');
}

export type OutputFormat = 'text' | 'json' | 'markdown';

export function outputFormat(value: string | undefined): OutputFormat {
  const v = value ?? 'text';
  if (v !== 'text' && v !== 'json' && v !== 'markdown') throw new UsageError(`--output must be text, json or markdown, not "${v}"`);
  return v;
}

export type Command = (args: string[], io: Io) => number;
