// networking.k8s.io/v1 NetworkPolicy, validated as kubernetes pkg/apis/networking/validation
// does, and the legacy extensions/v1beta1 form of the original proposal (seed
// networkpolicy-v1beta1-proposal.txt), which only has ingress rules with pod/namespace peers.
import { z } from '../zod.js';
import { parseCidr } from './ip.js';
import { LabelSelectorSchema, NullableSelectorSchema, ObjectMetaSchema, PortNumber, PortNumberOrName, Protocol, sortedObject } from './meta.js';

export const IPBlockSchema = sortedObject({
    cidr: z.string({ error: 'must be specified' }),
    except: z.array(z.string()).nullish().transform((v) => v ?? []),
  })
  .superRefine((b, ctx) => {
    const cidr = parseCidr(b.cidr);
    if (!cidr) {
      ctx.addIssue({ code: 'custom', path: ['cidr'], message: `invalid CIDR "${b.cidr}": must be an IPv4 or IPv6 address with a prefix length, e.g. 10.0.0.0/16 or fd00::/64` });
      return;
    }
    b.except.forEach((text, i) => {
      const ex = parseCidr(text);
      if (!ex) {
        ctx.addIssue({ code: 'custom', path: ['except', i], message: `invalid CIDR "${text}"` });
        return;
      }
      // validation.go ValidateIPBlock: "must be a strict subset of `cidr`".
      const strictSubset = ex.family === cidr.family && cidr.lo <= ex.lo && ex.hi <= cidr.hi && !(ex.lo === cidr.lo && ex.hi === cidr.hi);
      if (!strictSubset) ctx.addIssue({ code: 'custom', path: ['except', i], message: `must be a strict subset of \`cidr\` (${b.cidr})` });
    });
  });

export const NetworkPolicyPortSchema = sortedObject({
    protocol: Protocol.default('TCP'),
    port: PortNumberOrName.optional(),
    endPort: PortNumber.optional(),
  })
  .superRefine((p, ctx) => {
    // KEP-2079 "Validations": endPort needs a numeric port and must be ≥ port.
    if (p.endPort === undefined) return;
    if (p.port === undefined) ctx.addIssue({ code: 'custom', path: ['endPort'], message: 'may not be specified when `port` is not specified' });
    else if (typeof p.port === 'string') ctx.addIssue({ code: 'custom', path: ['endPort'], message: 'may not be specified when `port` is non-numeric' });
    else if (p.endPort < p.port) ctx.addIssue({ code: 'custom', path: ['endPort'], message: `must be greater than or equal to \`port\` (${p.port})` });
  });
export type NetworkPolicyPort = z.infer<typeof NetworkPolicyPortSchema>;

export const NetworkPolicyPeerSchema = sortedObject({
    podSelector: LabelSelectorSchema.nullish().transform((v) => v ?? undefined),
    namespaceSelector: LabelSelectorSchema.nullish().transform((v) => v ?? undefined),
    ipBlock: IPBlockSchema.nullish().transform((v) => v ?? undefined),
  })
  .superRefine((p, ctx) => {
    const selectors = p.podSelector !== undefined || p.namespaceSelector !== undefined;
    if (!selectors && p.ipBlock === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'must specify a peer: podSelector, namespaceSelector or ipBlock' });
    if (selectors && p.ipBlock !== undefined) ctx.addIssue({ code: 'custom', path: ['ipBlock'], message: 'may not specify both podSelector/namespaceSelector and ipBlock' });
  });
export type NetworkPolicyPeer = z.infer<typeof NetworkPolicyPeerSchema>;

// `from`/`to`/`ports` keep the difference between missing (null) and empty ([]): the v1
// API treats both as "all", the legacy proposal treats [] as "nothing".
const optionalList = <T extends z.ZodTypeAny>(item: T) => z.array(item).nullish().transform((v) => v ?? null);

const IngressRuleSchema = sortedObject({ from: optionalList(NetworkPolicyPeerSchema), ports: optionalList(NetworkPolicyPortSchema) });
const EgressRuleSchema = sortedObject({ to: optionalList(NetworkPolicyPeerSchema), ports: optionalList(NetworkPolicyPortSchema) });

export const NetworkPolicySchema = sortedObject({
  apiVersion: z.literal('networking.k8s.io/v1'),
  kind: z.literal('NetworkPolicy'),
  // ValidateNetworkPolicy: ValidateObjectMeta(…, ValidateNetworkPolicyName), a DNS-1123 subdomain.
  metadata: ObjectMetaSchema,
  spec: sortedObject({
    podSelector: NullableSelectorSchema,
    policyTypes: z
      .array(z.enum(['Ingress', 'Egress'], { error: 'supported values: "Ingress", "Egress"' }))
      .max(2, 'may not specify more than two policyTypes')
      .nullish()
      .transform((v) => v ?? null),
    ingress: z.array(IngressRuleSchema).nullish().transform((v) => v ?? []),
    egress: z.array(EgressRuleSchema).nullish().transform((v) => v ?? []),
  }),
});
export type NetworkPolicy = z.infer<typeof NetworkPolicySchema>;

// The proposal's peer: "Exactly one of the following must be specified" (podSelector or
// namespaceSelector); it has no ipBlock, no egress and no policyTypes.
const LegacyPeerSchema = z
  .looseObject({
    podSelector: LabelSelectorSchema.nullish().transform((v) => v ?? undefined),
    namespaceSelector: LabelSelectorSchema.nullish().transform((v) => v ?? undefined),
  })
  .superRefine((p, ctx) => {
    if ('ipBlock' in p) ctx.addIssue({ code: 'custom', path: ['ipBlock'], message: 'not part of the extensions/v1beta1 proposal form; use apiVersion networking.k8s.io/v1 for ipBlock' });
    const n = Number(p.podSelector !== undefined) + Number(p.namespaceSelector !== undefined);
    if (n !== 1) ctx.addIssue({ code: 'custom', path: [], message: 'exactly one of podSelector or namespaceSelector must be specified (extensions/v1beta1 proposal form)' });
  })
  .transform(({ podSelector, namespaceSelector }) => ({ namespaceSelector, podSelector }));

const LegacyPortSchema = sortedObject({ protocol: Protocol.default('TCP'), port: PortNumberOrName.optional() });

export const LegacyNetworkPolicySchema = sortedObject({
  apiVersion: z.literal('extensions/v1beta1'),
  kind: z.literal('NetworkPolicy'),
  metadata: ObjectMetaSchema,
  spec: z
    .looseObject({
      podSelector: NullableSelectorSchema,
      ingress: z
        .array(sortedObject({ from: optionalList(LegacyPeerSchema), ports: optionalList(LegacyPortSchema) }))
        .nullish()
        .transform((v) => v ?? []),
    })
    .superRefine((spec, ctx) => {
      // Silently dropping an egress section would change what the policy means.
      for (const field of ['egress', 'policyTypes'] as const) {
        if (field in spec) ctx.addIssue({ code: 'custom', path: [field], message: `not part of the extensions/v1beta1 proposal form (ingress-only); use apiVersion networking.k8s.io/v1 for ${field}` });
      }
    })
    .transform(({ podSelector, ingress }) => ({ ingress, podSelector })),
});
export type LegacyNetworkPolicy = z.infer<typeof LegacyNetworkPolicySchema>;

/** The namespace annotation of the proposal: `{"ingress": {"isolation": "DefaultDeny"}}`. */
export const LegacyIsolationAnnotationSchema = sortedObject({
  ingress: sortedObject({ isolation: z.enum(['DefaultDeny']).optional() }).optional(),
});
