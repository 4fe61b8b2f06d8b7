// The reference node agent as a child process, for the tests of both its backends: its JSON log
// lines, and a polling agent to wait on and stop.
import { spawn, type ChildProcess } from 'node:child_process';

export interface LogLine {
  time: string;
  level: string;
  event: string;
  version?: string;
  etag?: string;
  bytes?: number;
  ms?: number;
  error?: string;
  [k: string]: unknown;
}

export const parseLog = (stdout: string): LogLine[] =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine);

/** A polling agent: its log so far, a wait for a log line, its ops address, and a stop. */
export class Running {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    this.child.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get log(): LogLine[] {
    return parseLog(this.stdout.slice(0, this.stdout.lastIndexOf('\n') + 1));
  }

  /** Waits for a log line after the first `after` lines that matches. */
  async waitFor(match: (l: LogLine) => boolean, after = 0, timeoutMs = 20_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.log.slice(after).find(match);
      if (found) return found;
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`no matching log line; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  async opsBase(): Promise<string> {
    return `http://${(await this.waitFor((l) => l.event === 'metrics_listening')).addr as string}`;
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  async stop(): Promise<number | null> {
    this.child.kill('SIGTERM');
    return this.exited;
  }
}
