// Content address of a table: equal rules, equal id, on every runtime (sync SHA-256).
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { IrRule } from './ir.js';

export function canonicalRules(rules: readonly IrRule[]): string {
  return JSON.stringify(rules.map((r) => [r.action, r.protocol, r.srcNetwork, r.srcPortRange, r.dstNetwork, r.dstPortRange]));
}

export function tableId(rules: readonly IrRule[]): string {
  return `t${bytesToHex(sha256(utf8ToBytes(canonicalRules(rules)))).slice(0, 16)}`;
}
