// The pod endpoints of a cluster as a peer set (universe.ts) walks them: pod classes in order,
// each class's pods in order, each pod's addresses in order (a pod without one once, without an
// address). Laid out once per cluster in flat arrays, with every address numbered, so a peer set
// for another set of rules reads integers instead of 10⁵ pod objects, their address lists and
// their bigints (L builds ~70 peer sets; each walked every pod object before, ~140 ms apiece).
import type { AddressSlots } from '../classes/addresses.js';
import type { Endpoint } from '../evaluate/endpoint.js';
import type { Family } from '../net/ip.js';
import type { PodInfo } from '../snapshot/cluster.js';

const NO_ADDRESS = -1;

export class PodEndpoints {
  /** Class c's entries are [classStart[c], classStart[c + 1]). */
  private readonly classStart: Int32Array;
  /** Per entry: its address number, or NO_ADDRESS. */
  private readonly address: Int32Array;
  /** Per entry: its pod's index and namespace index, and which of the pod's addresses it is. */
  private readonly pod: Int32Array;
  private readonly ns: Int32Array;
  private readonly nth: Int32Array;
  /** Per family: address numbers in address order, and their values. */
  private readonly sorted: Record<Family, { readonly values: readonly bigint[]; readonly at: Int32Array }>;
  private readonly addresses: number;
  /** Endpoint objects by entry, made once: peer sets of one cluster share them. */
  private readonly made: (Endpoint | undefined)[] = [];

  constructor(
    private readonly pods: readonly PodInfo[],
    classes: readonly (readonly PodInfo[])[],
  ) {
    const classStart: number[] = [0];
    const address: number[] = [];
    const pod: number[] = [];
    const ns: number[] = [];
    const nth: number[] = [];
    const byFamily: Record<Family, { value: bigint; at: number }[]> = { 4: [], 6: [] };
    for (const members of classes) {
      for (const p of members) {
        for (let k = 0; k < Math.max(1, p.ips.length); k++) {
          const ip = p.ips[k];
          if (ip) byFamily[ip.family].push({ value: ip.value, at: address.length });
          address.push(ip ? address.length : NO_ADDRESS);
          pod.push(p.idx);
          ns.push(p.nsIdx);
          nth.push(k);
        }
      }
      classStart.push(address.length);
    }
    this.classStart = Int32Array.from(classStart);
    this.address = Int32Array.from(address);
    this.pod = Int32Array.from(pod);
    this.ns = Int32Array.from(ns);
    this.nth = Int32Array.from(nth);
    this.addresses = address.length;
    const sorted = (list: { value: bigint; at: number }[]) => {
      list.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : a.at - b.at));
      return { values: list.map((x) => x.value), at: Int32Array.from(list, (x) => x.at) };
    };
    this.sorted = { 4: sorted(byFamily[4]), 6: sorted(byFamily[6]) };
  }

  get classCount(): number {
    return this.classStart.length - 1;
  }

  /**
   * Each address's class under `slots` (classes/addresses.ts), numbered class × 2 (+ 1 for IPv6)
   * and indexed by address number: one walk of the sorted addresses along the intervals.
   */
  addressClasses(slots: AddressSlots): Int32Array {
    const out = new Int32Array(this.addresses);
    for (const family of [4, 6] as const) {
      const { values, at } = this.sorted[family];
      const intervals = slots.intervals[family];
      const classOf = slots.classOf[family];
      let j = 0;
      for (let i = 0; i < values.length; i++) {
        while (intervals[j]!.hi < values[i]!) j++;
        out[at[i]!] = classOf[j]! * 2 + (family === 6 ? 1 : 0);
      }
    }
    return out;
  }

  /**
   * Calls `visit` for the first entry of each address class within each pod class (a pod without
   * an address is a class of its own), in walking order: the endpoints a peer set lists.
   */
  forEachDistinct(classOfAddress: Int32Array, visit: (endpoint: Endpoint, nsIdx: number, address: number) => void): void {
    // A pod class mostly shows one or two address classes (most classes are one pod): a short
    // list, not a Set per class; a Set once it grows (10⁴ /32 rules over one class's pods).
    const seen: number[] = [];
    let many: Set<number> | null = null;
    for (let c = 0; c < this.classCount; c++) {
      seen.length = 0;
      many = null;
      for (let e = this.classStart[c]!; e < this.classStart[c + 1]!; e++) {
        const a = this.address[e]!;
        const at = a === NO_ADDRESS ? -1 : classOfAddress[a]!;
        if (many ? many.has(at) : seen.includes(at)) continue;
        if (many) many.add(at);
        else if (seen.push(at) > 16) many = new Set(seen);
        visit(this.endpoint(e), this.ns[e]!, a);
      }
    }
  }

  /** The values of `byAddress` (by address number; -1: none) in address order, IPv4 first. */
  inAddressOrder(byAddress: Int32Array): number[] {
    const out: number[] = [];
    for (const family of [4, 6] as const) {
      for (const a of this.sorted[family].at) if (byAddress[a]! >= 0) out.push(byAddress[a]!);
    }
    return out;
  }

  get addressCount(): number {
    return this.addresses;
  }

  private endpoint(e: number): Endpoint {
    let made = this.made[e];
    if (!made) {
      const pod = this.pods[this.pod[e]!]!;
      this.made[e] = made = { kind: 'pod', pod, ip: pod.ips[this.nth[e]!] ?? null };
    }
    return made;
  }
}
