// Request and response bodies of POST /v1/compile.
import { z } from '@hono/zod-openapi';

import { COMPILE_FORMATS } from '../formats.js';

export { COMPILE_FORMATS };

export const CompileRequestSchema = z.object({
  snapshot: z.unknown().refine((v) => v !== undefined, 'a snapshot is required').openapi({ description: 'as for /v1/verdicts' }),
  format: z.enum(COMPILE_FORMATS).default('ir'),
  nodes: z.array(z.string().min(1)).max(10_000).optional().openapi({ description: 'only these nodes (all by default)' }),
});
export type CompileRequest = z.infer<typeof CompileRequestSchema>;

const IrRuleSchema = z.object({
  action: z.enum(['PERMIT', 'DENY']),
  protocol: z.enum(['ANY', 'TCP', 'UDP', 'SCTP']),
  srcNetwork: z.string().openapi({ description: 'CIDR or "" for any; the sender in ingress tables' }),
  srcPortRange: z.tuple([z.number().int(), z.number().int()]).nullable(),
  dstNetwork: z.string().openapi({ description: 'CIDR or "" for any; the receiver in egress tables' }),
  dstPortRange: z.tuple([z.number().int(), z.number().int()]).nullable().openapi({ description: 'inclusive; null for every port' }),
});

const SetDefinitionSchema = z.record(z.string(), z.unknown()).openapi('SetDefinition', {
  description:
    'What the set selects, independent of its members: {type: "pods", namespaces: {selector} | {name} | {self: ns} | {notSelf: ns} | {sameLabels: [keys], of: ns} | {notSameLabels: [keys], of: ns}, pods: selector | null} | {type: "nodes", selector} | {type: "cidrs", cidrs, except} | {type: "named-port", of: definition | null, port, protocol}. Selectors are canonical (keys and values sorted).',
});
const PortSpecSchema = z.tuple([z.enum(['TCP', 'UDP', 'SCTP']), z.number().int(), z.number().int()]).openapi({ description: '[protocol, first port, last port], inclusive' });
const SetRuleSchema = z.object({
  action: z.enum(['allow', 'deny', 'pass']),
  set: z.string().nullable().openapi({ description: 'a set id; null is any address' }),
  ports: z.array(PortSpecSchema).nullable().openapi({ description: 'OR-ed; null is every protocol and port (always null with a ports set)' }),
});
export const SetIrSchema = z
  .object({
    version: z.literal('netpolc.io/ir/v2'),
    sets: z.record(
      z.string(),
      z.union([
        z.object({ kind: z.literal('addresses'), definition: SetDefinitionSchema, v4: z.array(z.string()), v6: z.array(z.string()), hash: z.string() }),
        z.object({ kind: z.literal('ports'), definition: SetDefinitionSchema, elements: z.array(z.tuple([z.string(), z.enum(['TCP', 'UDP', 'SCTP']), z.number().int()])), hash: z.string() }),
      ]),
    ).openapi({ description: 'id (s + 16 hex of the SHA-256 of the definition) → members: address sets as merged CIDR blocks per family, ports sets as (address, protocol, port) elements; hash changes exactly when the members do' }),
    tables: z.record(
      z.string(),
      z.object({
        direction: z.enum(['ingress', 'egress']),
        admin: z.array(SetRuleSchema),
        networkPolicy: z.object({ isolated: z.boolean(), rules: z.array(SetRuleSchema) }),
        baseline: z.array(SetRuleSchema),
      }),
    ).openapi({ description: 'id (r + 16 hex of the SHA-256 of the table JSON) → tiers: admin first match (pass continues), networkPolicy when isolated (allow iff a rule matches), baseline first match (pass continues), default allow' }),
    nodes: z.record(
      z.string(),
      z.object({
        addresses: z.array(z.string()).openapi({ description: 'node-local traffic from these into the node\'s pods is always allowed' }),
        pods: z.record(z.string(), z.object({ ips: z.array(z.string()), ingress: z.string(), egress: z.string() })),
        sets: z.array(z.string()),
        tables: z.array(z.string()),
      }),
    ),
  })
  .openapi('SetIr', { description: 'The set form (docs/dataplanes.md): tiered rules over shared address sets' });

export const CompileResponseSchema = z.object({
  format: z.enum(COMPILE_FORMATS),
  version: z.string().optional().openapi({ description: 'ir: the set form\'s schema version, netpolc.io/ir/v2' }),
  sets: SetIrSchema.shape.sets.optional(),
  tables: SetIrSchema.shape.tables.optional(),
  nodes: z.record(z.string(), z.unknown()).openapi({
    description:
      'ir: per node {addresses, pods: {"ns/pod": {ips, ingress, egress}}, sets, tables} (ids into the top-level sets and tables); ir-flat: {pods, tables: {tableId: [6-tuple rule]}, global}; other formats: the rendered artifact per node',
  }),
  stats: z.record(z.string(), z.number().int()).openapi({ description: 'pods, groups, tables, rules (and for ir: sets, members)' }),
  warnings: z.array(z.string()),
});
export { IrRuleSchema };
