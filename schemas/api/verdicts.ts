// Request and response bodies of POST /v1/verdicts and POST /v1/matrix.
import { z } from '@hono/zod-openapi';
import { LabelSelectorSchema, PortNumber, PortNumberOrName, Protocol } from '../k8s/meta.js';
import { ValidationIssueSchema } from '../snapshot.js';

export const API_LIMITS = {
  /** Request body size; override with MAX_BODY_BYTES. */
  maxBodyBytes: 64 * 1024 * 1024,
  flowsPerRequest: 10_000,
  /** pods × pods × ports in one matrix. */
  matrixCells: 1_000_000,
  /**
   * Bodies of the routes that carry a few fields, never a snapshot (PUT …/latest, POST
   * /v1/store/collect): refused past this before they are read (413), so no body costs the
   * serving thread a parse. Their schemas need well under 1 KiB.
   */
  smallBodyBytes: 4 * 1024,
} as const;

/** `namespace/pod`, `namespace/kind/name`, `namespace/key=value[,…]`, a node name or a CIDR (core/evaluate/names.ts reads them). */
const ENDPOINT_NAME = /^[^/\s]+(\/[^\s]*[^/\s])?$/;
const ENDPOINT_MESSAGE = 'must be "namespace/pod", "namespace/kind/name" (e.g. "shop/deployment/web", "shop/svc/db"), "namespace/label=value", a node name or a CIDR';

export const EndpointRefSchema = z
  .union([
    z.string().regex(ENDPOINT_NAME, ENDPOINT_MESSAGE),
    z.object({ pod: z.string().regex(ENDPOINT_NAME, ENDPOINT_MESSAGE) }),
    z.object({ ip: z.string().min(1) }),
  ])
  .transform((v) => (typeof v === 'string' ? { pod: v } : v))
  .openapi({ description: '"namespace/pod"; "namespace/kind/name" for a workload (deployment, deploy, statefulset, sts, daemonset, ds, replicaset, rs, replicationcontroller, rc, job, cronjob, cj: each of its pods) or a Service (svc, service: each backing pod on its targetPort); "namespace/key=value[,key=value]" for every pod a label selector picks; "namespace/name" when exactly one pod, workload or Service has that name; a node name; {"pod": …} or {"ip": "…"} (an IP that belongs to a pod or a node is that pod or node; a ClusterIP, or a node address on a NodePort, is the Service); a CIDR ("10.0.0.0/16", "fd00::/64", as a string or as {"ip": …}) for each region of it that policies treat alike — cut at every ipBlock and `networks` range and exception of every policy and at every pod, node and ClusterIP address in it, at most 256 regions — each answered by one address of it', example: 'x/a' });

export const FlowRequestSchema = z.object({
  from: EndpointRefSchema,
  to: EndpointRefSchema,
  port: PortNumberOrName.openapi({ description: 'a number, or a named port of the destination pod', example: 80 }),
  protocol: Protocol.default('TCP'),
  ipFamily: z.enum(['IPv4', 'IPv6']).optional().openapi({ description: "default: the destination's primary family that the source also has" }),
});
export type FlowRequest = z.infer<typeof FlowRequestSchema>;

const SnapshotField = z.unknown().refine((v) => v !== undefined, 'a snapshot is required').openapi({
  description: 'A Kubernetes List ({"kind": "List", "items": [...]}), {"items": [...]} or an array of objects, as `kubectl get … -o json` prints them',
  example: { apiVersion: 'v1', kind: 'List', items: [] },
});

export const VerdictsRequestSchema = z.object({
  snapshot: SnapshotField,
  flows: z.array(FlowRequestSchema).min(1, 'must have at least 1 flow').max(API_LIMITS.flowsPerRequest, `at most ${API_LIMITS.flowsPerRequest} flows per request`),
});
export type VerdictsRequest = z.infer<typeof VerdictsRequestSchema>;
// A snapshot sent to a stored-cluster route would be ignored: refused instead, so nobody believes it was used.
const NO_SNAPSHOT = 'the snapshot is the stored version: store a new one with PUT /v1/clusters/{cluster}/snapshots/{resourceVersion}, or send it to the stateless route';
const NoSnapshot = z
  .unknown()
  .refine((v) => v === undefined, NO_SNAPSHOT)
  .optional()
  .openapi({ description: `not accepted here: ${NO_SNAPSHOT}` });
/** POST /v1/clusters/{cluster}/verdicts: the snapshot is the stored version. */
export const StoredVerdictsRequestSchema = VerdictsRequestSchema.omit({ snapshot: true }).extend({ snapshot: NoSnapshot });

const PolicyRefSchema = z.object({ apiVersion: z.string(), kind: z.string(), name: z.string(), namespace: z.string().optional() });
const RuleRefSchema = z.object({ index: z.number().int(), name: z.string().optional() });
const TierSchema = z.enum(['admin', 'networkpolicy', 'baseline', 'default']);

export const TraceStepSchema = z.object({
  tier: TierSchema,
  outcome: z.enum(['allow', 'deny', 'pass', 'no-match']),
  policy: PolicyRefSchema.optional(),
  rule: RuleRefSchema.optional(),
  message: z.string(),
});

