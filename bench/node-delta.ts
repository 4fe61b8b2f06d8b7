// The node delta an agent fetches (core/diff/set-node.ts nodeDelta) when one member of one large
// address set changes: time per delta against the set's size, which grows with the pods an
// AdminNetworkPolicy peer selects (the generated L snapshot's largest set holds 34,624 blocks).
//
//   npx tsx bench/node-delta.ts [members…]      (1000 5000 20000 35000 by default)
import { nodeDelta, type NodeSlice } from '../core/diff/index.js';
import type { IrSet } from '../core/sets/ir.js';

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const block = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32`;
const addressSet = (v4: string[], hash: string) => ({ kind: 'addresses', v4, v6: [], hash }) as unknown as IrSet;
const slice = (set: IrSet): NodeSlice => ({ addresses: [], pods: {}, tables: {}, sets: { s: set } });

for (const n of sizes.length > 0 ? sizes : [1000, 5000, 20000, 35000]) {
  const before = Array.from({ length: n }, (_, i) => block(i));
  // One block leaves, one comes: a pod relabelled out of the peer, another into it.
  const after = [...before.slice(1), '11.0.0.1/32'];
  const start = performance.now();
  const delta = nodeDelta(slice(addressSet(before, 'a')), slice(addressSet(after, 'b')));
  const ms = performance.now() - start;
  const change = delta.setsChanged.s!;
  if (!('v4' in change.add) || change.add.v4.length !== 1 || !('v4' in change.remove) || change.remove.v4.length !== 1) throw new Error('wrong delta');
  console.log(`${n} members: ${ms.toFixed(1)} ms`);
}
