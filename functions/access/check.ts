// Who may call a stored-cluster route: the bearer token's SHA-256 (WebCrypto, so the same code
// runs on Node, Lambda and workerd) compared in constant time with every configured hash, then
// its scopes against what the route needs. 401 without a usable token, 403 with one whose
// scopes do not fit.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { ApiError } from '../errors.js';
import { describeNeed, grantAllows, type Grant, type Need, type TokenEntry } from './tokens.js';

export type AccessPolicy =
  /** Every /v1/clusters call needs a token whose scope fits. */
  | { readonly kind: 'tokens'; readonly tokens: readonly TokenEntry[] }
  /** No tokens: the Node server on loopback only, or NETPOLC_ALLOW_ANONYMOUS=true. */
  | { readonly kind: 'anonymous' }
  /** No tokens where the server cannot be kept to loopback (Worker, Lambda): stored clusters are refused. */
  | { readonly kind: 'closed'; readonly reason: string };

const CLOSED: AccessPolicy = { kind: 'closed', reason: 'no access tokens are configured for this deployment' };
export const closedAccess = (): AccessPolicy => CLOSED;

// RFC 6750 b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const REALM = 'Bearer realm="netpolc"';

function unauthorized(error: 'invalid_request' | 'invalid_token' | null, message: string): ApiError {
  return new ApiError('unauthorized', message, undefined, { headers: { 'WWW-Authenticate': error ? `${REALM}, error="${error}"` : REALM } });
}

/** Equal-length byte strings, compared without an early exit. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

async function grantsOf(tokens: readonly TokenEntry[], token: string): Promise<Grant[]> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  // Every entry is compared, matched or not, so timing says nothing about which one matched.
  const grants: Grant[] = [];
  for (const entry of tokens) if (sameBytes(digest, entry.sha256)) grants.push(...entry.grants);
  return grants;
}

/** The grants of the request's token ('anonymous' when the policy needs none); throws 401 or 503. */
export async function authenticate(policy: AccessPolicy, authorization: string | undefined, purpose = 'use stored clusters'): Promise<readonly Grant[] | 'anonymous'> {
  if (policy.kind === 'anonymous') return 'anonymous';
  if (policy.kind === 'closed') {
    throw new ApiError('unavailable', `stored clusters are not served: ${policy.reason}; set NETPOLC_TOKENS (or NETPOLC_ALLOW_ANONYMOUS=true to serve them to anyone)`);
  }
  if (authorization === undefined || authorization.trim() === '') throw unauthorized(null, `a bearer token is required to ${purpose} (Authorization: Bearer <token>)`);
  const m = BEARER.exec(authorization);
  if (!m) throw unauthorized('invalid_request', 'the Authorization header must be "Bearer <token>"');
  const grants = await grantsOf(policy.tokens, m[1]!);
  if (grants.length === 0) throw unauthorized('invalid_token', 'the bearer token is not valid');
  return grants;
}

/** Throws the 401/403/503 ApiError unless the request's token (or the policy) allows `need`. */
export async function authorize(policy: AccessPolicy, authorization: string | undefined, need: Need): Promise<readonly Grant[] | 'anonymous'> {
  const grants = await authenticate(policy, authorization, describeNeed(need));
  if (grants !== 'anonymous' && !grants.some((g) => grantAllows(g, need))) throw new ApiError('forbidden', `the token's scope does not allow to ${describeNeed(need)}`);
  return grants;
}

/** The grants as the access log names them (the token itself is never logged). */
const scopeText = (grants: readonly Grant[] | 'anonymous'): string =>
  grants === 'anonymous' ? 'anonymous' : grants.map((g) => `${g.access}:cluster=${g.cluster}${g.node ? `,node=${g.node}` : ''}`).join(' ');

/** Route middleware: checks before the handler reads the body, with the route's own (decoded) parameters, against the app's policy. */
export function requireAccess(needOf: (c: Context<AppEnv>) => Need): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('tokenScope', scopeText(await authorize(c.get('services').access, c.req.header('authorization'), needOf(c))));
    await next();
  };
}

/** For every path under a prefix: a valid token of any scope (401 otherwise), so unknown routes answer nobody anonymous. */
export function requireToken(policy: AccessPolicy): MiddlewareHandler {
  return async (c, next) => {
    c.set('tokenScope', scopeText(await authenticate(policy, c.req.header('authorization'))));
    await next();
  };
}
