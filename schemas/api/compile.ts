// Request and response bodies of POST /v1/compile.
import { z } from '@hono/zod-openapi';

export const COMPILE_FORMATS = ['ir', 'vpp-acl', 'vpp-session', 'nftables', 'iptables', 'openstack-sg'] as const;

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

export const CompileResponseSchema = z.object({
  format: z.enum(COMPILE_FORMATS),
  nodes: z.record(z.string(), z.unknown()).openapi({
    description:
      'ir: {pods: {"ns/pod": {ips, ingress: tableId, egress: tableId}}, tables: {tableId: [rule]}, global: tableId}; other formats: the rendered artifact per node',
  }),
  stats: z.object({ pods: z.number().int(), groups: z.number().int(), tables: z.number().int(), rules: z.number().int() }),
  warnings: z.array(z.string()),
});
export { IrRuleSchema };
