// An iptables artifact that takes a node from one version's rules to the next, in the order an
// applier runs it: `ipset` (sets the node starts needing, created and filled by swap; members of
// sets that stay, `del` then `add`), then the iptables-restore --noflush payloads (new table
// chains declared and filled, dispatch rules of pods that went, moved or changed tables deleted
// and added, chains nothing reaches any more flushed and deleted), then `cleanup` (sets no rule
// uses any more, destroyed once the rules that used them are gone). Each restore payload is one
// commit. A change of the node's own addresses rewrites its entry chain: the whole artifact.
import { applyNodeDelta, type MemberChange, type NodeDelta, type NodeSlice } from '../diff/set-node.js';
import type { Family } from '../net/ip.js';
import { IdRecord } from '../sets/id-record.js';
import { iptablesText } from './quote.js';
import { chainOf, dispatchRules, HOOKS, ipsetLines, ipsetName, netElements, tableRules, type IptablesArtifact } from './iptables.js';

/** A delta artifact: the full one's parts, plus what runs after the restores. */
export interface IptablesDelta extends IptablesArtifact {
  /** `ipset restore` input to run after the iptables payloads: sets no rule uses any more. */
  readonly cleanup: string;
}

function memberLines(id: string, change: MemberChange, family: Family): string[] {
  const name = ipsetName(id, family);
  const of = (side: MemberChange['add']) =>
    'v4' in side ? netElements(family === 4 ? side.v4 : side.v6, family) : side.elements.filter(([a]) => a.includes(':') === (family === 6)).map(([a, p, n]) => `${a},${p.toLowerCase()}:${n}`);
  return [...of(change.remove).map((m) => `del ${name} ${m}`), ...of(change.add).map((m) => `add ${name} ${m}`)];
}

/** The delta artifact from `before` (the node's slice at version `from`), or null when only the whole artifact will do. */
export function iptablesDelta(node: string, from: string, to: string, before: NodeSlice, delta: NodeDelta): IptablesDelta | null {
  if (delta.addresses) return null;
  const sets = IdRecord.of([...Object.entries(before.sets), ...Object.entries(delta.setsAdded)]);
  const after = applyNodeDelta(before, delta);
  const header = (what: string) => `# netpolc: ${what} delta for node ${iptablesText(node)} from version ${iptablesText(from)} to ${iptablesText(to)}; apply on rules at version ${iptablesText(from)}.`;
  const ipset = [
    header('ipset restore'),
    ...Object.entries(delta.setsAdded).flatMap(([id, set]) => ipsetLines(id, set)),
    ...Object.entries(delta.setsChanged).flatMap(([id, change]) => [4, 6].flatMap((f) => memberLines(id, change, f as Family))),
  ];
  const payload = (family: Family) => {
    const [was, is] = [new Set(dispatchRules(before, family).filter((l) => l.startsWith('-A'))), new Set(dispatchRules(after, family).filter((l) => l.startsWith('-A')))];
    const added = Object.keys(delta.tablesAdded);
    const removed = delta.tablesRemoved.flatMap((id) => [chainOf(id), chainOf(id, 'np'), chainOf(id, 'baseline')]);
    return `${[
      header(`${family === 4 ? 'iptables' : 'ip6tables'}-restore --noflush`),
      '*filter',
      ...added.flatMap((id) => [chainOf(id), chainOf(id, 'np'), chainOf(id, 'baseline')]).map((c) => `:${c} - [0:0]`),
      ...added.flatMap((id) => tableRules(sets, id, delta.tablesAdded[id]!, family)),
      ...[...was].filter((l) => !is.has(l)).map((l) => l.replace(/^-A /, '-D ')),
      ...[...is].filter((l) => !was.has(l)),
      ...removed.map((c) => `-F ${c}`),
      ...removed.map((c) => `-X ${c}`),
      'COMMIT',
    ].join('\n')}\n`;
  };
  const cleanup = [header('ipset restore (after the iptables payloads)'), ...delta.setsRemoved.flatMap((id) => [4, 6].map((f) => `destroy ${ipsetName(id, f as Family)}`))];
  return { ipset: `${ipset.join('\n')}\n`, ipv4: payload(4), ipv6: payload(6), hooks: HOOKS, cleanup: `${cleanup.join('\n')}\n` };
}
