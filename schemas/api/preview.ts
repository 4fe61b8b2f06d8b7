// Request and response bodies of POST /v1/previews and POST /v1/lint.
import { z } from '@hono/zod-openapi';

const SnapshotField = (what: string) =>
  z.unknown().openapi({ description: `${what}: a Kubernetes List, {"items": [...]} or an array of objects, as \`kubectl get … -o json\` prints them`, example: { apiVersion: 'v1', kind: 'List', items: [] } });

export const ObjectRefSchema = z.object({
  kind: z.string().min(1),
  namespace: z.string().min(1).optional().openapi({ description: 'namespaced kinds default to "default"' }),
  name: z.string().min(1),
});

/** A change as previews and versions from changes take it: objects deleted, then objects applied. */
export const ChangesSchema = z.object({
  apply: z.array(z.unknown()).default([]).openapi({ description: 'objects to create or replace (same kind/namespace/name), as `kubectl apply` does' }),
  delete: z.array(ObjectRefSchema).default([]).openapi({ description: 'objects to remove before applying' }),
});

export const PREVIEW_DETAILS = ['aggregates', 'parts'] as const;

export const PreviewRequestSchema = z
  .object({
    base: SnapshotField('the cluster before the change').refine((v) => v !== undefined, 'a base snapshot is required'),
    head: SnapshotField('the cluster after the change (or send `changes`)').optional(),
    changes: ChangesSchema.optional().openapi({ description: 'the change to apply to `base` instead of sending `head`' }),
    tables: z.boolean().default(true).openapi({ description: 'include the per-node rule-table delta (compiles the base, and the head from it: the slow part); also `?tables=false`' }),
    lint: z.boolean().default(true).openapi({ description: 'include the lints of head, each marked new or already in base; also `?lint=false`' }),
    detail: z.enum(PREVIEW_DETAILS).default('aggregates').openapi({ description: '`parts`: every aggregate also lists its class pairs, and `endpoints` their members, so aggregates expand to exact pairs; also `?detail=parts`' }),
  })
  .superRefine((v, ctx) => {
    if (v.head === undefined && v.changes === undefined) ctx.addIssue({ code: 'custom', path: ['head'], message: 'send `head` (the snapshot after the change) or `changes` ({apply, delete})' });
    if (v.head !== undefined && v.changes !== undefined) ctx.addIssue({ code: 'custom', path: ['changes'], message: 'send either `head` or `changes`, not both' });
  });
export type PreviewRequest = z.infer<typeof PreviewRequestSchema>;

const Json = z.record(z.string(), z.unknown());
const PortRangesSchema = z.record(z.string(), z.array(z.tuple([z.number().int(), z.number().int()]))).openapi({ description: 'inclusive port ranges per protocol' });
const DeciderSchema = z.object({ allowed: z.boolean(), tier: z.string(), policy: Json.nullable(), rule: Json.nullable() });
const ExplanationSchema = z.object({ allowed: z.boolean(), text: z.string().openapi({ description: 'which rule on which side decided' }), reason: z.literal('node-local').optional(), egress: DeciderSchema.nullable(), ingress: DeciderSchema.nullable() });

export const EndpointGroupSchema = z
  .union([
    z.object({ kind: z.literal('pods'), namespaces: z.array(z.string()), workload: z.string().nullable(), whole: z.boolean(), groups: z.array(z.string()), pods: z.number().int(), of: z.number().int() }),
    z.object({ kind: z.literal('nodes'), nodes: z.array(z.string()) }),
    z.object({ kind: z.literal('external'), cidrs: z.array(z.string()) }),
  ])
  .openapi('EndpointGroup', { description: 'pods by namespace and workload label (`whole`: every pod of the namespaces), node addresses, or external ranges' });

export const AggregateSchema = z
  .object({
    change: z.enum(['removed', 'added']).openapi({ description: 'removed: allowed before, denied after' }),
    from: EndpointGroupSchema,
    to: EndpointGroupSchema,
    ports: z.string().openapi({ example: 'TCP 5432' }),
    ranges: PortRangesSchema,
    families: z.array(z.enum(['IPv4', 'IPv6'])),
    pairs: z.number().int().openapi({ description: 'endpoint pairs (pod–pod, pod–node address, pod–external range)' }),
    before: ExplanationSchema,
    after: ExplanationSchema,
    parts: z.array(z.object({ from: z.number().int(), to: z.number().int(), family: z.enum(['IPv4', 'IPv6']), locality: z.object({ base: z.boolean(), head: z.boolean() }).optional() })).optional().openapi({ description: 'detail=parts: the class pairs (ids into `endpoints`); node → pod parts hold the pairs whose pod runs (true) or does not run (false) on that node in each snapshot' }),
  })
  .openapi('PreviewChange');

const UncheckedSchema = z
  .object({
    code: z.string(),
    questions: z.number().int().openapi({ description: 'questions of this lint (rules; policy pairs for same-priority-overlap) left unanswered over the lint budgets: no finding is given for them either way' }),
  })
  .openapi('LintUnchecked');

const FindingSchema = z
  .object({
    code: z.string(),
    severity: z.enum(['error', 'warning', 'info']),
    message: z.string(),
    hint: z.string().openapi({ description: 'one-line fix' }),
    object: z.object({ apiVersion: z.string(), kind: z.string(), namespace: z.string().optional(), name: z.string() }),
    path: z.string().openapi({ description: 'JSON path into the request, e.g. $.snapshot.items[3].spec.ingress[1]' }),
    pathInObject: z.string().openapi({ example: 'spec.ingress[1]' }),
  })
  .openapi('Finding');

export const PreviewResponseSchema = z.object({
  summary: z.object({
    removed: z.object({ aggregates: z.number().int(), pairs: z.number().int() }),
    added: z.object({ aggregates: z.number().int(), pairs: z.number().int() }),
    pods: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.number().int() }),
    classes: Json,
    work: Json,
  }),
  changes: z.array(AggregateSchema),
  endpoints: z.array(Json).optional().openapi({ description: 'detail=parts: the classes parts refer to, with their members' }),
  tables: z.object({ nodes: Json, unchangedNodes: z.number().int(), stats: Json }).nullable().openapi({ description: 'per node, in the set form agents load (format=ir): tables added and removed (content ids) and the rules in them, sets added and removed (ids), sets kept whose members change and the members added and removed, pods rebound, whether the node addresses changed; `stats` per snapshot (the head is compiled from the base, so its `groups` counts the groups that compile made, not all); null with tables=false' }),
  lint: z.object({ findings: z.array(FindingSchema.extend({ new: z.boolean() })), resolved: z.array(FindingSchema), unchecked: z.array(UncheckedSchema) }).nullable(),
  workloads: z
    .object({
      added: z.array(z.object({ endpoint: z.string(), reachedBy: z.string(), reaches: z.string() })),
      retemplated: z.array(z.string()),
      deleted: z.array(z.string()),
    })
    .openapi({ description: 'workloads new in the head without pods (an endpoint without address, with who reaches it and what it reaches), workloads whose pods take a new template, workloads deleted with their pods' }),
  warnings: z.array(z.string()),
});

export const LintRequestSchema = z.object({ snapshot: SnapshotField('the cluster to lint').refine((v) => v !== undefined, 'a snapshot is required') });

export const LintResponseSchema = z.object({
  findings: z.array(FindingSchema),
  unchecked: z.array(UncheckedSchema),
  counts: z.object({ error: z.number().int(), warning: z.number().int(), info: z.number().int() }),
  warnings: z.array(z.string()),
});
