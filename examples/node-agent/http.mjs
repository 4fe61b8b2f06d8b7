// What the agent asks the server, and with which token.
import { readFile, stat } from 'node:fs/promises';

export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * The bearer token: --token-file, read again whenever the file changes (mtime, size or inode: a
 * rotated Kubernetes Secret swaps a symlink), or NETPOLC_TOKEN, or none.
 */
export class TokenSource {
  #file;
  #token = null;
  #seen = null;

  constructor(file, env = process.env.NETPOLC_TOKEN) {
    this.#file = file ?? null;
    if (!this.#file) this.#token = env?.trim() || null;
  }

  /** The current token; `force` reads the file even when it looks unchanged. Returns [token, reloaded]. */
  async get(force = false) {
    if (!this.#file) return [this.#token, false];
    const s = await stat(this.#file);
    const seen = `${s.mtimeMs}:${s.size}:${s.ino}`;
    if (!force && seen === this.#seen) return [this.#token, false];
    const before = this.#token;
    this.#token = (await readFile(this.#file, 'utf8')).trim() || null;
    const first = this.#seen === null;
    this.#seen = seen;
    return [this.#token, !first && this.#token !== before];
  }

  /** The token as last read, for keeping it out of logs. */
  get current() {
    return this.#token;
  }
}

/**
 * GET the node's tables in the backend's format (nftables: a script; iptables: the JSON
 * artifact): with `since` (and its ETag) a 304 or a delta or the whole artifact, without it the
 * whole artifact. Returns {status: 304, version} or {status: 200, version, etag, delta, artifact};
 * throws HttpError on other statuses, Error on a body the backend's `parse` does not accept.
 * A 401 reads the token again (the file may have just been rotated) and retries once.
 */
export async function fetchTables({ server, cluster, node, backend, tokens, since, etag, signal, onTokenReload }) {
  const url = new URL(`${server}/v1/clusters/${encodeURIComponent(cluster)}/nodes/${encodeURIComponent(node)}/tables`);
  url.searchParams.set('format', backend.name);
  if (since) url.searchParams.set('since', since);
  const attempt = async (force) => {
    const [token, reloaded] = await tokens.get(force);
    if (reloaded || force) onTokenReload?.(force ? 'the server answered 401' : 'the token file changed');
    const headers = { accept: backend.accept };
    if (token) headers.authorization = `Bearer ${token}`;
    if (since && etag) headers['if-none-match'] = etag;
    // Stopped by the agent's signal or after 60 s; the listener goes with the request.
    const request = new AbortController();
    const abort = () => request.abort(signal.reason);
    const timer = setTimeout(() => request.abort(new Error(`GET ${url.pathname}: no answer in 60 s`)), 60_000);
    signal.addEventListener('abort', abort, { once: true });
    try {
      const res = await fetch(url, { headers, signal: request.signal });
      return { res, body: res.status === 304 ? '' : await res.text() };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
    }
  };
  let { res, body } = await attempt(false);
  if (res.status === 401) ({ res, body } = await attempt(true));
  const version = res.headers.get('x-netpolc-version');
  if (res.status === 304) return { status: 304, version };
  if (res.status !== 200) throw new HttpError(res.status, `GET ${url.pathname} answered ${res.status}: ${body.slice(0, 300).trim()}`);
  const tag = res.headers.get('etag');
  const parsed = version && tag ? backend.parse(body, res.headers) : null;
  if (!parsed) throw new Error(`GET ${url.pathname} did not answer a complete ${backend.name} ${backend.name === 'nftables' ? 'script' : 'artifact'} or delta with a version and an ETag`);
  return { status: 200, version, etag: tag, ...parsed };
}
