// What the flat form may cost. Flat first-match tables expand every address set and port range
// into 6-tuples, so a 115 kB snapshot (one AdminNetworkPolicy whose rules mix port ranges and
// networks) already makes 230,000 rules per node, and 60 such policies made 2.4 million per
// node: 35 s and 3.2 GB before anything said no. The set form keeps those policies small; the
// flat form refuses them as it counts, before it builds what it cannot hold.
import { LimitError } from '../limits.js';
import { printable } from '../printable.js';

export interface FlatLimits {
  /** Rules in one node's flat tables (its pods' distinct tables and its node-global table). */
  readonly rulesPerNode: number;
  /** Verdicts one table's partition decides: address cells × port segments (each a verdict-engine question). */
  readonly verdictsPerTable: number;
}

/**
 * The largest node the benchmarks compile flat (20,000 pods, 2,000 NetworkPolicies) needs
 * 838,001 rules; an M node at most 17,768. A million flat rules is ~270 MB of heap and
 * ~100 MB of JSON.
 */
export const FLAT_LIMITS: FlatLimits = { rulesPerNode: 1_000_000, verdictsPerTable: 20_000_000 };

/** What a refusal tells the client to ask for instead. */
const INSTEAD = 'the set form (format=ir) and the formats that keep sets (nftables, iptables) hold these policies without expanding them';

/**
 * A table's partition or emit over a limit; its message says which ("more than … rules").
 * The compiler names the table (tableOverLimit): a table is shared, so no node holds it yet.
 */
export class TableOverLimit extends LimitError {}

export function tableOverLimit(direction: string, pod: string, e: TableOverLimit): LimitError {
  return new LimitError(`flat tables: the ${direction} table of pod ${printable(pod)} (and of every pod whose policies say the same) needs ${e.message}: ${INSTEAD}`);
}

export function nodeOverLimit(node: string, limits: FlatLimits): LimitError {
  return new LimitError(`node ${printable(node)}: flat tables need more than ${limits.rulesPerNode} rules on this node (the limit): ${INSTEAD}`);
}
