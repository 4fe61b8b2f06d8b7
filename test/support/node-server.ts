// The Node server (npm start's entry) as a real process, for tests that need its threads,
// signals and start-up checks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
const ENTRY = join(ROOT, 'functions', 'adapters', 'node.ts');
const BASE_ENV = { PATH: process.env.PATH, HOME: process.env.HOME, STORE: 'memory', PORT: '0' };

export interface Exited {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the server until it exits by itself (bad configuration). */
export function runToExit(env: Record<string, string | undefined>): Exited {
  const r = spawnSync(process.execPath, ['--import', 'tsx', ENTRY], { cwd: ROOT, env: { ...BASE_ENV, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RunningServer {
  readonly url: string;
  readonly child: ChildProcess;
  readonly log: () => string;
  /** Resolves to the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Starts the server and waits for its start-up lines. */
export async function startServer(env: Record<string, string | undefined>): Promise<RunningServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], { cwd: ROOT, env: { ...BASE_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!/access: .*\n/.test(log)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: /listening on (http:\/\/\S+?:\d+)/.exec(log)![1]!, child, log: () => log, exited };
}

/**
 * Starts the server, hands over its URL and a reader of its log so far, then stops it with
 * SIGTERM; resolves to its exit code.
 */
export async function withServer(env: Record<string, string | undefined>, use: (url: string, log: () => string) => Promise<void>): Promise<number | null> {
  const server = await startServer(env);
  try {
    await use(server.url, server.log);
  } finally {
    server.child.kill('SIGTERM');
  }
  return server.exited;
}
