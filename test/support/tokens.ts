// Access tokens for tests: a random token and its NETPOLC_TOKENS entry, hashed here with
// node:crypto, independently of the server's WebCrypto path.
import { createHash, randomBytes } from 'node:crypto';
import { parseTokens } from '../../functions/access/tokens.js';
import type { AccessPolicy } from '../../functions/access/check.js';

export interface TestToken {
  readonly token: string;
  /** `<sha256 hex>:<scope>` */
  readonly entry: string;
  readonly header: { readonly authorization: string };
}

export function makeToken(scope: string): TestToken {
  const token = randomBytes(24).toString('base64url');
  return { token, entry: `${createHash('sha256').update(token, 'utf8').digest('hex')}:${scope}`, header: { authorization: `Bearer ${token}` } };
}

export const tokenPolicy = (...tokens: readonly TestToken[]): AccessPolicy => ({ kind: 'tokens', tokens: parseTokens(tokens.map((t) => t.entry).join(' ')) });
