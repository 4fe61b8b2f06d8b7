// Ids of the set form: `prefix` + 16 hex digits of the SHA-256 of a JSON text. `s` sets (their
// definition), `r` tables, `m` set members, `e` stored set bodies. Kept apart from the compiler
// so readers of stored content (the store) check ids without loading it.
import type { Sha256Hex } from '../compile/table-id.js';

export const contentId = (prefix: string, text: string, sha256Hex: Sha256Hex): string => `${prefix}${sha256Hex(text).slice(0, 16)}`;
