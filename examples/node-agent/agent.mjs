#!/usr/bin/env node
// Reference node agent for netpolc: keeps one node's nftables ruleset (or, with --backend
// iptables, its ipsets and iptables chains) in step with the latest stored version of its
// cluster, and checks that the kernel still holds it. Node 20+, no dependencies (kernel.mjs:
// nft; iptables.mjs and iptables-text.mjs: ipset and iptables-restore; http.mjs: the server and
// the token; ops.mjs: logs, metrics).
//
//   node agent.mjs --server https://netpolc.example --cluster prod --node "$(hostname)" \
//     --token-file /etc/netpolc/token --state-dir /var/lib/netpolc-agent [--interval 10] \
//     [--backend nftables|iptables] [--metrics-addr 127.0.0.1:9464] [--once] [--dry-run]
//
// Each poll: GET /v1/clusters/{cluster}/nodes/{node}/tables?format=<backend>&since=<last version>
// with If-None-Match: <last ETag>. 304 → nothing changed for this node. A delta (x-netpolc-full:
// false, or "full": false) → applied; if the kernel refuses it, or does not hold afterwards what
// it should, the whole artifact is fetched and applied instead. A whole artifact replaces
// netpolc's rules (nft: table inet netpolc atomically). The agent adds its marker to either
// (kernel.mjs, iptables.mjs), applies it, reads the kernel back, and only then records the
// version, ETag, marker and the digest of what it read (temp file + rename), so a crash or a
// failed apply means the next poll applies it again.
//
// Before each poll, and every interval while polls back off, it checks the kernel: netpolc's
// rules missing, another marker or another digest → the whole artifact is fetched (no since)
// and applied, and counted as a drift repair.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fetchTables, TokenSource } from './http.mjs';
import { ApplyRefused, markerOf, nftBackend } from './kernel.mjs';
import { createLogger, Metrics, serveOps } from './ops.mjs';

const USAGE = `usage: agent.mjs --server URL --cluster NAME --node NAME [--token-file PATH] [--state-dir DIR]
                 [--interval SECONDS] [--max-backoff SECONDS] [--backend nftables|iptables]
                 [--nft PATH] [--iptables NAME] [--ipset PATH] [--metrics-addr HOST:PORT]
                 [--once] [--dry-run]
  token: --token-file (read again when it changes, and after a 401), or the NETPOLC_TOKEN
         environment variable (none: the server must be anonymous)
  --backend       nftables (nft -f) or iptables (ipset, ip[6]tables-restore --noflush); --iptables
                  names the variant (iptables-legacy, iptables-nft): its -restore, -save, ip6tables'
  --metrics-addr  serve GET /healthz and GET /metrics there (off unless given)
  --once          check the kernel, poll once and exit: 0 applied or unchanged, 1 error
  --dry-run       log what it would apply; run no nft, ipset or iptables and write no file`;

const options = {
  server: { type: 'string' },
  cluster: { type: 'string' },
  node: { type: 'string' },
  'token-file': { type: 'string' },
  'state-dir': { type: 'string', default: './netpolc-agent-state' },
  interval: { type: 'string', default: '10' },
  'max-backoff': { type: 'string', default: '300' },
  backend: { type: 'string', default: 'nftables' },
  nft: { type: 'string', default: 'nft' },
  iptables: { type: 'string', default: 'iptables' },
  ipset: { type: 'string', default: 'ipset' },
  'metrics-addr': { type: 'string' },
  once: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

function configure(argv) {
  const { values: o } = parseArgs({ args: argv, options, strict: true });
  if (o.help) {
    console.log(USAGE);
    process.exit(0);
  }
  for (const name of ['server', 'cluster', 'node']) if (!o[name]) throw new Error(`--${name} is required\n${USAGE}`);
  const interval = Number(o.interval);
  const maxBackoff = Number(o['max-backoff']);
  if (!(interval > 0) || !(maxBackoff >= interval)) throw new Error('--interval must be positive and --max-backoff at least as long');
  if (!['nftables', 'iptables'].includes(o.backend)) throw new Error(`--backend is nftables or iptables, not ${o.backend}`);
  return { ...o, interval, maxBackoff, server: o.server.replace(/\/+$/, ''), dryRun: o['dry-run'], stateDir: o['state-dir'] };
}

/** Temp file + rename: a crash leaves the old file or the new one, never half of one. */
async function writeAtomically(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, path);
}

