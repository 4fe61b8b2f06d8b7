// A set's members edited instead of resolved again: after a pod change (incremental.ts) a set
// of 10⁴ pods gains and loses a few owned addresses or port elements, and scanning, sorting and
// printing all of them again costs more than the change. Exactness rests on what members.ts
// prints: an address set is the maximal runs of consecutive owned addresses, each as
// rangeToCidrs prints it; a ports set is unique elements in (family, address, protocol, port)
// order. Owned addresses are unique (cluster.ipOwners has one owner per address), so what a pod
// held of a set is exactly removable. Only the blocks a binary search probes are parsed: parsing
// the whole list is the cost removed.
import { parseFormattedIp, rangeToCidrs, type Family, type IpAddr, type IpRange } from '../net/ip.js';
import { normalise, subtract } from '../net/ranges.js';
import type { PortElement, SetId } from './ir.js';

/** A port element with its address's value: what the elements' order reads. */
export interface KeyedElement {
  readonly family: Family;
  readonly value: bigint;
  readonly element: PortElement;
}

/** What leaves a set and what enters it: owned addresses (address sets) or elements (ports sets). */
export type MemberEdit =
  | { readonly kind: 'addresses'; readonly leave: readonly IpAddr[]; readonly enter: readonly IpAddr[] }
  | { readonly kind: 'ports'; readonly leave: readonly KeyedElement[]; readonly enter: readonly KeyedElement[] };

/** An earlier set whose members may differ: edited, or (edit null) resolved again. */
export interface MemberChange {
  readonly id: SetId;
  readonly edit: MemberEdit | null;
}

export const compareElements = (a: KeyedElement, b: KeyedElement): number =>
  a.family - b.family || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) || (a.element[1] < b.element[1] ? -1 : a.element[1] > b.element[1] ? 1 : 0) || a.element[2] - b.element[2];

/** Elements in a ports set's order, each once (sorts `keyed`). */
export function sortedElements(keyed: KeyedElement[]): PortElement[] {
  keyed.sort(compareElements);
  const out: PortElement[] = [];
  for (const k of keyed) {
    const last = out[out.length - 1];
    if (!last || last[0] !== k.element[0] || last[1] !== k.element[1] || last[2] !== k.element[2]) out.push(k.element);
  }
  return out;
}

/** A printed block as the range it covers. */
function blockRange(cidr: string): IpRange {
  const slash = cidr.indexOf('/');
  const { family, value } = parseFormattedIp(cidr.slice(0, slash));
  const hostBits = BigInt((family === 4 ? 32 : 128) - Number(cidr.slice(slash + 1)));
  return { family, lo: value, hi: value + (1n << hostBits) - 1n };
}

/** The old list with [from, to) spans replaced, in order, by one copy (not a splice per span). */
function spliced<T>(old: readonly T[], edits: readonly { from: number; to: number; with: readonly T[] }[]): T[] {
  const parts: (readonly T[])[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(old.slice(at, e.from), e.with);
    at = e.to;
  }
  parts.push(old.slice(at));
  return ([] as T[]).concat(...parts);
}

/** Nets what leaves and enters: an address (or element) moving between touched pods stays. */
function net<T>(leave: readonly T[], enter: readonly T[], key: (t: T) => string | bigint): { leave: T[]; enter: T[] } {
  const leaving = new Map(leave.map((t) => [key(t), t]));
  const entering = new Map(enter.map((t) => [key(t), t]));
  for (const k of [...entering.keys()]) if (leaving.delete(k)) entering.delete(k);
  return { leave: [...leaving.values()], enter: [...entering.values()] };
}

/**
 * A family's CIDR list less the `leave` addresses, plus the `enter` ones; the same array when
 * they cancel out, null when the list lacks an address leaving or holds one entering (then
 * the set is resolved again). Each address's run (a run prints as several blocks: neighbours
 * are one run when one's end + 1 is the next's start), with the runs it joins when it enters,
 * is printed again; touching spans are printed together so joined runs stay maximal.
 */
