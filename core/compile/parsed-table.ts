// The flat form with its networks as numbers, for the code that evaluates tables (the rule
// combiner, the vpp renderers): the IR keeps CIDR text (its JSON is the format ir-flat), and
// each table is read into numbers once per table object, not once per pod or node reading it.
// Tables are immutable and shared: a signature's egress table is one object on every node.
import { parseCidrBlock, type Cidr } from '../net/ip.js';
import type { IrRule } from './ir.js';

export interface ParsedRule {
  readonly rule: IrRule;
  /** The rule's networks; null for "" (any). */
  readonly src: Cidr | null;
  readonly dst: Cidr | null;
}

/**
 * Rules read into numbers, each time it is called: for rule text that is not a compiled table
 * (a simulator reading rendered output). Text that is no CIDR reads as null, as parseCidr has it.
 */
export function parseRules(rules: readonly IrRule[]): ParsedRule[] {
  return rules.map((rule) => ({ rule, src: rule.srcNetwork ? parseCidrBlock(rule.srcNetwork) : null, dst: rule.dstNetwork ? parseCidrBlock(rule.dstNetwork) : null }));
}

const parsedTables = new WeakMap<readonly IrRule[], readonly ParsedRule[]>();

/** A table of the flat form read into numbers, once per table object. */
export function parsedTable(rules: readonly IrRule[]): readonly ParsedRule[] {
  let parsed = parsedTables.get(rules);
  if (parsed === undefined) parsedTables.set(rules, (parsed = parseRules(rules)));
  return parsed;
}
