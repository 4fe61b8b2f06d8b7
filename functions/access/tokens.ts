// Access tokens for /v1/clusters/*: NETPOLC_TOKENS holds SHA-256 hashes of tokens with their
// scopes, never tokens. Entries are separated by whitespace (spaces, newlines) or ';':
//
//   <sha256 hex of the token>:<write|read>:cluster=<name|*>[,node=<name>]
//
//   write:cluster=prod            store snapshots of prod, and read everything of prod
//   read:cluster=prod             read everything of prod (versions, node tables, verdicts, ask)
//   read:cluster=prod,node=n1     read only node n1's tables of prod (a node agent)
//   write:cluster=*               every cluster (an administrator; `*` must be written out)
//
// The same hash may appear in several entries: the token then has every scope listed. Pure:
// parsing only; hashing and comparing are in check.ts.

export type Access = 'read' | 'write';

export interface Grant {
  readonly access: Access;
  /** A cluster name, or '*' for every cluster. */
  readonly cluster: string;
  /** Only this node's tables (read only); null for the whole cluster. */
  readonly node: string | null;
}

export interface TokenEntry {
  /** SHA-256 of the token's UTF-8 bytes. */
  readonly sha256: Uint8Array;
  readonly grants: readonly Grant[];
}

/** What a request needs: a cluster to read or write, or (node set) one node's tables of it. */
export interface Need {
  readonly access: Access;
  readonly cluster: string;
  readonly node?: string;
}

// Cluster and node names in scopes: DNS-like, so ',' '=' ':' stay separators. A cluster named
// otherwise is reachable only with a '*' scope.
const NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,252})$/;
const HEX64 = /^[0-9a-f]{64}$/;

export class TokenConfigError extends Error {
  override readonly name = 'TokenConfigError';
}

function parseScope(scope: string, where: string): Grant {
  const m = /^(read|write):(.*)$/.exec(scope);
  if (!m) throw new TokenConfigError(`${where}: the scope must start with "read:" or "write:", got ${JSON.stringify(scope)}`);
  const access = m[1] as Access;
  const fields = new Map<string, string>();
  for (const part of m[2]!.split(',')) {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq) : part;
    if (eq <= 0 || (key !== 'cluster' && key !== 'node')) throw new TokenConfigError(`${where}: expected cluster=<name> or node=<name>, got ${JSON.stringify(part)}`);
    if (fields.has(key)) throw new TokenConfigError(`${where}: ${key} is given twice`);
    fields.set(key, part.slice(eq + 1));
  }
  const cluster = fields.get('cluster');
  const node = fields.get('node') ?? null;
  if (cluster === undefined) throw new TokenConfigError(`${where}: the scope needs cluster=<name> (or cluster=* for every cluster)`);
  if (cluster !== '*' && !NAME.test(cluster)) throw new TokenConfigError(`${where}: ${JSON.stringify(cluster)} is not a cluster name (letters, digits, '.', '_', '-') or *`);
  if (node !== null) {
    if (access !== 'read') throw new TokenConfigError(`${where}: a node scope can only read (read:cluster=…,node=…)`);
    if (cluster === '*') throw new TokenConfigError(`${where}: a node scope names its cluster; cluster=* is for whole clusters`);
    if (!NAME.test(node)) throw new TokenConfigError(`${where}: ${JSON.stringify(node)} is not a node name`);
  }
  return { access, cluster, node };
}

const bytesOfHex = (hex: string): Uint8Array => Uint8Array.from({ length: hex.length / 2 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));

/**
 * Parses NETPOLC_TOKENS. Empty or absent → []. Any malformed entry is an error naming the
 * entry: a server must not start with fewer tokens (or a wider scope) than its operator wrote.
 */
export function parseTokens(text: string | undefined): TokenEntry[] {
  const byHash = new Map<string, Grant[]>();
  const entries = (text ?? '').split(/[\s;]+/).filter((e) => e !== '');
  entries.forEach((entry, i) => {
    const where = `NETPOLC_TOKENS entry ${i + 1}`;
    const colon = entry.indexOf(':');
    const hash = (colon < 0 ? entry : entry.slice(0, colon)).toLowerCase();
    if (!HEX64.test(hash)) {
      // Never echo the value: it may be a token pasted by mistake.
      throw new TokenConfigError(`${where}: must start with the SHA-256 of the token (64 hex digits), not the token itself; hash one with \`npm run token -- hash\``);
    }
    if (colon < 0) throw new TokenConfigError(`${where}: missing the scope after the hash (<hash>:read:cluster=<name>)`);
    const grants = byHash.get(hash) ?? [];
    grants.push(parseScope(entry.slice(colon + 1), where));
    byHash.set(hash, grants);
  });
  return [...byHash].map(([hash, grants]) => ({ sha256: bytesOfHex(hash), grants }));
}

/** Write implies read of the same cluster; a node grant reads that node's tables and nothing else. */
export function grantAllows(g: Grant, need: Need): boolean {
  if (g.cluster !== '*' && g.cluster !== need.cluster) return false;
  if (need.access === 'write') return g.access === 'write' && g.node === null;
  if (g.node === null) return true;
  return need.node !== undefined && g.node === need.node;
}

export const describeNeed = (n: Need): string => (n.node !== undefined ? `read node ${n.node}'s tables of cluster ${n.cluster}` : `${n.access} cluster ${n.cluster}`);
