// The JSON text of set-form objects, written once per object. A table's id hashes its text, a
// set's id its definition's text and its members' hash their text: the compile writes these
// texts anyway, and the store (which stores and checks exactly them) and /v1/compile (which
// answers them) read them here instead of writing them again (at L: 10⁵ sets and 4·10⁴ tables,
// ~75 MB of JSON written a second time per publish). Every text is JSON.stringify's of the object:
// set bodies are put together from their parts in the order their fields are made, and a body
// read back from the store keeps the very text it was read from.
import type { Sha256Hex } from '../compile/table-id.js';
import { jsonString } from '../json-string.js';
import type { Direction } from '../policy/model.js';
import type { AddressSet, IrSet, PortElement, PortSet, RuleTable, SetDefinition, SetIr, SetRule } from './ir.js';
import { contentId } from './ids.js';

// By object: set-form objects are not changed once made (readonly throughout), and one object
// is shared by every version and node that uses it, so its text is written once.
const texts = new WeakMap<object, string>();

function textOf(o: object): string {
  let text = texts.get(o);
  if (text === undefined) texts.set(o, (text = JSON.stringify(o)));
  return text;
}

/** A table's JSON: what its id hashes. */
export const tableText = (table: RuleTable): string => textOf(table);

/** A definition's JSON: what its set's id hashes. */
export const definitionText = (definition: SetDefinition): string => textOf(definition);

// The id an object's text hashed to, with the function that hashed it: the compile names each
// table and set by hashing its text, and the store, which refuses an object filed under an id
// its text does not hash to, reads that hash here rather than hashing the same text again (at
// L, 1.4·10⁵ texts). Another function (a store given its own SHA-256) hashes again.
const ids = new WeakMap<object, { readonly sha256Hex: Sha256Hex; readonly id: string }>();

function idOf(prefix: string, o: object, sha256Hex: Sha256Hex): string {
  const known = ids.get(o);
  if (known?.sha256Hex === sha256Hex) return known.id;
  const id = contentId(prefix, textOf(o), sha256Hex);
  ids.set(o, { sha256Hex, id });
  return id;
}

/** A table's id: `r` and the hash of its text. */
export const tableId = (table: RuleTable, sha256Hex: Sha256Hex): string => idOf('r', table, sha256Hex);

/** A set's id: `s` and the hash of its definition's text. */
export const definitionId = (definition: SetDefinition, sha256Hex: Sha256Hex): string => idOf('s', definition, sha256Hex);

/** A set body's JSON (what the store's content id of it hashes). */
export const setText = (set: IrSet): string => textOf(set);

/** An object read from `text` (the store's checked bytes): its text is that text, not written again. */
export function readFrom<T extends object>(value: T, text: string): T {
  texts.set(value, text);
  return value;
}

/** An address set, with its members' hash (`m`: the SHA-256 of `[v4, v6]`) and its text. */
export function addressSet(definition: SetDefinition, v4: readonly string[], v6: readonly string[], sha256Hex: Sha256Hex): AddressSet {
  const [v4Text, v6Text] = [JSON.stringify(v4), JSON.stringify(v6)];
  const hash = contentId('m', `[${v4Text},${v6Text}]`, sha256Hex);
  const set: AddressSet = { kind: 'addresses', definition, v4, v6, hash };
  texts.set(set, `{"kind":"addresses","definition":${definitionText(definition)},"v4":${v4Text},"v6":${v6Text},"hash":${jsonString(hash)}}`);
  return set;
}

/** A ports set, with its members' hash (`m`: the SHA-256 of its elements) and its text. */
export function portSet(definition: SetDefinition, elements: readonly PortElement[], sha256Hex: Sha256Hex): PortSet {
  const elementsText = JSON.stringify(elements);
  const hash = contentId('m', elementsText, sha256Hex);
  const set: PortSet = { kind: 'ports', definition, elements, hash };
  texts.set(set, `{"kind":"ports","definition":${definitionText(definition)},"elements":${elementsText},"hash":${jsonString(hash)}}`);
  return set;
}

/** A tier's set rules with their JSON, shared by the tables of one compile that have the tier. */
export interface TierRules {
  readonly rules: readonly SetRule[];
  readonly text: string;
}

// By rule list: a table's tier is the very list its TierRules holds, so a tier taken from an
// earlier version's table (incremental.ts) finds its text here instead of writing it again.
const tiersByRules = new WeakMap<readonly SetRule[], TierRules>();

export function tierRules(rules: readonly SetRule[]): TierRules {
  let tier = tiersByRules.get(rules);
  if (!tier) tiersByRules.set(rules, (tier = { rules, text: JSON.stringify(rules) }));
  return tier;
}

/** A table of tiers, its text put together from theirs (field order as the object is made, as JSON.stringify writes it). */
export function tieredTable(direction: Direction, admin: TierRules, isolated: boolean, np: TierRules, baseline: TierRules): RuleTable {
  const table: RuleTable = { direction, admin: admin.rules, networkPolicy: { isolated, rules: np.rules }, baseline: baseline.rules };
  texts.set(table, `{"direction":${jsonString(direction)},"admin":${admin.text},"networkPolicy":{"isolated":${isolated},"rules":${np.text}},"baseline":${baseline.text}}`);
  return table;
}

function recordText<T extends object>(entries: Iterable<[string, T]>): string {
  const parts: string[] = [];
  for (const [id, body] of entries) parts.push(`${jsonString(id)}:${textOf(body)}`);
  return `{${parts.join(',')}}`;
}

/**
 * A set form's members as JSON.stringify writes them inside an object
 * (`"version":…,"sets":{…},"tables":{…},"nodes":{…}`): sets and tables from their texts.
 */
export function setIrMembersText(ir: SetIr): string {
  return `"version":${JSON.stringify(ir.version)},"sets":${recordText(ir.sets.entries())},"tables":${recordText(ir.tables.entries())},"nodes":${JSON.stringify(ir.nodes)}`;
}