export const SideVerdictSchema = z
  .object({
    allowed: z.boolean(),
    tier: TierSchema.openapi({ description: 'the tier that decided' }),
    policy: PolicyRefSchema.nullable(),
    rule: RuleRefSchema.nullable(),
    trace: z.array(TraceStepSchema).openapi({ description: 'every tier consulted, in order, and what it said' }),
  })
  .openapi('SideVerdict');

const FlowVerdictSchema = z
  .object({
    allowed: z.boolean(),
    reason: z.enum(['loopback', 'node-local']).optional(),
    egress: SideVerdictSchema.nullable().openapi({ description: 'null where the source is not a policy-subject pod' }),
    ingress: SideVerdictSchema.nullable().openapi({ description: 'null where the destination is not a policy-subject pod' }),
    flow: z.object({ from: z.string(), to: z.string(), port: z.number().int(), protocol: Protocol, ipFamily: z.enum(['IPv4', 'IPv6']).nullable() }),
  })
  .openapi('FlowVerdict');

const RegionSchema = z
  .object({
    cidrs: z.array(z.string()).openapi({ description: 'the CIDRs the region covers, in address order' }),
    address: z.string().openapi({ description: 'the address evaluated for all of it (`flow.from` or `flow.to`)' }),
    owner: z.string().nullable().openapi({ description: '"pod shop/db-0", "node node-1", "the ClusterIP of shop/svc/db"; null for addresses outside the cluster' }),
    name: z.string().openapi({ example: '10.0.0.0/24 + 10.0.2.0/23' }),
    via: z.string().optional().openapi({ description: 'on a backing pod reached through the region\'s address (a ClusterIP, a node address on a NodePort): the Service' }),
  })
  .openapi('AddressRegion', { description: 'Addresses of a CIDR that every policy treats alike' });

const MemberVerdictSchema = FlowVerdictSchema.extend({
  regions: z.object({ from: RegionSchema.optional(), to: RegionSchema.optional() }).optional().openapi({ description: 'when an end is a CIDR: the region of it this member answers for' }),
}).openapi('MemberVerdict');

export const VerdictSchema = FlowVerdictSchema.extend({
  egress: SideVerdictSchema.nullable().openapi({ description: 'null where the source is not a policy-subject pod, or the flow names several pods (see `members`)' }),
  ingress: SideVerdictSchema.nullable().openapi({ description: 'null where the destination is not a policy-subject pod, or the flow names several pods (see `members`)' }),
  flow: z.object({ from: z.string(), to: z.string(), port: z.union([z.number().int(), z.string()]), protocol: Protocol, ipFamily: z.enum(['IPv4', 'IPv6']).nullable() }),
  summary: z.string().optional().openapi({ description: 'a name standing for several pods: "all 2 allowed", "1 of 2 allowed"' }),
  resolved: z.array(z.string()).optional().openapi({ description: 'how each such name was read, e.g. "shop/svc/db → 2 backing pods (selector app=db), port 5432 → targetPort 5432"' }),
  notes: z.array(z.string()).optional().openapi({ description: 'pods and regions left out and why' }),
  members: z.array(MemberVerdictSchema).optional().openapi({ description: 'each pair of endpoints the names stand for; `allowed` is true only when every member is' }),
}).openapi('Verdict');

export const VerdictsResponseSchema = z.object({ verdicts: z.array(VerdictSchema), warnings: z.array(z.string()) });

export const MatrixRequestSchema = z.object({
  snapshot: SnapshotField,
  ports: z
    .array(z.object({ port: PortNumber, protocol: Protocol.default('TCP') }))
    .min(1)
    .max(64)
    .default([{ port: 80, protocol: 'TCP' }]),
  pods: z
    .object({
      namespaces: z.array(z.string()).optional(),
      selector: LabelSelectorSchema.optional(),
      names: z.array(z.string()).optional().openapi({ description: '"namespace/pod" keys' }),
    })
    .optional()
    .openapi({ description: 'which pods form the rows and columns (all policy-subject pods by default)' }),
  ipFamily: z.enum(['IPv4', 'IPv6']).optional(),
});
export type MatrixRequest = z.infer<typeof MatrixRequestSchema>;
export const StoredMatrixRequestSchema = MatrixRequestSchema.omit({ snapshot: true }).extend({ snapshot: NoSnapshot });

export const MatrixResponseSchema = z.object({
  pods: z.array(z.string()),
  results: z.array(
    z.object({
      port: z.number().int(),
      protocol: Protocol,
      allowed: z.array(z.array(z.boolean())).openapi({ description: 'allowed[i][j]: pods[i] → pods[j]' }),
      counts: z.object({ allowed: z.number().int(), denied: z.number().int() }),
      table: z.string().openapi({ description: 'the truth table as upstream e2e prints it: "." allowed, "X" denied' }),
    }),
  ),
  warnings: z.array(z.string()),
});

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ example: 'invalid' }),
    message: z.string(),
    issues: z.array(ValidationIssueSchema).optional().openapi({ description: 'each problem with its JSON path; at most 100 (issuesOmitted counts the rest)' }),
    issuesOmitted: z.number().int().optional().openapi({ description: 'problems beyond the 100 listed' }),
    budget: z.enum(['time', 'memory']).optional().openapi({ description: 'on a 413 from the Node server: the per-request budget the request went over' }),
  })
  .openapi('Error');
