// Bytes of what the store keeps: tables in their canonical (hashed) form, node manifests and
// headers as JSON. TextEncoder and @noble/hashes only, so the store runs on Node, Lambda and workerd.
import { portableSha256Hex, type Sha256Hex } from '../../core/compile/index.js';
import { contentId, readFrom, type IrSet, type RuleTable, type SetNode, type SetPod } from '../../core/sets/index.js';
import { byText, sortOnce } from '../../core/sorted.js';
import { jsonString } from '../../core/json-string.js';

import { StoreCorruptionError, type CompileFigures } from './types.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b);

// Tables and set bodies are stored as the JSON their content ids hash (core/sets: a table's id
// hashes its JSON; a set body's content id hashes its JSON, definition and members), so the
// stored bytes prove their own id and are checked where they come back.

const ACTIONS = new Set(['allow', 'deny', 'pass']);
const PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP']);
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The content id of a set body: `e` + 16 hex digits of the SHA-256 of its JSON. */
export const setContentId = (text: string, sha256Hex: Sha256Hex = portableSha256Hex): string => contentId('e', text, sha256Hex);

function checkedText(kind: 'table' | 'set', id: string, bytes: Uint8Array, expected: (text: string) => string): string {
  const text = fromUtf8(bytes);
  const actual = expected(text);
  if (actual !== id) throw new StoreCorruptionError(`${kind} ${id}: stored content hashes to ${actual}`);
  return text;
}

function isRule(r: unknown): boolean {
  if (!isObject(r) || !ACTIONS.has(r.action as string) || !(r.set === null || typeof r.set === 'string')) return false;
  return r.ports === null || (Array.isArray(r.ports) && r.ports.every((p) => Array.isArray(p) && p.length === 3 && PROTOCOLS.has(p[0]) && Number.isInteger(p[1]) && Number.isInteger(p[2])));
}

export function decodeTable(id: string, bytes: Uint8Array, sha256Hex?: Sha256Hex): RuleTable {
  const text = checkedText('table', id, bytes, (t) => contentId('r', t, sha256Hex ?? portableSha256Hex));
  return readFrom(asTable(id, JSON.parse(text)), text);
}

/** A rule table read back (its bytes already checked against their hash), or corruption. */
export function asTable(id: string, t: unknown): RuleTable {
  const tiers = isObject(t) && isObject(t.networkPolicy) ? [t.admin, t.networkPolicy.rules, t.baseline] : [];
  if (!isObject(t) || (t.direction !== 'ingress' && t.direction !== 'egress') || tiers.length !== 3 || !tiers.every((tier) => Array.isArray(tier) && tier.every(isRule)) || typeof (t.networkPolicy as Record<string, unknown>).isolated !== 'boolean') {
    throw new StoreCorruptionError(`table ${id}: not a rule table`);
  }
  return t as unknown as RuleTable;
}

export function decodeSet(contentIdOf: string, bytes: Uint8Array, sha256Hex?: Sha256Hex): IrSet {
  const text = checkedText('set', contentIdOf, bytes, (t) => setContentId(t, sha256Hex));
  return readFrom(asSet(contentIdOf, JSON.parse(text)), text);
}

/** A set body read back (its bytes already checked against their hash), or corruption. */
export function asSet(contentIdOf: string, s: unknown): IrSet {
  const ok = isObject(s) && isObject(s.definition) && typeof s.hash === 'string' && ((s.kind === 'addresses' && isStrings(s.v4) && isStrings(s.v6)) || (s.kind === 'ports' && Array.isArray(s.elements)));
  if (!ok) throw new StoreCorruptionError(`set ${contentIdOf}: not a set`);
  return s as unknown as IrSet;
}

/** A node's manifest, pods sorted by key so equal manifests give equal bytes (and hash) in every version. */
export interface Manifest {
  readonly addresses: readonly string[];
  readonly pods: Readonly<Record<string, SetPod>>;
  /** Set id → content id of its body. */
  readonly sets: Readonly<Record<string, string>>;
  readonly tables: readonly string[];
}

export function manifestOf(node: SetNode, setContentIds: Pick<ReadonlyMap<string, string>, 'get'>): Manifest {
  // A compiled node keeps its pods, sets and tables in order already: checked, not sorted again.
  const pods = Object.fromEntries(
    sortOnce(Object.keys(node.pods), byText).map((k) => {
      const p = node.pods[k]!;
      return [k, { ips: [...p.ips], ingress: p.ingress, egress: p.egress }];
    }),
  );
  return { addresses: [...node.addresses], pods, sets: Object.fromEntries(sortOnce([...node.sets], byText).map((id) => [id, setContentIds.get(id)!])), tables: sortOnce([...node.tables], byText) };
}

export const manifestText = (m: Manifest): string => JSON.stringify({ addresses: m.addresses, pods: m.pods, sets: m.sets, tables: m.tables });

/**
 * manifestText(manifestOf(node, setContentIds)), written as text directly: a node names
 * thousands of sets, and building them as an object first (to stringify it) costs more than
 * the text. `entries`: set entry texts (`"id":"content id"`) already written for this version's
 * digests (manifest-hash.ts), shared by its nodes. Held equal to it by test/infra/codec.test.ts.
 */
