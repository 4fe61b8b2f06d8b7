// Helpers for renderers that read flat tables (ir-flat): which tables a node's pods use, and
// the family of a rule's network text.
import type { IrNode } from '../compile/ir.js';
import { parseCidr, type Family } from '../net/ip.js';

// Parsing CIDR text is the renderers' hot spot; tables repeat the same few networks.
const families = new Map<string, Family>();

/** The family of an IR network, validated once per distinct text. */
export function familyOf(cidr: string): Family {
  let family = families.get(cidr);
  if (family === undefined) {
    const range = parseCidr(cidr);
    if (!range) throw new Error(`IR network "${cidr}" is not a CIDR`);
    if (families.size > 10_000) families.clear();
    families.set(cidr, (family = range.family));
  }
  return family;
}

/**
 * The tables local pods use, sorted. The node-global table is left out: it serves dataplanes
 * that filter one direction only, and these hook both sides of every pod.
 */
export function referencedTables(node: IrNode): string[] {
  const ids = new Set(Object.values(node.pods).flatMap((p) => [p.ingress, p.egress]));
  for (const id of ids) if (!node.tables[id]) throw new Error(`IR references missing table ${id}`);
  return [...ids].sort();
}