/** Resolves after ms, or at once when the signal fires. */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal.addEventListener('abort', done, { once: true });
  });

class Agent {
  /** {version, etag, marker, digest, appliedAt} of the last applied script, or null before the first. */
  state = null;

  constructor(config, backend, log, metrics, signal) {
    this.config = config;
    this.backend = backend;
    this.log = log;
    this.metrics = metrics;
    this.signal = signal;
    this.tokens = new TokenSource(config['token-file']);
    this.statePath = join(config.stateDir, 'state.json');
  }

  async loadState() {
    try {
      const s = JSON.parse(await readFile(this.statePath, 'utf8'));
      this.state = typeof s?.version === 'string' && typeof s?.etag === 'string' ? s : null;
      // Applied by the other backend (a state from before `backend` existed is nftables'): its
      // version says nothing of this backend's rules, so no delta from it.
      if (this.state && (this.state.backend ?? 'nftables') !== this.backend.name) {
        this.log('warn', 'state_ignored', { error: `${this.statePath} is the ${this.state.backend ?? 'nftables'} backend's; applying the whole ${this.backend.name} artifact` });
        this.state = null;
      }
    } catch (e) {
      if (e.code !== 'ENOENT') this.log('warn', 'state_ignored', { error: `unreadable state ${this.statePath}: ${e.message}` });
    }
    if (this.state) {
      this.metrics.version = this.state.version;
      if (this.state.appliedAt) this.metrics.lastApplyAt = Date.parse(this.state.appliedAt);
    }
  }

  /** Recorded on disk; with --dry-run only in memory, so later polls show what would change next. */
  async saveState(state) {
    if (!this.config.dryRun) await writeAtomically(this.statePath, `${JSON.stringify(state, null, 2)}\n`);
    this.state = state;
    this.metrics.version = state.version;
  }

  /** Checks the kernel against the state: null when it holds what was applied (or there is nothing to check), else the reason ('missing' | 'marker' | 'edited'). */
  async check() {
    if (this.config.dryRun || !this.state) return null;
    const r = await this.backend.verify(this.state);
    this.metrics.verifications[r.ok ? 'ok' : r.reason]++;
    this.metrics.lastDrift = r.ok ? null : r.detail;
    if (r.ok) {
      this.metrics.lastVerifyOkAt = Date.now();
      return null;
    }
    this.log('warn', 'drift', { version: this.state.version, etag: this.state.etag, reason: r.reason, error: r.detail });
    return r.reason;
  }

  /**
   * One poll: '304' | 'delta' | 'full'; throws on anything else. `drift` (the reason a check
   * found the kernel not holding what was applied) or `fallback` ask for the whole artifact.
   */
  async poll({ drift = null, fallback = false } = {}) {
    const state = this.state;
    const incremental = state !== null && drift === null && !fallback;
    const started = Date.now();
    const answer = await fetchTables({
      server: this.config.server,
      cluster: this.config.cluster,
      node: this.config.node,
      backend: this.backend,
      tokens: this.tokens,
      since: incremental ? state.version : null,
      etag: incremental ? state.etag : null,
      signal: this.signal,
      onTokenReload: (reason) => this.log('info', 'token_reloaded', { reason, file: this.config['token-file'] }),
    });
    if (answer.status === 304) {
      // Same tables under a newer version: remember the version, nothing to apply.
      if (answer.version && answer.version !== state.version) await this.saveState({ ...state, version: answer.version });
      this.log('info', 'unchanged', { version: answer.version ?? state.version, etag: state.etag, ms: Date.now() - started });
      return this.polled('304');
    }
    const { version, etag, delta, artifact } = answer;
    const kind = delta ? 'delta' : 'full';
    const marker = markerOf(etag);
    const { bytes, ...preview } = this.backend.preview(artifact, marker, delta);
    const fields = { version, etag, bytes, from: state?.version, kind, repair: drift ?? undefined };
    if (this.config.dryRun) {
      this.log('info', 'would_apply', { ...fields, ms: Date.now() - started, ...preview });
      await this.saveState({ version, etag, marker, digest: null, appliedAt: null, backend: this.backend.name });
      return this.polled(kind);
    }

    const applyStarted = Date.now();
    let digest;
    try {
      ({ digest } = await this.backend.apply(artifact, marker, delta));
    } catch (e) {
      if (!(e instanceof ApplyRefused)) throw e;
      this.metrics.applyErrors[kind]++;
      // The kernel is not at the version the delta starts from (a flush, a reboot, another
      // writer): fetch and apply the whole artifact.
      if (!delta) throw e;
      this.log('warn', 'delta_failed', { ...fields, ms: Date.now() - applyStarted, error: e.message });
      return this.poll({ drift, fallback: true });
    }
    const ms = Date.now() - applyStarted;
    const appliedAt = new Date();
    await this.saveState({ version, etag, marker, digest, appliedAt: appliedAt.toISOString(), backend: this.backend.name });
    this.metrics.lastApplyAt = appliedAt.getTime();
    this.metrics.lastDrift = null;
    if (drift !== null) this.metrics.driftRepairs++;
    this.log('info', drift !== null ? 'drift_repaired' : 'applied', { ...fields, ms, fallback: fallback || undefined });
    return this.polled(kind);
  }

