// How the agent is watched: one JSON line per event on stdout, and /healthz and /metrics
// (Prometheus text format 0.0.4) on --metrics-addr.
import { createServer } from 'node:http';

const FIELDS = ['version', 'etag', 'bytes', 'ms', 'error'];

/**
 * log(level, event, fields): `{"time","level","event",…}` on one line. `secret()` names the
 * current token: should it ever appear in a message, it is replaced before the line is written.
 */
export function createLogger(out = process.stdout, secret = () => null) {
  return (level, event, fields = {}) => {
    const line = { time: new Date().toISOString(), level, event };
    for (const k of FIELDS) if (fields[k] !== undefined && fields[k] !== null) line[k] = fields[k];
    for (const [k, v] of Object.entries(fields)) if (!FIELDS.includes(k) && v !== undefined && v !== null) line[k] = v;
    let text = JSON.stringify(line);
    const token = secret();
    if (token && token.length >= 8) text = text.replaceAll(token, '[token]');
    out.write(`${text}\n`);
  };
}

const POLL_RESULTS = ['304', 'delta', 'full', 'error'];
const APPLY_KINDS = ['delta', 'full'];
const VERIFY_RESULTS = ['ok', 'missing', 'marker', 'edited'];

const label = (v) => String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
const seconds = (ms) => (ms / 1000).toFixed(3);

/** The agent's counters and times, and what /metrics and /healthz make of them. */
export class Metrics {
  constructor({ interval, startedAt = Date.now() }) {
    this.interval = interval;
    this.startedAt = startedAt;
    this.polls = Object.fromEntries(POLL_RESULTS.map((r) => [r, 0]));
    this.applyErrors = Object.fromEntries(APPLY_KINDS.map((k) => [k, 0]));
    this.verifications = Object.fromEntries(VERIFY_RESULTS.map((r) => [r, 0]));
    this.driftRepairs = 0;
    this.version = null;
    this.lastApplyAt = null;
    /** The last poll that left the kernel holding the server's latest answer (a 304, or an apply). */
    this.lastPollOkAt = null;
    this.lastVerifyOkAt = null;
    /** What the last failed poll said; cleared by a successful one. */
    this.lastPollError = null;
    /** What the last kernel check found wrong; null when it found the table as applied. */
    this.lastDrift = null;
  }

  /** Healthy while the last successful poll or kernel check is at most 3 intervals old. */
  health(now = Date.now()) {
    const last = Math.max(this.lastPollOkAt ?? -Infinity, this.lastVerifyOkAt ?? -Infinity);
    const limit = 3 * this.interval * 1000;
    if (now - last <= limit) return { ok: true, text: `ok: version ${this.version ?? 'none'}, last successful poll ${ago(this.lastPollOkAt, now)}, last kernel check ${ago(this.lastVerifyOkAt, now)}\n` };
    const since = Number.isFinite(last) ? `for ${seconds(now - last)} s` : `since the agent started ${seconds(now - this.startedAt)} s ago`;
    const kernel = this.lastDrift ?? (this.lastVerifyOkAt === null ? 'not checked' : `as applied ${ago(this.lastVerifyOkAt, now)}`);
    return { ok: false, text: `unhealthy: no successful poll or kernel check ${since} (limit: 3 intervals, ${seconds(limit)} s); last poll error: ${this.lastPollError ?? 'none'}; kernel: ${kernel}\n` };
  }

  render(now = Date.now()) {
    const out = [];
    const metric = (name, type, help, samples) => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of samples) out.push(`${name}${labels} ${value}`);
    };
    metric('netpolc_agent_applied_version_info', 'gauge', 'The cluster version whose tables the kernel holds, as the agent last applied or confirmed them.', this.version === null ? [] : [[`{version="${label(this.version)}"}`, 1]]);
    metric('netpolc_agent_last_apply_timestamp_seconds', 'gauge', 'When an apply (nft -f, or the iptables steps) last succeeded (Unix time; 0: not since the state dir was made).', [['', this.lastApplyAt === null ? 0 : seconds(this.lastApplyAt)]]);
    metric('netpolc_agent_apply_errors_total', 'counter', 'Applies the kernel refused, or did not end holding, by what was applied (a failed delta falls back to the whole artifact).', APPLY_KINDS.map((k) => [`{kind="${k}"}`, this.applyErrors[k]]));
    metric('netpolc_agent_polls_total', 'counter', 'Polls of the server, by answer: 304 (unchanged), a delta or the whole script applied, or an error.', POLL_RESULTS.map((r) => [`{result="${r}"}`, this.polls[r]]));
    metric('netpolc_agent_verifications_total', 'counter', "Checks of the kernel's table inet netpolc against what the agent applied, by result.", VERIFY_RESULTS.map((r) => [`{result="${r}"}`, this.verifications[r]]));
    metric('netpolc_agent_drift_repairs_total', 'counter', 'Whole scripts applied because the kernel did not hold what the agent had applied (table missing, another marker, edited).', [['', this.driftRepairs]]);
    metric('netpolc_agent_lag_seconds', 'gauge', "Seconds since the agent last knew the kernel held the server's latest tables for the node: since the last successful poll (or the agent's start).", [['', seconds(now - (this.lastPollOkAt ?? this.startedAt))]]);
    return `${out.join('\n')}\n`;
  }
}

function ago(at, now) {
  return at === null ? 'never' : `${seconds(now - at)} s ago`;
}

/** Serves GET /healthz and GET /metrics on host:port ([v6]:port too); resolves once listening. */
export function serveOps(addr, metrics) {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(addr);
  if (!m) throw new Error(`--metrics-addr must be HOST:PORT, not ${JSON.stringify(addr)}`);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://agent').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
    } else if (path === '/healthz') {
      const h = metrics.health();
      res.writeHead(h.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' }).end(h.text);
    } else if (path === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(metrics.render());
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: GET /healthz or /metrics\n');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(m[3]), m[1] ?? m[2], () => {
      server.off('error', reject);
      const a = server.address();
      resolve({ address: a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
