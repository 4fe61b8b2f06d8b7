// Bytes of what the store keeps: tables in their canonical (hashed) form, node manifests and
// headers as JSON. TextEncoder and @noble/hashes only, so the store runs on Node, Lambda and workerd.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { IrNode, IrPod, IrRule } from '../../core/compile/ir.js';
import { idOfCanonical, type Sha256Hex } from '../../core/compile/table-id.js';
import type { SnapshotObject } from '../../schemas/snapshot.js';
import { StoreCorruptionError, type CompileFigures } from './types.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export const utf8 = (s: string): Uint8Array => encoder.encode(s);
export const fromUtf8 = (b: Uint8Array): string => decoder.decode(b);

// A table is stored as its canonical rules (table-id.ts canonicalRules, written by publish.ts),
// exactly what its id hashes: the stored bytes prove their own id.

const ACTIONS = new Set(['PERMIT', 'DENY']);
const PROTOCOLS = new Set(['ANY', 'TCP', 'UDP', 'SCTP']);
const isRange = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n));

export function decodeTable(id: string, bytes: Uint8Array, sha256Hex?: Sha256Hex): IrRule[] {
  // Content addressing is only worth something if it is checked where the content comes back.
  // The stored text is the canonical form the id hashes, so the text itself is checked: any
  // other text (even another encoding of the same rules) fails.
  const text = fromUtf8(bytes);
  const actual = idOfCanonical(text, sha256Hex);
  if (actual !== id) throw new StoreCorruptionError(`table ${id}: stored rules hash to ${actual}`);
  const rows: unknown = JSON.parse(text);
  if (!Array.isArray(rows)) throw new StoreCorruptionError(`table ${id}: not a rule list`);
  const rules = rows.map((row: unknown): IrRule => {
    if (!Array.isArray(row) || row.length !== 6) throw new StoreCorruptionError(`table ${id}: malformed rule`);
    const [action, protocol, srcNetwork, srcPortRange, dstNetwork, dstPortRange] = row as unknown[];
    if (!ACTIONS.has(action as string) || !PROTOCOLS.has(protocol as string) || typeof srcNetwork !== 'string' || typeof dstNetwork !== 'string') {
      throw new StoreCorruptionError(`table ${id}: malformed rule`);
    }
    if ((srcPortRange !== null && !isRange(srcPortRange)) || (dstPortRange !== null && !isRange(dstPortRange))) throw new StoreCorruptionError(`table ${id}: malformed port range`);
    return { action: action as IrRule['action'], protocol: protocol as IrRule['protocol'], srcNetwork, srcPortRange, dstNetwork, dstPortRange };
  });
  return rules;
}

/** A node's bindings, pods sorted by key so equal bindings give equal bytes (and hash) in every version. */
export interface Manifest {
  readonly pods: Readonly<Record<string, IrPod>>;
  readonly global: string | null;
}

export function manifestOf(node: IrNode): Manifest {
  const pods = Object.fromEntries(
    Object.keys(node.pods)
      .sort()
      .map((k) => {
        const p = node.pods[k]!;
        return [k, { ips: [...p.ips], ingress: p.ingress, egress: p.egress }];
      }),
  );
  return { pods, global: node.global };
}

export const encodeManifest = (m: Manifest): Uint8Array => utf8(JSON.stringify({ global: m.global, pods: m.pods }));

export function decodeManifest(bytes: Uint8Array): Manifest {
  const m = JSON.parse(fromUtf8(bytes)) as Partial<Manifest> | null;
  if (!m || typeof m !== 'object' || typeof m.pods !== 'object' || m.pods === null || !(m.global === null || typeof m.global === 'string')) {
    throw new StoreCorruptionError('malformed node manifest');
  }
  return { pods: m.pods, global: m.global };
}

/** Every table a manifest refers to, sorted. */
export function manifestTableIds(m: Manifest): string[] {
  const ids = new Set<string>();
  for (const p of Object.values(m.pods)) ids.add(p.ingress).add(p.egress);
  if (m.global !== null) ids.add(m.global);
  return [...ids].sort();
}

/** `h` + 32 hex digits of SHA-256: short enough for an ETag, long enough never to collide by accident. */
export const contentHash = (bytes: Uint8Array): string => `h${bytesToHex(sha256(bytes)).slice(0, 32)}`;

/** The header fields kept as one JSON body (the rest are item attributes). */
export interface HeaderBody {
  readonly nodeCount: number;
  readonly objects: Readonly<Record<string, number>>;
  readonly compile: CompileFigures;
  readonly tableCount: number;
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

// The parsed form of objects belongs to this release's schemas: a tag lets a later release that
// changes that form recognise older blobs instead of misreading them.
const OBJECTS_FORMAT = 'netpolc.parsed-objects/1';

export const encodeObjects = (items: readonly SnapshotObject[]): Uint8Array => utf8(JSON.stringify({ format: OBJECTS_FORMAT, items }));

export function decodeObjects(bytes: Uint8Array): SnapshotObject[] {
  const o = JSON.parse(fromUtf8(bytes)) as { format?: unknown; items?: unknown } | null;
  if (!o || o.format !== OBJECTS_FORMAT || !Array.isArray(o.items)) throw new StoreCorruptionError(`snapshot objects not in the ${OBJECTS_FORMAT} format`);
  // Validated by parseSnapshot before they were stored, and checked against their hash on read.
  return o.items as SnapshotObject[];
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
