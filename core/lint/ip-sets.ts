// The addresses a cidrs peer matches, for the lints (set algebra in core/net/ranges.ts).
import { subtract } from '../net/ranges.js';
import type { IpRange } from '../net/ip.js';
import type { Peer } from '../policy/model.js';

export { isSubset, normalise, sameSet, subtract } from '../net/ranges.js';

/** The addresses a cidrs peer matches: its ranges minus its excepts. */
export function addressSet(peer: Extract<Peer, { type: 'cidrs' }>): IpRange[] {
  return subtract(peer.ranges, peer.except);
}
