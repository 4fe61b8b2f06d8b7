// policy.networking.k8s.io/v1alpha1 AdminNetworkPolicy and BaselineAdminNetworkPolicy
// (kubernetes-sigs/network-policy-api apis/v1alpha1, v0.1.x), plus the KEP-2091 draft
// spellings handled in cluster-peer.ts.
import { z } from '../zod.js';
import { inKeyOrder, ObjectMetaSchema, sortedObject } from './meta.js';
import {
  checkNamedPortPeers, checkRange, ClusterProtocol, clusterPeer, PortNumberValue,
  type ClusterPeer, type ClusterPort,
} from './cluster-peer.js';
import { clusterSubject } from './cluster-selection.js';

export const V1ALPHA1_LIMITS = { rules: 100, peers: 100, ports: 100, networks: 25, domainNames: 25, ruleName: 100, maxPriority: 1000 } as const;

const PortRangeSchema = sortedObject({ protocol: ClusterProtocol.default('TCP'), start: PortNumberValue, end: PortNumberValue })
  .superRefine((r, ctx) => checkRange(r, ctx, []));

// AdminNetworkPolicyPort: "Exactly one field must be set."
const AnpPortSchema = sortedObject({
    portNumber: sortedObject({ protocol: ClusterProtocol.default('TCP'), port: PortNumberValue }).optional(),
    namedPort: z.string().min(1).optional(),
    portRange: PortRangeSchema.optional(),
  })
  .transform((p, ctx): ClusterPort => {
    const set = (['portNumber', 'namedPort', 'portRange'] as const).filter((k) => p[k] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: `exactly one of portNumber, namedPort, portRange must be set${set.length ? ` (found ${set.join(', ')})` : ''}` });
      return z.NEVER;
    }
    if (p.portNumber) return { end: p.portNumber.port, protocol: p.portNumber.protocol, start: p.portNumber.port, type: 'range' };
    if (p.portRange) return { end: p.portRange.end, protocol: p.portRange.protocol, start: p.portRange.start, type: 'range' };
    return { name: p.namedPort!, type: 'named' };
  });

// The KEP-2091 Story 3 sample writes `ports: {port: [{protocol, number}]}`; it is rewritten
// to portNumber entries before validation, so issues keep their paths.
function fromDraftPorts(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || !Array.isArray((raw as { port?: unknown }).port)) return raw;
  return ((raw as { port: unknown[] }).port).map((p) => {
    const { number, ...rest } = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    return { portNumber: { ...rest, port: number } };
  });
}

const PortsSchema = z.preprocess(
  fromDraftPorts,
  z.array(AnpPortSchema).min(1, 'must have at least 1 item').max(V1ALPHA1_LIMITS.ports, `must have at most ${V1ALPHA1_LIMITS.ports} items`).nullish().transform((v) => v ?? null),
);

const RuleName = z.string().max(V1ALPHA1_LIMITS.ruleName, `may not be more than ${V1ALPHA1_LIMITS.ruleName} characters`).optional();

const ALL_EGRESS = ['namespaces', 'pods', 'nodes', 'networks', 'domainNames'] as const;
const LIST_LIMITS = { maxNetworks: V1ALPHA1_LIMITS.networks, maxDomainNames: V1ALPHA1_LIMITS.domainNames, version: 'v1alpha1' } as const;
const ANP_INGRESS_PEER = clusterPeer({ allowed: ['namespaces', 'pods'], ...LIST_LIMITS });
const ANP_EGRESS_PEER = clusterPeer({ allowed: ALL_EGRESS, ...LIST_LIMITS });
const BANP_EGRESS_PEER = clusterPeer({ allowed: ['namespaces', 'pods', 'nodes', 'networks'], ...LIST_LIMITS });

// The v1alpha2 `protocols` is not a v1alpha1 field; dropped, it would make a rule restricted to
// some ports match every port (docs/semantics.md, unknown fields). v1alpha1 rules have
// `Ports *[]AdminNetworkPolicyPort json:"ports,omitempty"`.
const NotV1alpha1Protocols = z.unknown().superRefine((v, ctx) => {
  if (v !== undefined && v !== null) {
    ctx.addIssue({ code: 'custom', message: 'not a v1alpha1 field: AdminNetworkPolicy/BaselineAdminNetworkPolicy (v1alpha1) name it `ports`, with another shape (`[{portNumber: {protocol, port}} | {portRange: {protocol, start, end}} | {namedPort}]`); `protocols` is v1alpha2 ClusterNetworkPolicy. Ignoring it would make the rule match every port' });
  }
});

const peers = (peer: z.ZodType<ClusterPeer>) =>
  z.array(peer, { error: (issue) => (issue.input === undefined ? 'Required value' : 'must be a list of peers') }).min(1, 'must have at least 1 item').max(V1ALPHA1_LIMITS.peers, `must have at most ${V1ALPHA1_LIMITS.peers} items`);