export function nodeManifestText(node: SetNode, setContentIds: Pick<ReadonlyMap<string, string>, 'get'>, entries?: ReadonlyMap<string, string>): string {
  const pods: string[] = [];
  for (const k of sortOnce(Object.keys(node.pods), byText)) {
    const p = node.pods[k]!;
    pods.push(`${jsonString(k)}:{"ips":${JSON.stringify(p.ips)},"ingress":${jsonString(p.ingress)},"egress":${jsonString(p.egress)}}`);
  }
  const sets: string[] = [];
  for (const id of sortOnce([...node.sets], byText)) {
    // Its entry as the digest wrote it: no second lookup of its content id (10⁶ at L).
    const entry = entries?.get(id);
    if (entry !== undefined) {
      sets.push(entry);
      continue;
    }
    const content = setContentIds.get(id);
    // An id without a content id is written as JSON.stringify writes the undefined member: left out.
    if (content !== undefined) sets.push(`${jsonString(id)}:${jsonString(content)}`);
  }
  return `{"addresses":${JSON.stringify(node.addresses)},"pods":{${pods.join(',')}},"sets":{${sets.join(',')}},"tables":${JSON.stringify(sortOnce([...node.tables], byText))}}`;
}
export const encodeManifest = (m: Manifest): Uint8Array => utf8(manifestText(m));

export const decodeManifest = (bytes: Uint8Array): Manifest => manifestFromJson(JSON.parse(fromUtf8(bytes)));

/** A whole manifest as parsed JSON, checked. */
export function manifestFromJson(parsed: unknown): Manifest {
  const m = parsed as Partial<Manifest> | null;
  if (!m || typeof m !== 'object' || !isObject(m.pods) || !isObject(m.sets) || !isStrings(m.addresses) || !isStrings(m.tables)) {
    throw new StoreCorruptionError('malformed node manifest');
  }
  return { addresses: m.addresses, pods: m.pods, sets: m.sets as Record<string, string>, tables: m.tables };
}

/** `h` + 32 hex digits of SHA-256: short enough for an ETag, long enough never to collide by accident. */
// The store's SHA-256 (node:crypto's on Node, the portable one in a Worker) over the text the
// bytes encode: the same digest as over the bytes, for the UTF-8 the store writes.
export const contentHashOfText = (text: string, sha256Hex: Sha256Hex): string => `h${sha256Hex(text).slice(0, 32)}`;
export const contentHash = (bytes: Uint8Array, sha256Hex: Sha256Hex): string => contentHashOfText(fromUtf8(bytes), sha256Hex);

/** The header fields kept as one JSON body (the rest are item attributes). */
export interface HeaderBody {
  readonly nodeCount: number;
  readonly objects: Readonly<Record<string, number>>;
  readonly ignored?: Readonly<Record<string, number>>;
  readonly compile: CompileFigures;
  readonly tableCount: number;
  readonly setCount?: number;
  readonly publishedAt: string;
}

export const encodeHeaderBody = (h: HeaderBody): Uint8Array => utf8(JSON.stringify(h));

export function decodeHeaderBody(bytes: Uint8Array): HeaderBody {
  const h = JSON.parse(fromUtf8(bytes)) as Partial<HeaderBody> | null;
  if (!h || typeof h.nodeCount !== 'number' || typeof h.objects !== 'object' || typeof h.compile !== 'object' || typeof h.tableCount !== 'number' || typeof h.publishedAt !== 'string') {
    throw new StoreCorruptionError('malformed version header');
  }
  return h as HeaderBody;
}

export const encodeNodes = (nodes: readonly string[]): Uint8Array => utf8(JSON.stringify(nodes));

export function decodeNodes(bytes: Uint8Array): string[] {
  const nodes: unknown = JSON.parse(fromUtf8(bytes));
  if (!Array.isArray(nodes) || !nodes.every((n) => typeof n === 'string')) throw new StoreCorruptionError('malformed node list');
  return nodes;
}

/**
 * One manifest shard: node → the content hash of its manifest in this version. A Map both ways:
 * node names are the client's (a node may be named `constructor` or `__proto__`), so they are
 * never looked up in, or assigned to, a plain object. The JSON object's members are its own
 * properties (JSON.parse defines even `__proto__` as one).
 */
export const encodeManifestShard = (nodes: ReadonlyMap<string, string>): Uint8Array => utf8(JSON.stringify(Object.fromEntries(nodes)));

export function decodeManifestShard(bytes: Uint8Array): Map<string, string> {
  const m: unknown = JSON.parse(fromUtf8(bytes));
  if (!isObject(m) || !Object.values(m).every((h) => typeof h === 'string' && /^h[0-9a-f]{32}$/.test(h))) throw new StoreCorruptionError('malformed manifest shard');
  return new Map(Object.entries(m as Record<string, string>));
}

/** Splits bytes into pieces of at most `max` bytes; always at least one (possibly empty) piece. */
export function splitChunks(bytes: Uint8Array, max: number): Uint8Array[] {
  if (bytes.length <= max) return [bytes];
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += max) chunks.push(bytes.subarray(at, Math.min(at + max, bytes.length)));
  return chunks;
}

export function joinChunks(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
