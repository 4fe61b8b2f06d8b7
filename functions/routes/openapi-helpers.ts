// Response declarations every route shares, so each route declares all of its statuses.
import { z } from '@hono/zod-openapi';
import { ErrorSchema } from '../../schemas/api/verdicts.js';

/** A JSON response with its schema. */
export function json(description: string, schema: z.ZodTypeAny) {
  return { description, content: { 'application/json': { schema } } };
}

/** An error response: the shared Error body, or a schema extending it. */
export const errorResponse = (description: string, schema: z.ZodTypeAny = ErrorSchema) => json(description, schema);

/** A path parameter as registerPath declares it (every path template parameter must be declared). */
export const pathParam = (name: string, description: string) => ({ name, in: 'path' as const, required: true, schema: { type: 'string' as const }, description });

export function jsonBody(schema: z.ZodTypeAny) {
  return {
    required: true,
    content: {
      'application/json': { schema },
      'application/yaml': { schema: { type: 'string' as const, description: 'the same body as YAML; extra documents with `kind` are appended to the snapshot' } },
    },
  };
}

export function errorResponses(schema: z.ZodTypeAny) {
  const json = { 'application/json': { schema } };
  return {
    400: { description: 'malformed JSON or YAML', content: json },
    413: { description: 'body over the size limit (MAX_BODY_BYTES, 64 MiB by default), or the request over its time or memory budget on the Node server (`budget`: time | memory; REQUEST_TIME_BUDGET_SECONDS, REQUEST_MEMORY_MB), or an answer too large to encode', content: json },
    415: { description: 'content-type other than JSON or YAML', content: json },
    422: { description: 'schema violations: `issues` lists each with its JSON path and object', content: json },
    503: { description: 'overloaded: every compute thread busy and MAX_QUEUED_REQUESTS waiting; retry after Retry-After seconds', content: json },
  };
}

/** `?lenient=true` on every route that reads a snapshot. */
export const LenientQuery = z.object({
  lenient: z.enum(['true', 'false']).optional().openapi({ description: 'true: invalid objects and malformed YAML documents are left out and named in `warnings` instead of a 400/422 (default false: strict)' }),
});