function rules<A extends string>(actions: readonly [A, ...A[]], peerField: 'from' | 'to', peer: z.ZodType<ClusterPeer>) {
  const action = z.enum(actions, { error: `supported values: ${actions.map((a) => `"${a}"`).join(', ')}` });
  return z
    .array(
      sortedObject({ name: RuleName, action, [peerField]: peers(peer), ports: PortsSchema, protocols: NotV1alpha1Protocols.optional() })
        .superRefine((r, ctx) => checkNamedPortPeers(r[peerField] as ClusterPeer[], r.ports as ClusterPort[] | null, ctx, peerField, 'ports'))
        .transform((r) => ({ action: r.action as A, name: r.name as string | undefined, peers: r[peerField] as ClusterPeer[], ports: r.ports as ClusterPort[] | null })),
    )
    .max(V1ALPHA1_LIMITS.rules, `must have at most ${V1ALPHA1_LIMITS.rules} rules`)
    .nullish()
    .transform((v) => v ?? []);
}

/**
 * Spec fields of ClusterNetworkPolicy (v1alpha2) that a v1alpha1 spec lacks. Dropped, as the CRD
 * prunes them, where that keeps what the policy means: listed in `ignoredFields` and warned
 * about (core/policy/from-cluster-policy.ts). Rejected where it would not: an
 * AdminNetworkPolicy is in the Admin tier and a BaselineAdminNetworkPolicy in the Baseline
 * tier whatever `tier` says (docs/semantics.md, unknown fields).
 */
const ForeignField = z.unknown().optional();

function tierIgnored(kind: 'AdminNetworkPolicy' | 'BaselineAdminNetworkPolicy', tier: unknown, ctx: z.RefinementCtx): string[] {
  if (tier === undefined || tier === null) return [];
  const own = kind === 'AdminNetworkPolicy' ? 'Admin' : 'Baseline';
  if (tier !== own) {
    const other = kind === 'AdminNetworkPolicy' ? 'a BaselineAdminNetworkPolicy' : 'an AdminNetworkPolicy';
    ctx.addIssue({ code: 'custom', path: ['tier'], message: `not a v1alpha1 field: ${kind === 'AdminNetworkPolicy' ? 'an' : 'a'} ${kind} is always in the ${own} tier, so tier ${JSON.stringify(tier)} cannot be honoured; a policy of that tier is ${other} or a v1alpha2 ClusterNetworkPolicy` });
  }
  return ['tier'];
}

const withIgnored = <T extends object>(spec: T, ignored: string[]): T & { ignoredFields?: string[] } =>
  inKeyOrder(ignored.length > 0 ? { ...spec, ignoredFields: ignored } : spec);

export const AdminNetworkPolicySchema = sortedObject({
  apiVersion: z.literal('policy.networking.k8s.io/v1alpha1'),
  kind: z.literal('AdminNetworkPolicy'),
  metadata: ObjectMetaSchema,
  spec: sortedObject({
    priority: z
      .number({ error: 'must be an integer from 0 to 1000' })
      .int('must be an integer from 0 to 1000')
      .min(0, 'must be greater than or equal to 0')
      .max(V1ALPHA1_LIMITS.maxPriority, `must be less than or equal to ${V1ALPHA1_LIMITS.maxPriority}`),
    subject: clusterSubject('v1alpha1'),
    ingress: rules(['Allow', 'Deny', 'Pass'], 'from', ANP_INGRESS_PEER),
    egress: rules(['Allow', 'Deny', 'Pass'], 'to', ANP_EGRESS_PEER),
    tier: ForeignField,
  }).transform(({ tier, ...spec }, ctx) => withIgnored(spec, tierIgnored('AdminNetworkPolicy', tier, ctx))),
});
export type AdminNetworkPolicy = z.infer<typeof AdminNetworkPolicySchema>;

export const BaselineAdminNetworkPolicySchema = sortedObject({
  apiVersion: z.literal('policy.networking.k8s.io/v1alpha1'),
  kind: z.literal('BaselineAdminNetworkPolicy'),
  metadata: ObjectMetaSchema.extend({
    name: z.literal('default', { error: 'Only one baseline admin network policy with metadata.name="default" can be created in the cluster' }),
  }),
  spec: sortedObject({
    subject: clusterSubject('v1alpha1'),
    ingress: rules(['Allow', 'Deny'], 'from', ANP_INGRESS_PEER),
    egress: rules(['Allow', 'Deny'], 'to', BANP_EGRESS_PEER),
    tier: ForeignField,
    priority: ForeignField,
  }).transform(({ tier, priority, ...spec }, ctx) =>
    // KEP-2091: "There is no Priority field associated with BaselineAdminNetworkPolicy"; the one
    // BANP (metadata.name "default") is evaluated after every Baseline-tier ClusterNetworkPolicy.
    withIgnored(spec, [...(priority === undefined || priority === null ? [] : ['priority']), ...tierIgnored('BaselineAdminNetworkPolicy', tier, ctx)]),
  ),
});
export type BaselineAdminNetworkPolicy = z.infer<typeof BaselineAdminNetworkPolicySchema>;
