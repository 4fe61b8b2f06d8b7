#!/usr/bin/env node
// Reference node agent for netpolc: keeps one node's nftables ruleset in step with the latest
// stored version of its cluster. Node 20+, no dependencies.
//
//   node agent.mjs --server https://netpolc.example --cluster prod --node "$(hostname)" \
//     --token-file /etc/netpolc/token --state-dir /var/lib/netpolc-agent [--interval 10] [--once] [--dry-run]
//
// Each poll: GET /v1/clusters/{cluster}/nodes/{node}/tables?format=nftables&since=<last version>
// with If-None-Match: <last ETag>. 304 → nothing changed for this node. 200 with
// x-netpolc-full: false → a delta (one transaction from that version's ruleset: sets and chains
// added, elements changed, chains and sets removed; if it fails, the whole script is fetched and
// applied instead). 200 otherwise → the node's complete
// `nft -f` script, which replaces table inet netpolc atomically. Either is written to a temp
// file, applied with `nft -f`, and only then is the new version and ETag recorded (temp file +
// rename), so a crash or a failed apply means the next poll applies it again.
import { execFile } from 'node:child_process';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const USAGE = `usage: agent.mjs --server URL --cluster NAME --node NAME [--token-file PATH] [--state-dir DIR]
                 [--interval SECONDS] [--max-backoff SECONDS] [--nft PATH] [--once] [--dry-run]
  token: --token-file, or the NETPOLC_TOKEN environment variable (none: the server must be anonymous)
  --once      poll once and exit: 0 applied or unchanged, 1 error
  --dry-run   print the script instead of running nft -f`;

const options = {
  server: { type: 'string' },
  cluster: { type: 'string' },
  node: { type: 'string' },
  'token-file': { type: 'string' },
  'state-dir': { type: 'string', default: './netpolc-agent-state' },
  interval: { type: 'string', default: '10' },
  'max-backoff': { type: 'string', default: '300' },
  nft: { type: 'string', default: 'nft' },
  once: { type: 'boolean', default: false },
  'dry-run': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

const log = (message) => process.stderr.write(`${new Date().toISOString()} netpolc-agent: ${message}\n`);

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
  return { ...o, interval, maxBackoff, server: o.server.replace(/\/+$/, '') };
}

async function readToken(config) {
  if (config['token-file']) return (await readFile(config['token-file'], 'utf8')).trim();
  return process.env.NETPOLC_TOKEN?.trim() || null;
}

/** {version, etag, appliedAt} of the last applied script, or null before the first. */
async function readState(path) {
  try {
    const s = JSON.parse(await readFile(path, 'utf8'));
    return typeof s?.version === 'string' && typeof s?.etag === 'string' ? s : null;
  } catch (e) {
    if (e.code === 'ENOENT') return null;
    log(`ignoring unreadable state ${path}: ${e.message}`);
    return null;
  }
}

/** Temp file + rename: a crash leaves the old file or the new one, never half of one. */
async function writeAtomically(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, path);
}

/** Whether the kernel still has netpolc's table (a `nft flush ruleset` or a reboot removes it). */
function kernelHasTable(nft) {
  return new Promise((resolve) => {
    execFile(nft, ['list', 'table', 'inet', 'netpolc'], { timeout: 30_000 }, (error) => resolve(!error));
  });
}

