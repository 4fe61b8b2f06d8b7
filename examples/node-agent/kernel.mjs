// What the agent does with the kernel: `nft -f` a script, and read back `table inet netpolc` to
// tell whether it is still the ruleset the agent applied.
//
// The server's scripts cannot name what the agent applied, so the agent adds that itself, in the
// same file and so in the same `nft -f` transaction as the script: a one-element set
// `netpolc_applied` holding a marker made from the ETag. A whole script deletes and re-creates
// the table, and the lines after it create the set again; a delta leaves the table, and the
// lines replace the element. Either the script and the marker change together, or neither does.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';

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
