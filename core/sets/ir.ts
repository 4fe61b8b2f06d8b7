// The set form of compiled policy (format "ir"): tiered rules over shared address sets, as
// Antrea ships AddressGroups, OVN address sets and nftables named sets. Nothing in a table
// depends on who is in a set, so membership can change without renaming a set or a table.
//
// Semantics (what every renderer and simulator of this form implements):
//  - A flow src → dst:port/protocol is allowed iff the source pod's egress table and the
//    destination pod's ingress table both allow it (a side with no pod allows).
//  - Loopback: a pod's traffic to itself is always allowed (upstream e2e AllowLoopback).
//  - Node-local: traffic from one of the destination pod's node `addresses` is allowed before
//    its ingress table is read ("traffic to and from the node where a Pod is running is always
//    allowed").
//  - A table is read tier by tier: `admin` first match (allow/deny final, pass skips to the
//    NetworkPolicy tier); `networkPolicy`: when `isolated`, the flow is allowed iff one of its
//    rules matches and that answer is final, else the tier is skipped; `baseline` first match
//    (allow/deny final, pass skips to the default); default allow.
//  - A rule matches when its set holds the peer address (the sender for ingress tables, the
//    receiver for egress tables; `set: null` is any address) and its ports hold the flow's
//    protocol and port (`ports: null` is every protocol and port). A ports set holds
//    (address, protocol, port) elements and is used with `ports: null`.
import type { Direction, Protocol } from '../policy/model.js';

import type { IdRecord } from './id-record.js';

export const SET_IR_VERSION = 'netpolc.io/ir/v2';

/** `s` + 16 hex digits of the SHA-256 of the set's canonical definition. */
export type SetId = string;
/** `r` + 16 hex digits of the SHA-256 of the table's canonical JSON. */
export type RuleTableId = string;

/** A label selector in canonical form: keys sorted, values sorted and unique. */
export interface SelectorDefinition {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

/** Which namespaces a pods set draws from; relative forms name the subject's namespace. */
export type NamespacesDefinition =
  | { readonly selector: SelectorDefinition }
  | { readonly name: string }
  | { readonly self: string }
  | { readonly notSelf: string }
  | { readonly sameLabels: readonly string[]; readonly of: string }
  | { readonly notSameLabels: readonly string[]; readonly of: string };

/** What a set is, independent of who is in it: its id is the hash of this. */
export type SetDefinition =
  /** Pod addresses (never host-network pods) of the matching namespaces; pods null: every pod. */
  | { readonly type: 'pods'; readonly namespaces: NamespacesDefinition; readonly pods: SelectorDefinition | null }
  /** The addresses (status.addresses InternalIP/ExternalIP) of matching nodes. */
  | { readonly type: 'nodes'; readonly selector: SelectorDefinition }
  /** ipBlock / networks: the CIDRs minus the exceptions. */
  | { readonly type: 'cidrs'; readonly cidrs: readonly string[]; readonly except: readonly string[] }
  /** An egress named port resolved on each destination pod of `of` (null: every pod). */
  | { readonly type: 'named-port'; readonly of: SetDefinition | null; readonly port: string; readonly protocol: Protocol | null };

export interface AddressSet {
  readonly kind: 'addresses';
  readonly definition: SetDefinition;
  /** Merged, as CIDR blocks in address order (single addresses as /32 or /128). */
  readonly v4: readonly string[];
  readonly v6: readonly string[];
  /** `m` + 16 hex digits of the SHA-256 of the members (v4, v6): changes exactly when they do. */
  readonly hash: string;
}

/** (address, protocol, port), as nftables concatenated sets hold them. */
export type PortElement = readonly [address: string, protocol: Protocol, port: number];

export interface PortSet {
  readonly kind: 'ports';
  readonly definition: SetDefinition;
  /** Sorted by family, address, protocol, port; unique. */
  readonly elements: readonly PortElement[];
  readonly hash: string;
}

export type IrSet = AddressSet | PortSet;

/** [protocol, first port, last port], inclusive. */
export type PortSpec = readonly [protocol: Protocol, first: number, last: number];

export interface SetRule {
  readonly action: 'allow' | 'deny' | 'pass';
  /** null: any address. */
  readonly set: SetId | null;
  /** null: every protocol and port (always null with a ports set); otherwise OR-ed. */
  readonly ports: readonly PortSpec[] | null;
}

export interface RuleTable {
  readonly direction: Direction;
  /** AdminNetworkPolicy and Admin-tier ClusterNetworkPolicy rules, in priority and rule order. */
  readonly admin: readonly SetRule[];
  /** NetworkPolicy rules (allow only), read only when isolated. */
  readonly networkPolicy: { readonly isolated: boolean; readonly rules: readonly SetRule[] };
  /** BaselineAdminNetworkPolicy and Baseline-tier ClusterNetworkPolicy rules. */
  readonly baseline: readonly SetRule[];
}

export interface SetPod {
  /** Primary address first. */
  readonly ips: readonly string[];
  readonly ingress: RuleTableId;
  readonly egress: RuleTableId;
}

export interface SetNode {
  /** The node's own addresses: node-local traffic into its pods is always allowed. */
  readonly addresses: readonly string[];
  readonly pods: Readonly<Record<string, SetPod>>;
  /** Ids of the sets and tables this node's pods need, sorted. */
  readonly sets: readonly SetId[];
  readonly tables: readonly RuleTableId[];
}

export interface SetIr {
  readonly version: typeof SET_IR_VERSION;
  /** Every set and table some node needs, by id (JSON: an object in id order). */
  readonly sets: IdRecord<IrSet>;
  readonly tables: IdRecord<RuleTable>;
  readonly nodes: Readonly<Record<string, SetNode>>;
}
