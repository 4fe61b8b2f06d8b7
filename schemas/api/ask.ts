// Chat-ops bodies: POST /v1/ask and GET /v1/clusters/{cluster}/ask. The question's grammar is
// the core's (core/ask/parse.ts); here only the envelope.
import { z } from '@hono/zod-openapi';
import { ErrorSchema } from './verdicts.js';

export const AskRequestSchema = z
  .object({
    question: z.string().openapi({ example: 'can shop/web reach shop/db on 5432?' }),
    snapshot: z.unknown().optional().openapi({ description: 'as for /v1/verdicts; or name a stored `cluster` instead' }),
    cluster: z.string().min(1).optional().openapi({ description: 'a stored cluster (needs a token that reads it when tokens are configured)' }),
    version: z.string().min(1).optional().openapi({ description: 'with `cluster`: a stored resourceVersion (latest by default)' }),
  })
  .superRefine((r, ctx) => {
    if ((r.snapshot === undefined) === (r.cluster === undefined)) ctx.addIssue({ code: 'custom', path: ['cluster'], message: 'give either snapshot or cluster' });
    if (r.version !== undefined && r.cluster === undefined) ctx.addIssue({ code: 'custom', path: ['version'], message: 'version goes with cluster' });
  });
export type AskRequest = z.infer<typeof AskRequestSchema>;

export const AskResponseSchema = z
  .object({
    kind: z.enum(['can', 'can-ports', 'can-list', 'can-group', 'who', 'what', 'who-list', 'what-list', 'exposed-list', 'metadata-list', 'who-group', 'what-group', 'exposed', 'metadata', 'policies', 'changed', 'no-verdict']).openapi({ description: '"can-list": several ports asked at once ("on 80 and 443", "on 8080-8082", at most 16), each answered as its own "can" in `answers`, with `allowed` (all, none or some) and `allowedPorts`/`deniedPorts`; "who-list"/"what-list"/"exposed-list"/"metadata-list": the same for "who can reach", "what can … reach", "is anything exposed to the internet" and "who can reach the cloud metadata address", each port\'s answer in `answers`; "can-group": a name standing for several endpoints (a Service, a label selector, a workload, a CIDR\'s regions that policies treat alike), answered for each; "who-group"/"what-group": "who can reach"/"what can … reach" for such a name, each member answered: `common` (the pods every member has alike) and, per member, what it has `beyond` that; "exposed": pods of a namespace that accept traffic from outside the cluster; "metadata": pods that can reach the cloud metadata address; "policies": the policies selecting a pod (or each set of a name\'s pods the same policies select) per direction and tier, and whether the NetworkPolicy tier isolates it ("which policies apply to X", "is X isolated"); "changed": a pod\'s verdicts between two stored versions; "no-verdict": what the snapshot cannot decide, and why' }),
    text: z.string().openapi({ description: 'the answer in one sentence' }),
    chain: z.array(z.string()).optional().openapi({ description: '"can" on one port: each side\'s decision chain, tier by tier (a "can-list" has each port\'s in `answers`)' }),
    cluster: z.string().optional(),
    version: z.string().optional(),
  })
  .loose()
  .openapi('AskAnswer', { description: 'Also as text/plain (the sentence, then the chain) when the Accept header prefers it. The full answer: the verdict for "can", pod groups for "who"/"what".' });

export const AskErrorSchema = ErrorSchema.extend({
  acceptedForms: z.array(z.string()).optional().openapi({ description: 'example questions, when the question could not be read' }),
}).openapi('AskError');