function runNft(nft, file) {
  return new Promise((resolve, reject) => {
    execFile(nft, ['-f', file], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${nft} -f ${file} failed: ${(stderr || error.message).trim()}`));
      else resolve();
    });
  });
}

// What the renderer emits first: a script that creates, deletes and re-creates the table in one
// transaction. Anything else (an error page, a future diff format) is never handed to nft.
const isFullScript = (text) => text.startsWith('# netpolc: nftables ruleset') && text.includes('\ndelete table inet netpolc\n');
// A delta (x-netpolc-full: false), one transaction on netpolc's own table only: a block adding
// sets and chains, element changes, and flush/delete of netpolc's chains and sets.
const DELTA_STATEMENT = /^((add|delete) element inet netpolc [\w-]+ \{[^{}]*\}|(flush|delete) (chain|set) inet netpolc [\w-]+)$/;
function isDeltaScript(text) {
  if (!text.startsWith('# netpolc: nftables delta')) return false;
  let inBlock = false;
  for (const l of text.split('\n')) {
    if (l === '' || l.startsWith('#')) continue;
    if (inBlock) inBlock = l !== '}';
    else if (l === 'table inet netpolc {') inBlock = true;
    else if (!DELTA_STATEMENT.test(l)) return false;
  }
  return !inBlock;
}

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** One poll: 'applied' | 'unchanged'; throws on anything else. `full` asks for the whole script. */
async function pollOnce(config, token, signal, full = false) {
  const statePath = join(config['state-dir'], 'state.json');
  const state = await readState(statePath);
  // The kernel, not the state file, says what is installed: without netpolc's table, a 304 or a
  // delta would leave the node with no policy until the cluster changed.
  if (state && !full && !config['dry-run'] && !(await kernelHasTable(config.nft))) {
    log(`table inet netpolc is missing from the kernel (was version ${state.version}); applying the full script`);
    full = true;
  }
  const url = new URL(`${config.server}/v1/clusters/${encodeURIComponent(config.cluster)}/nodes/${encodeURIComponent(config.node)}/tables`);
  url.searchParams.set('format', 'nftables');
  if (state && !full) url.searchParams.set('since', state.version);
  const headers = { accept: 'text/plain' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (state && !full) headers['if-none-match'] = state.etag;

  const res = await fetch(url, { headers, signal });
  const version = res.headers.get('x-netpolc-version');
  if (res.status === 304) {
    // Same tables under a newer version: remember the version, nothing to apply.
    if (state && version && version !== state.version) await writeAtomically(statePath, `${JSON.stringify({ ...state, version }, null, 2)}\n`);
    log(`unchanged (version ${version ?? state?.version})`);
    return 'unchanged';
  }
  const body = await res.text();
  if (res.status !== 200) throw new HttpError(res.status, `GET ${url.pathname} answered ${res.status}: ${body.slice(0, 300).trim()}`);
  const etag = res.headers.get('etag');
  const delta = res.headers.get('x-netpolc-full') === 'false';
  if (!version || !etag || !(delta ? isDeltaScript(body) : isFullScript(body))) throw new Error(`GET ${url.pathname} did not answer a complete nftables script or delta with a version and an ETag`);

  const scriptPath = join(config['state-dir'], delta ? 'delta.nft' : 'ruleset.nft');
  const pending = `${scriptPath}.${process.pid}.tmp`;
  await writeFile(pending, body, { mode: 0o600 });
  if (config['dry-run']) {
    process.stdout.write(`# --dry-run: would run ${config.nft} -f ${scriptPath} for version ${version}\n${body}`);
  } else {
    try {
      await runNft(config.nft, pending);
    } catch (e) {
      // A delta is one transaction: on any failure nothing changed, and the ruleset is not at the
      // version the delta starts from (a flush, a reboot): fetch and apply the whole script.
      if (!delta) throw e;
      log(`delta from version ${state?.version} failed (${e.message}); applying the full script`);
      return pollOnce(config, token, signal, true);
    }
  }
  await rename(pending, scriptPath); // the script last applied, for whoever inspects the node
  await writeAtomically(statePath, `${JSON.stringify({ version, etag, appliedAt: new Date().toISOString() }, null, 2)}\n`);
  log(`${config['dry-run'] ? 'would apply' : 'applied'} version ${version}${state ? ` (was ${state.version})` : ''}`);
  return 'applied';
}

/** Resolves after ms, or at once when the signal fires. */
const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

async function main() {
  let config;
  try {
    config = configure(process.argv.slice(2));
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  await mkdir(config['state-dir'], { recursive: true, mode: 0o700 });
  const token = await readToken(config);

  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.once(signal, () => {
      log(`${signal}: stopping`);
      stop.abort();
    });
  }

  let failures = 0;
  while (!stop.signal.aborted) {
    try {
      await pollOnce(config, token, stop.signal);
      failures = 0;
      if (config.once) return 0;
    } catch (e) {
      if (stop.signal.aborted) break;
      failures++;
      log(`error: ${e.message}`);
      if (config.once) return 1;
    }
    // Exponential backoff with full jitter after errors, so a fleet does not retry in step.
    const wait = failures === 0 ? config.interval : Math.random() * Math.min(config.maxBackoff, config.interval * 2 ** failures);
    await sleep(wait * 1000, stop.signal);
  }
  return 0;
}

process.exitCode = await main();
