// An nft script that takes a node from one version's ruleset to the next, applied by one
// `nft -f` as one transaction, so the node never holds half of a version. In order:
//  1. sets and table chains the node starts needing, declared in a `table` block (nft adds
//     them to the existing table), before anything uses them;
//  2. members of sets that stay: `delete element` before `add element` (an interval set refuses
//     a block that overlaps one still there);
//  3. verdict-map entries of pods that went, moved or changed tables: deleted, then added;
//  4. the node's own addresses, when they changed: the set flushed and refilled;
//  5. chains no map entry or rule reaches any more: flushed, then deleted; then the sets no
//     rule uses any more (the kernel refuses to delete what is still referenced).
import { applyNodeDelta, type NodeDelta, type NodeSlice, type MemberChange } from '../diff/set-node.js';
import type { PortElement } from '../sets/ir.js';
import { IdRecord } from '../sets/id-record.js';
import { NFT_TABLE, NODE_SETS, POD_MAPS, renderSet, renderTable, setName, tableChains } from './nftables.js';
import { podEntries, type PodEntry } from './pod-entries.js';
import { nftText } from './quote.js';

const elementText = ([a, p, n]: PortElement) => `${a} . ${p.toLowerCase()} . ${n}`;

/** Per family, the elements a change removes and adds, as nft writes them. */
function familyElements(change: MemberChange): { family: 4 | 6; remove: string[]; add: string[] }[] {
  const split = (side: MemberChange['add']) =>
    'v4' in side ? { 4: [...side.v4], 6: [...side.v6] } : { 4: side.elements.filter(([a]) => !a.includes(':')).map(elementText), 6: side.elements.filter(([a]) => a.includes(':')).map(elementText) };
  const [remove, add] = [split(change.remove), split(change.add)];
  return ([4, 6] as const).map((family) => ({ family, remove: remove[family], add: add[family] }));
}

/** Whether a delta is only set members (the common case: a pod relabelled elsewhere). */
export function membersOnly(delta: NodeDelta): boolean {
  return (
    delta.addresses === undefined &&
    Object.keys(delta.setsAdded).length === 0 &&
    delta.setsRemoved.length === 0 &&
    Object.keys(delta.tablesAdded).length === 0 &&
    delta.tablesRemoved.length === 0 &&
    Object.keys(delta.bindingsChanged).length === 0
  );
}

const mapOf = (e: PodEntry, side: 'ingress' | 'egress') => POD_MAPS[side][e.family];

/** The delta script from `before` (the node's slice at version `from`) by `delta`. */
export function nftDelta(node: string, from: string, to: string, before: NodeSlice, delta: NodeDelta): string {
  const lines = [`# netpolc: nftables delta for node ${nftText(node)} from version ${nftText(from)} to ${nftText(to)}. Apply with nft -f (one transaction) on a ruleset at version ${nftText(from)}.`];
  const sets = IdRecord.of([...Object.entries(before.sets), ...Object.entries(delta.setsAdded)]);

  const declared = [...Object.entries(delta.setsAdded).flatMap(([id, set]) => renderSet(id, set)), ...Object.entries(delta.tablesAdded).flatMap(([id, table]) => renderTable(sets, id, table))];
  if (declared.length > 0) lines.push(`table ${NFT_TABLE} {`, ...declared, '}');

  for (const [id, change] of Object.entries(delta.setsChanged)) {
    for (const { family, remove, add } of familyElements(change)) {
      if (remove.length > 0) lines.push(`delete element ${NFT_TABLE} ${setName(id, family)} { ${remove.join(', ')} }`);
      if (add.length > 0) lines.push(`add element ${NFT_TABLE} ${setName(id, family)} { ${add.join(', ')} }`);
    }
  }

  if (Object.keys(delta.bindingsChanged).length > 0) {
    // Map entries as the whole scripts of both versions hold them, compared address by address.
    const entries = (pods: NodeSlice['pods']) => new Map(podEntries(pods).map((e) => [`${e.family}:${e.value}`, e]));
    const [was, is] = [entries(before.pods), entries(applyNodeDelta(before, delta).pods)];
    for (const side of ['egress', 'ingress'] as const) {
      for (const [k, e] of was) if (is.get(k)?.[side] !== e[side]) lines.push(`delete element ${NFT_TABLE} ${mapOf(e, side)} { ${e.ip} }`);
    }
    for (const side of ['egress', 'ingress'] as const) {
      for (const [k, e] of is) if (was.get(k)?.[side] !== e[side]) lines.push(`add element ${NFT_TABLE} ${mapOf(e, side)} { ${e.ip} : jump ${e[side]} }`);
    }
  }

  if (delta.addresses) {
    for (const family of [4, 6] as const) {
      const own = delta.addresses.filter((a) => a.includes(':') === (family === 6));
      lines.push(`flush set ${NFT_TABLE} ${NODE_SETS[family]}`);
      if (own.length > 0) lines.push(`add element ${NFT_TABLE} ${NODE_SETS[family]} { ${own.join(', ')} }`);
    }
  }

  const chains = delta.tablesRemoved.flatMap(tableChains);
  for (const c of chains) lines.push(`flush chain ${NFT_TABLE} ${c}`);
  for (const c of chains) lines.push(`delete chain ${NFT_TABLE} ${c}`);
  for (const id of delta.setsRemoved) for (const family of [4, 6] as const) lines.push(`delete set ${NFT_TABLE} ${setName(id, family)}`);
  return `${lines.join('\n')}\n`;
}
