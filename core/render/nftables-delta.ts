// An nft script that takes a node from one version's ruleset to the next when only members of
// its sets changed (the common case: a pod relabelled, added, moved or deleted elsewhere):
// `delete element` and `add element` on the named sets, applied by one `nft -f` as one
// transaction, so the node never holds half of a version. Anything more (sets or tables the node
// starts or stops needing, bindings, node addresses) is answered with the full script instead.
import type { MemberChange, NodeDelta } from '../diff/set-node.js';
import type { PortElement } from '../sets/ir.js';
import { NFT_TABLE, setName } from './nftables.js';

const elementText = ([a, p, n]: PortElement) => `${a} . ${p.toLowerCase()} . ${n}`;

/** Per family, the elements a change removes and adds, as nft writes them. */
function familyElements(change: MemberChange): { family: 4 | 6; remove: string[]; add: string[] }[] {
  const split = (side: MemberChange['add']) =>
    'v4' in side ? { 4: [...side.v4], 6: [...side.v6] } : { 4: side.elements.filter(([a]) => !a.includes(':')).map(elementText), 6: side.elements.filter(([a]) => a.includes(':')).map(elementText) };
  const [remove, add] = [split(change.remove), split(change.add)];
  return ([4, 6] as const).map((family) => ({ family, remove: remove[family], add: add[family] }));
}

/** Whether a delta is only set members: then nftDelta can write it. */
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

/** The delta script, or null when the change is more than set members. */
export function nftDelta(node: string, from: string, to: string, delta: NodeDelta): string | null {
  if (!membersOnly(delta)) return null;
  const lines = [`# netpolc: nftables delta for node ${node} from version ${from} to ${to}: set members only. Apply with nft -f (one transaction) on a ruleset at version ${from}.`];
  for (const [id, change] of Object.entries(delta.setsChanged)) {
    for (const { family, remove, add } of familyElements(change)) {
      // Removals first: an interval set refuses a block that overlaps one still there.
      if (remove.length > 0) lines.push(`delete element ${NFT_TABLE} ${setName(id, family)} { ${remove.join(', ')} }`);
      if (add.length > 0) lines.push(`add element ${NFT_TABLE} ${setName(id, family)} { ${add.join(', ')} }`);
    }
  }
  return `${lines.join('\n')}\n`;
}
