// The compile stage's door for other layers: a cluster compiled into flat per-node rule tables,
// content-addressed by SHA-256.
export { compile } from './compile.js';
export { FLAT_LIMITS } from './flat-limits.js';
export type { Ir, IrNode } from './ir.js';
export { portableSha256Hex, type Sha256Hex } from './table-id.js';
