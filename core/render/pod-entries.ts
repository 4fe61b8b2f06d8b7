// Which table chains a node dispatches each local pod address to, as both kernel renderers
// write it (nftables verdict maps, iptables dispatch chains) and their deltas compare it.
import { parsedAddresses, type Family } from '../net/ip.js';
import type { SetNode } from '../sets/ir.js';

export interface PodEntry {
  readonly key: string;
  readonly family: Family;
  readonly value: bigint;
  readonly ip: string;
  readonly ingress: string;
  readonly egress: string;
}

/**
 * Verdict-map entries of pods: one per address, in address order. Two pods claiming one address
 * (a stale status) get it in pod key order, as the compiler does: a map holds a key once.
 */
export function podEntries(pods: SetNode['pods']): PodEntry[] {
  const out: PodEntry[] = [];
  const taken = new Set<string>();
  for (const key of Object.keys(pods).sort()) {
    const pod = pods[key]!;
    const addresses = parsedAddresses(pod.ips);
    for (let i = 0; i < pod.ips.length; i++) {
      const ip = pod.ips[i]!;
      const addr = addresses[i];
      if (!addr) throw new Error(`set form pod ${key} has a malformed address "${ip}"`);
      if (taken.has(`${addr.family}:${addr.value}`)) continue;
      taken.add(`${addr.family}:${addr.value}`);
      out.push({ key, family: addr.family, value: addr.value, ip, ingress: pod.ingress, egress: pod.egress });
    }
  }
  return out.sort((a, b) => a.family - b.family || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
