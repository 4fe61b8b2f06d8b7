// `npm run token -- new <scope>`: a fresh random token and its NETPOLC_TOKENS entry.
// `npm run token -- hash <scope>`: the entry for a token read from stdin (printf %s "$TOKEN" | …).
// The entry holds the token's SHA-256, never the token: hand the token to its user, put the entry
// in NETPOLC_TOKENS. Scopes: write:cluster=<c>, read:cluster=<c>, read:cluster=<c>,node=<n>, cluster=*.
import { createHash, randomBytes } from 'node:crypto';
import { parseTokens, TokenConfigError } from '../access/tokens.js';

const USAGE = 'usage: npm run token -- new <scope>   |   printf %s "$TOKEN" | npm run token -- hash <scope>\n  scope: write:cluster=<name>, read:cluster=<name>, read:cluster=<name>,node=<node>, or cluster=* for every cluster';

async function stdinText(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(args: readonly string[]): Promise<number> {
  const [command, scope] = args;
  if ((command !== 'new' && command !== 'hash') || scope === undefined || args.length > 2) {
    console.error(USAGE);
    return 2;
  }
  // A trailing newline from `echo` is not part of the token; anything else inside it is.
  const token = command === 'new' ? randomBytes(32).toString('base64url') : (await stdinText()).replace(/\r?\n$/, '');
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token)) {
    console.error('the token must be one word of letters, digits and -._~+/ (a bearer token)');
    return 2;
  }
  const entry = `${createHash('sha256').update(token, 'utf8').digest('hex')}:${scope}`;
  try {
    parseTokens(entry); // the server's own reading: a scope it would refuse is refused here
  } catch (e) {
    if (!(e instanceof TokenConfigError)) throw e;
    console.error(e.message.replace('NETPOLC_TOKENS entry 1: ', ''));
    return 2;
  }
  if (command === 'new') console.log(`token (give to the client, Authorization: Bearer …):\n${token}\nNETPOLC_TOKENS entry (the server keeps only this):`);
  console.log(entry);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