  polled(result) {
    this.metrics.polls[result]++;
    this.metrics.lastPollOkAt = Date.now();
    this.metrics.lastPollError = null;
    return result;
  }

  /** One poll, the whole script when the check before it found drift; logs and counts an error. Returns false on one. */
  async cycle(drift) {
    try {
      await this.poll({ drift });
      return true;
    } catch (e) {
      if (this.signal.aborted) return true;
      // fetch's own message is "fetch failed"; the cause says what (ECONNREFUSED, a TLS error).
      const error = e.cause?.message ? `${e.message}: ${e.cause.message}` : e.message;
      this.metrics.polls.error++;
      this.metrics.lastPollError = error;
      this.log('error', 'poll_failed', { version: this.state?.version, status: e.status, error });
      return false;
    }
  }
}

async function main() {
  let config;
  try {
    config = configure(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  const stop = new AbortController();
  let agent = null;
  const log = createLogger(process.stdout, () => agent?.tokens.current);
  const metrics = new Metrics({ interval: config.interval });
  let backend;
  try {
    // Loaded only when asked for: an nftables deployment ships the four files it always had.
    backend = config.backend === 'iptables' ? (await import('./iptables.mjs')).iptablesBackend({ ...config, log: (...a) => log(...a) }) : nftBackend(config);
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  agent = new Agent(config, backend, log, metrics, stop.signal);
  if (!config.dryRun) await mkdir(config.stateDir, { recursive: true, mode: 0o700 });
  await agent.loadState();

  let ops = null;
  if (config['metrics-addr']) {
    try {
      ops = await serveOps(config['metrics-addr'], metrics);
    } catch (e) {
      log('error', 'metrics_failed', { error: `cannot serve on --metrics-addr ${config['metrics-addr']}: ${e.message}` });
      return 2;
    }
    log('info', 'metrics_listening', { addr: ops.address });
  }
  log('info', 'started', { version: agent.state?.version, etag: agent.state?.etag, server: config.server, cluster: config.cluster, node: config.node, backend: backend.name, interval: config.interval, dryRun: config.dryRun || undefined });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      log('info', 'stopping', { signal });
      stop.abort();
    });
  }

  let failures = 0;
  let drift = null; // the reason the last check found the kernel not holding what was applied
  let nextPoll = Date.now();
  let nextCheck = nextPoll;
  try {
    while (!stop.signal.aborted) {
      const pollDue = Date.now() >= nextPoll;
      if (pollDue || Date.now() >= nextCheck) {
        try {
          drift = await agent.check();
        } catch (e) {
          log('error', 'check_failed', { error: e.message });
        }
      }
      if (pollDue) {
        const ok = await agent.cycle(drift);
        failures = ok ? 0 : failures + 1;
        if (config.once) return ok ? 0 : 1;
        // Exponential backoff with full jitter after errors, so a fleet does not retry in step.
        const wait = failures === 0 ? config.interval : Math.random() * Math.min(config.maxBackoff, config.interval * 2 ** failures);
        nextPoll = Date.now() + wait * 1000;
      }
      // The next check comes with the next poll, or an interval from now while polls back off.
      nextCheck = Math.min(nextPoll, Date.now() + config.interval * 1000);
      await sleep(nextCheck - Date.now(), stop.signal);
    }
    return 0;
  } finally {
    await ops?.close();
  }
}

process.exitCode = await main();
