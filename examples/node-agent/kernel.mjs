// What the agent does with the kernel under --backend nftables (the default): `nft -f` a script,
// and read back `table inet netpolc` to tell whether it is still the ruleset the agent applied.
// (--backend iptables: iptables.mjs.)
//
// The server's scripts cannot name what the agent applied, so the agent adds that itself, in the
// same file and so in the same `nft -f` transaction as the script: a one-element set
// `netpolc_applied` holding a marker made from the ETag. A whole script deletes and re-creates
// the table, and the lines after it create the set again; a delta leaves the table, and the
// lines replace the element. Either the script and the marker change together, or neither does.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The kernel refused an apply, or did not end holding it: for a delta, the agent falls back to the whole artifact. */
export class ApplyRefused extends Error {}

// What the renderer emits first: a script that creates, deletes and re-creates the table in one
// transaction. Anything else (an error page, a future diff format) is never handed to nft.
export const isFullScript = (text) => text.startsWith('# netpolc: nftables ruleset') && text.includes('\ndelete table inet netpolc\n');
// A delta (x-netpolc-full: false), one transaction on netpolc's own table only: a block adding
// sets and chains, element changes, and flush/delete of netpolc's chains and sets.
const DELTA_STATEMENT = /^((add|delete) element inet netpolc [\w-]+ \{[^{}]*\}|(flush|delete) (chain|set) inet netpolc [\w-]+)$/;
export function isDeltaScript(text) {
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

export const MARKER_SET = 'netpolc_applied';

/**
 * The marker for an ETag (`"<hash>.nftables"`, e.g. `"h94e42f7c6eed641b….nftables"`): the hash's
 * first 15 characters (`h94e42f7c6eed64`), the longest string an `ifname` element holds. A hash
 * of other characters or shorter (another server) is hashed into 15 hex digits.
 */
export function markerOf(etag) {
  const hash = etag.replace(/^W\//, '').replace(/^"|"$/g, '').split('.')[0] ?? '';
  if (/^[0-9a-z]{15,}$/.test(hash)) return hash.slice(0, 15);
  return createHash('sha256').update(etag).digest('hex').slice(0, 15);
}

/** The script as the agent hands it to nft: the server's text, then the marker lines. */
export function withMarker(script, marker) {
  if (!/^[0-9a-z]{1,15}$/.test(marker)) throw new Error(`bad marker ${JSON.stringify(marker)}`);
  return [
    script.endsWith('\n') ? script : `${script}\n`,
    '# netpolc-agent: what this node applied, in the same transaction; read back to check the kernel\n',
    `add set inet netpolc ${MARKER_SET} { type ifname; }\n`,
    `flush set inet netpolc ${MARKER_SET}\n`,
    `add element inet netpolc ${MARKER_SET} { "${marker}" }\n`,
  ].join('');
}

function nft(bin, args, timeout) {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${bin} ${args.join(' ')} failed: ${(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/** `nft -f file`: one transaction, all or nothing. */
export async function applyFile(bin, file) {
  await nft(bin, ['-f', file], 60_000);
}

/** `nft list table inet netpolc`, or null with the reason when the kernel has no such table (or nft cannot say). */
export async function listTable(bin) {
  try {
    return { listing: await nft(bin, ['list', 'table', 'inet', 'netpolc'], 30_000), error: null };
  } catch (e) {
    return { listing: null, error: e.message };
  }
}

/** The marker in a listing, or null when the set is missing or holds anything but one string. */
export function markerIn(listing) {
  const m = new RegExp(`\\bset ${MARKER_SET} \\{[^}]*?elements = \\{ "([^"]*)" \\}`).exec(listing);
  return m ? m[1] : null;
}

/**
 * A digest of a listing: what the table holds, without what changes by itself (counter and quota
 * values, should anyone add them), so that only an edit changes it.
 */
export function digestOf(listing) {
  const stable = listing
    .replace(/\bcounter packets \d+ bytes \d+/g, 'counter')
    .replace(/\bused \d+ bytes\b/g, 'used')
    .replace(/[ \t]+$/gm, '');
  return `sha256:${createHash('sha256').update(stable).digest('hex')}`;
}

/**
 * Whether the kernel holds what the state says the agent applied: {ok: true} or
 * {ok: false, reason: 'missing' | 'marker' | 'edited', detail}.
 */
export async function verifyKernel(bin, state) {
  const { listing, error } = await listTable(bin);
  if (listing === null) return { ok: false, reason: 'missing', detail: `table inet netpolc is not in the kernel (${error})` };
  const marker = markerIn(listing);
  if (marker !== state.marker) {
    return { ok: false, reason: 'marker', detail: `the kernel's table carries marker ${marker === null ? 'none' : JSON.stringify(marker)}, not ${JSON.stringify(state.marker)} (ETag ${state.etag}): someone else applied it` };
  }
  const digest = digestOf(listing);
  if (digest !== state.digest) return { ok: false, reason: 'edited', detail: `the kernel's table differs from what was applied (listing ${digest}, applied ${state.digest}): it was edited` };
  return { ok: true };
}

/**
 * The nftables backend as the agent drives it: what to ask the server for, and one apply (the
 * script with its marker written to a temp file in the state dir, `nft -f`, the table read
 * back, the file renamed to ruleset.nft / delta.nft) returning the listing's digest.
 */
export function nftBackend({ nft: bin, stateDir }) {
  const pathOf = (delta) => join(stateDir, delta ? 'delta.nft' : 'ruleset.nft');
  return {
    name: 'nftables',
    accept: 'text/plain',
    /** {delta, artifact} from the server's answer, or null when it is not a complete script or delta. */
    parse(body, headers) {
      const delta = headers.get('x-netpolc-full') === 'false';
      return (delta ? isDeltaScript(body) : isFullScript(body)) ? { delta, artifact: body } : null;
    },
    /** What --dry-run logs, and what `bytes` counts. */
    preview: (artifact, marker, delta) => {
      const script = withMarker(artifact, marker);
      return { script, bytes: Buffer.byteLength(script), nft: `${bin} -f ${pathOf(delta)}` };
    },
    async apply(artifact, marker, delta) {
      const path = pathOf(delta);
      const pending = `${path}.${process.pid}.tmp`;
      await writeFile(pending, withMarker(artifact, marker), { mode: 0o600 });
      try {
        await applyFile(bin, pending);
      } catch (e) {
        await rm(pending, { force: true });
        // One transaction: on any failure nothing changed.
        throw new ApplyRefused(e.message);
      }
      // What the kernel holds now, read back: the digest later checks compare with.
      const { listing, error } = await listTable(bin);
      if (listing === null) {
        // Nothing recorded: the next check finds a marker the state does not name, and re-applies.
        await rm(pending, { force: true });
        throw new Error(`applied, but cannot read table inet netpolc back: ${error}`);
      }
      await rename(pending, path); // the script last applied, for whoever inspects the node
      return { digest: digestOf(listing) };
    },
    verify: (state) => verifyKernel(bin, state),
  };
}
