// What a question asks, as parse.ts reads it and answer.ts answers it.
import type { EndpointSpec } from '../evaluate/resolve.js';
import type { PortList, PortQuery } from './ports.js';

export type { PortList, PortQuery } from './ports.js';

export type Query =
  | ({ readonly kind: 'can'; readonly from: EndpointSpec; readonly to: EndpointSpec } & PortQuery)
  /** "can X reach Y on 80 and 443": each port asked as its own "can" question (answer.ts). */
  | ({ readonly kind: 'can-list'; readonly from: EndpointSpec; readonly to: EndpointSpec } & PortList)
  /** "who can reach Y on 80 and 443", "what can X reach on 80 and 443": each port as its own question. */
  | ({ readonly kind: 'who-list'; readonly to: EndpointSpec } & PortList & PodsIn)
  | ({ readonly kind: 'what-list'; readonly from: EndpointSpec } & PortList & PodsIn)
  | ({ readonly kind: 'who'; readonly to: EndpointSpec } & PortQuery & PodsIn)
  | ({ readonly kind: 'what'; readonly from: EndpointSpec } & PortQuery & PodsIn)
  /** Pods of `namespace` that accept traffic from an address outside the cluster (exposed.ts). */
  | ({ readonly kind: 'exposed'; readonly namespace: string } & PortQuery)
  /** Pods that can send to the cloud metadata address (metadata.ts); TCP 80 unless asked otherwise. */
  | ({ readonly kind: 'metadata' } & PortQuery & PodsIn)
  /** "is anything exposed to the internet in ns shop on 80 and 443", "who can reach the metadata address on 80 and 443": each port as its own question. */
  | ({ readonly kind: 'exposed-list'; readonly namespace: string } & PortList)
  | ({ readonly kind: 'metadata-list' } & PortList & PodsIn)
  /** The policies selecting `subject`'s pods per direction and tier; `isolation`: asked as "is X isolated" (policies.ts). */
  | { readonly kind: 'policies'; readonly subject: EndpointSpec; readonly isolation: boolean }
  /** `subject`'s verdicts in a stored version against those of version `since` (changed.ts). */
  | ({ readonly kind: 'changed'; readonly subject: EndpointSpec; readonly since: string } & PortQuery);

/**
 * "who in monitoring can reach shop/db", "what can web reach in shop", "which pods in shop can
 * reach the cloud metadata address": only the pods of this namespace are answered (the sources
 * of "who" and of the metadata question, the destinations of "what"); all by default.
 */
export interface PodsIn {
  readonly podsIn?: string;
}

export type CanQuery = Extract<Query, { kind: 'can' }>;
/** What a reach question reads into: one port (or every port), or a list of ports. */
export type ReachQuery = Extract<Query, { kind: 'can' | 'can-list' }>;

export interface ParseFailure {
  readonly error: string;
  readonly acceptedForms: readonly string[];
}
