// policy.networking.k8s.io/v1alpha2 ClusterNetworkPolicy
// (kubernetes-sigs/network-policy-api apis/v1alpha2/clusternetworkpolicy_types.go).
import { z } from '../zod.js';
import { ObjectMetaSchema, sortedObject } from './meta.js';
import { checkNamedPortPeers, checkRange, clusterPeer, PortNumberValue, type ClusterPeer, type ClusterPort } from './cluster-peer.js';
import { clusterSubject } from './cluster-selection.js';

export const V1ALPHA2_LIMITS = { rules: 25, peers: 25, protocols: 25, networks: 25, domainNames: 25, ruleName: 100, maxPriority: 1000 } as const;

// Port: "exactly one" of number | range; range is strict: "Start port must be less than End port".
const DestinationPortSchema = sortedObject({
    number: PortNumberValue.optional(),
    range: sortedObject({ start: PortNumberValue, end: PortNumberValue }).superRefine((r, ctx) => checkRange(r, ctx, [])).optional(),
  })
  .transform((p, ctx) => {
    if ((p.number === undefined) === (p.range === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of number, range must be set' });
      return z.NEVER;
    }
    return p.number !== undefined ? { start: p.number, end: p.number } : p.range!;
  });

// tcp/udp/sctp: MinProperties=1, so `tcp: {}` is invalid upstream.
const ProtocolPortSchema = sortedObject({ destinationPort: DestinationPortSchema.optional() }).superRefine((p, ctx) => {
  if (p.destinationPort === undefined) ctx.addIssue({ code: 'custom', path: ['destinationPort'], message: 'must be specified (the protocol entry needs at least one field)' });
});

const ProtocolEntrySchema = sortedObject({ tcp: ProtocolPortSchema.optional(), udp: ProtocolPortSchema.optional(), sctp: ProtocolPortSchema.optional(), destinationNamedPort: z.string().min(1).optional() })
  .transform((e, ctx): ClusterPort => {
    const set = (['tcp', 'udp', 'sctp', 'destinationNamedPort'] as const).filter((k) => e[k] !== undefined);
    if (set.length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: `exactly one of tcp, udp, sctp, destinationNamedPort must be set${set.length ? ` (found ${set.join(', ')})` : ''}` });
      return z.NEVER;
    }
    if (e.destinationNamedPort !== undefined) return { name: e.destinationNamedPort, type: 'named' };
    const key = set[0] as 'tcp' | 'udp' | 'sctp';
    const range = e[key]!.destinationPort!;
    return { end: range.end, protocol: key.toUpperCase() as 'TCP' | 'UDP' | 'SCTP', start: range.start, type: 'range' };
  });

const ProtocolsSchema = z
  .array(ProtocolEntrySchema)
  .min(1, 'must have at least 1 item')
  .max(V1ALPHA2_LIMITS.protocols, `must have at most ${V1ALPHA2_LIMITS.protocols} items`)
  .nullish()
  .transform((v) => v ?? null);

const LIST_LIMITS = { maxNetworks: V1ALPHA2_LIMITS.networks, maxDomainNames: V1ALPHA2_LIMITS.domainNames, version: 'v1alpha2' } as const;
const INGRESS_PEER = clusterPeer({ allowed: ['namespaces', 'pods'], ...LIST_LIMITS });
const EGRESS_PEER = clusterPeer({ allowed: ['namespaces', 'pods', 'nodes', 'networks', 'domainNames'], ...LIST_LIMITS });

// A v1alpha1 rule's `ports` (or the KEP draft's `ports: {port: …}`) is not a v1alpha2 field.
// Dropped, as a client ignores unknown fields, it would make a rule restricted to some ports
// match every port (a Deny on one port a Deny on all): docs/semantics.md "except where
// ignoring would change what a policy means". v1alpha2 ClusterNetworkPolicyIngressRule /
// EgressRule have `Protocols []ClusterNetworkPolicyProtocol json:"protocols,omitempty"` instead.
const NotV1alpha2Ports = z.unknown().superRefine((v, ctx) => {
  if (v !== undefined && v !== null) {
    ctx.addIssue({ code: 'custom', message: 'not a v1alpha2 field: ClusterNetworkPolicy (v1alpha2) names it `protocols`, with another shape (`[{tcp|udp|sctp: {destinationPort: {number} | {range: {start, end}}}} | {destinationNamedPort}]`); `ports: [{portNumber|portRange|namedPort}]` is v1alpha1 AdminNetworkPolicy. Ignoring it would make the rule match every port' });
  }
});

function rules(peerField: 'from' | 'to', peer: z.ZodType<ClusterPeer>) {
  return z
    .array(
      sortedObject({
          name: z.string().max(V1ALPHA2_LIMITS.ruleName, `may not be more than ${V1ALPHA2_LIMITS.ruleName} characters`).optional(),
          action: z.enum(['Accept', 'Deny', 'Pass'], { error: 'supported values: "Accept", "Deny", "Pass"' }),
          [peerField]: z.array(peer, { error: (issue) => (issue.input === undefined ? 'Required value' : 'must be a list of peers') }).min(1, 'must have at least 1 item').max(V1ALPHA2_LIMITS.peers, `must have at most ${V1ALPHA2_LIMITS.peers} items`),
          protocols: ProtocolsSchema,
          ports: NotV1alpha2Ports.optional(),
        })
        .superRefine((r, ctx) => checkNamedPortPeers(r[peerField] as ClusterPeer[], r.protocols as ClusterPort[] | null, ctx, peerField, 'protocols', true))
        .transform((r) => ({ action: r.action as 'Accept' | 'Deny' | 'Pass', name: r.name as string | undefined, peers: r[peerField] as ClusterPeer[], ports: r.protocols as ClusterPort[] | null })),
    )
    .max(V1ALPHA2_LIMITS.rules, `must have at most ${V1ALPHA2_LIMITS.rules} rules`)
    .nullish()
    .transform((v) => v ?? []);
}

export const ClusterNetworkPolicySchema = sortedObject({
  apiVersion: z.literal('policy.networking.k8s.io/v1alpha2'),
  kind: z.literal('ClusterNetworkPolicy'),
  metadata: ObjectMetaSchema,
  spec: sortedObject({
    tier: z.enum(['Admin', 'Baseline'], { error: 'supported values: "Admin", "Baseline"' }),
    priority: z
      .number({ error: 'must be an integer from 0 to 1000' })
      .int('must be an integer from 0 to 1000')
      .min(0, 'must be greater than or equal to 0')
      .max(V1ALPHA2_LIMITS.maxPriority, `must be less than or equal to ${V1ALPHA2_LIMITS.maxPriority}`),
    subject: clusterSubject('v1alpha2'),
    ingress: rules('from', INGRESS_PEER),
    egress: rules('to', EGRESS_PEER),
  }),
});
export type ClusterNetworkPolicy = z.infer<typeof ClusterNetworkPolicySchema>;