export function editCidrs(cidrs: readonly string[], family: Family, leaveValues: readonly bigint[], enterValues: readonly bigint[]): readonly string[] | null {
  const { leave, enter } = net(leaveValues, enterValues, (v) => v);
  if (leave.length === 0 && enter.length === 0) return cidrs;
  const parsed = new Map<number, IpRange>();
  const block = (i: number): IpRange => {
    let r = parsed.get(i);
    if (r === undefined) parsed.set(i, (r = blockRange(cidrs[i]!)));
    return r;
  };
  // The first block ending at or after x.
  const search = (x: bigint): number => {
    let [lo, hi] = [0, cidrs.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (block(mid).hi < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const runStart = (i: number): number => {
    while (i > 0 && block(i - 1).hi + 1n === block(i).lo) i--;
    return i;
  };
  const runEnd = (i: number): number => {
    while (i + 1 < cidrs.length && block(i).hi + 1n === block(i + 1).lo) i++;
    return i + 1;
  };
  const spans: { from: number; to: number; value: bigint; enters: boolean }[] = [];
  for (const value of leave) {
    const i = search(value);
    if (i === cidrs.length || block(i).lo > value) return null;
    spans.push({ from: runStart(i), to: runEnd(i), value, enters: false });
  }
  for (const value of enter) {
    const i = search(value);
    if (i < cidrs.length && block(i).lo <= value) return null;
    const from = i > 0 && block(i - 1).hi + 1n === value ? runStart(i - 1) : i;
    const to = i < cidrs.length && block(i).lo === value + 1n ? runEnd(i) : i;
    spans.push({ from, to, value, enters: true });
  }
  spans.sort((a, b) => a.from - b.from || a.to - b.to);
  const edits: { from: number; to: number; with: string[] }[] = [];
  for (let k = 0; k < spans.length; ) {
    // Spans that overlap or touch are one stretch: an entering address may join them.
    let to = spans[k]!.to;
    const from = spans[k]!.from;
    const kept: IpRange[] = [];
    const removed: IpRange[] = [];
    for (; k < spans.length && spans[k]!.from <= to; k++) {
      const s = spans[k]!;
      if (s.to > to) to = s.to;
      (s.enters ? kept : removed).push({ family, lo: s.value, hi: s.value });
    }
    for (let i = from; i < to; i++) kept.push(block(i));
    edits.push({ from, to, with: subtract(normalise(kept), removed).flatMap(rangeToCidrs) });
  }
  return spliced(cidrs, edits);
}

/** Address members with addresses leaving and entering (editCidrs per family). */
export function editAddresses(members: { readonly v4: readonly string[]; readonly v6: readonly string[] }, leave: readonly IpAddr[], enter: readonly IpAddr[]): { v4: readonly string[]; v6: readonly string[] } | null {
  const values = (ips: readonly IpAddr[], f: Family) => ips.filter((ip) => ip.family === f).map((ip) => ip.value);
  const v4 = editCidrs(members.v4, 4, values(leave, 4), values(enter, 4));
  const v6 = v4 && editCidrs(members.v6, 6, values(leave, 6), values(enter, 6));
  return v4 && v6 ? { v4, v6 } : null;
}

/**
 * A ports set's elements less `leave`, plus `enter`; the same array when they cancel out, null
 * when an element leaving is not there or one entering is (then the set is resolved again).
 */
export function editElements(elements: readonly PortElement[], leaveKeyed: readonly KeyedElement[], enterKeyed: readonly KeyedElement[]): readonly PortElement[] | null {
  const { leave, enter } = net(leaveKeyed, enterKeyed, (k) => `${k.element[0]}|${k.element[1]}|${k.element[2]}`);
  if (leave.length === 0 && enter.length === 0) return elements;
  const keyed = new Map<number, KeyedElement>();
  const at = (i: number): KeyedElement => {
    let k = keyed.get(i);
    if (k === undefined) keyed.set(i, (k = { ...parseFormattedIp(elements[i]![0]), element: elements[i]! }));
    return k;
  };
  // The first element not before k, and whether it is k.
  const search = (k: KeyedElement): { i: number; found: boolean } => {
    let [lo, hi] = [0, elements.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareElements(at(mid), k) < 0) lo = mid + 1;
      else hi = mid;
    }
    return { i: lo, found: lo < elements.length && compareElements(at(lo), k) === 0 };
  };
  const edits: { from: number; to: number; with: PortElement[] }[] = [];
  for (const k of leave) {
    const { i, found } = search(k);
    if (!found) return null;
    edits.push({ from: i, to: i + 1, with: [] });
  }
  for (const k of enter.sort(compareElements)) {
    const { i, found } = search(k);
    if (found) return null;
    const last = edits[edits.length - 1];
    if (last && last.from === i && last.to === i) last.with.push(k.element);
    else edits.push({ from: i, to: i, with: [k.element] });
  }
  // At one position, what enters goes before the element leaving there.
  edits.sort((a, b) => a.from - b.from || a.to - b.to);
  return spliced(elements, edits);
}
