// Declarations the routes share in their createRoute contracts: responses every route of a kind
// answers, request bodies, query values, and the hook that words a query or path parameter the
// route's schema rejects as the API's 422.
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { JSONParsed } from 'hono/utils/types';
import { ErrorSchema } from '../schemas/api/verdicts.js';
import { formatPath } from '../schemas/snapshot.js';
import type { AppEnv } from './context.js';
import { invalid } from './errors.js';
import { nameProblem } from '../infra/store/keys.js';

/** A JSON response with its schema. */
export function json<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { 'application/json': { schema } } };
}

/** An error response: the shared Error body, or a schema extending it. */
export function errorResponse<S extends z.ZodType = typeof ErrorSchema>(description: string, schema?: S) {
  return json(description, schema ?? ErrorSchema);
}

/** The errors of a route that reads a snapshot from its body. */
export function bodyErrorResponses<S extends z.ZodType = typeof ErrorSchema>(schema?: S) {
  const content = { 'application/json': { schema: schema ?? ErrorSchema } };
  return {
    400: { description: 'malformed JSON or YAML', content },
    413: { description: 'body over the size limit (MAX_BODY_BYTES, 64 MiB by default), or the request over its time or memory budget on the Node server (`budget`: time | memory; REQUEST_TIME_BUDGET_SECONDS, REQUEST_MEMORY_MB), or an answer too large to encode', content },
    415: { description: 'content-type other than JSON or YAML', content },
    422: { description: 'schema violations: `issues` lists each with its JSON path and object; or a form the snapshot cannot be compiled into within its documented limits (flat tables, VPP and OpenStack renderings), at the field that asked for it (`$.format`); or a preview whose change alters connectivity in more ways than its limit (`$.head`, `$.changes`)', content },
    503: { description: 'overloaded: every compute thread busy and MAX_QUEUED_REQUESTS waiting; retry after Retry-After seconds', content },
  };
}

export const ACCESS_RESPONSES = {
  401: errorResponse('no valid bearer token (when tokens are configured); WWW-Authenticate: Bearer'),
  403: errorResponse("the token's scope does not cover this cluster, node or write"),
};

/**
 * A request body: JSON, or YAML (functions/body.ts reads both, within the size limit, leniently
 * on request), checked with `schema` by the route. The document names the schema as a component
 * and refers to it: a zod schema in the route's body would make zod-openapi parse and validate
 * JSON bodies itself, with other errors than the API's, and refuse YAML.
 */
export function requestBody(app: OpenAPIHono<AppEnv>, name: string, schema: z.ZodType, required = true) {
  app.openAPIRegistry.register(name, schema);
  return {
    required,
    content: {
      'application/json': { schema: { $ref: `#/components/schemas/${name}` } },
      'application/yaml': { schema: { type: 'string' as const, description: 'the same body as YAML; extra documents with `kind` are appended to the snapshot' } },
    },
  };
}

/** A query value as the routes read it: a key given twice is read at its first value. */
export const queryValue = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (Array.isArray(v) ? v[0] : v), schema);

/**
 * Boolean query parameters (lenient, tables, lint): exactly `true` or `false`. Anything else
 * (`1`, `TRUE`, `yes`, empty) is a 422 at `$.query.<name>`, never silently read as false. Read
 * where the route reads the value (request.ts queryFlag, or a route that checks it after its body).
 */
export const FLAGS = ['true', 'false'] as const;
export const FLAG_MESSAGE = 'must be true or false';
export const isFlag = (v: string): v is (typeof FLAGS)[number] => (FLAGS as readonly string[]).includes(v);
export const flagQuery = (description: string) => queryValue(z.string()).optional().openapi({ enum: [...FLAGS], description });

/** `?lenient=true` on every route that reads a snapshot. */
export const LenientQuery = z.object({
  lenient: flagQuery('true: invalid objects and malformed YAML documents are left out and named in `warnings` instead of a 400/422 (default false: strict)'),
});

/** Why a value cannot be a stored version (null: it can). */
export const versionProblem = (v: string): string | null => nameProblem('version', v);

/**
 * `?version=` / `?since=`: a stored version as the store's keys take it (infra/store/keys.ts), so
 * a value no version can have is a 422 at `$.query.<name>` before the store is asked.
 */
export const storedVersionQuery = (description: string) =>
  queryValue(
    z.string().superRefine((v, ctx) => {
      const problem = versionProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
    .optional()
    .openapi({ description });

export const ClusterParams = z.object({ cluster: z.string().openapi({ description: 'the cluster name' }) });
export const VersionParams = ClusterParams.extend({ version: z.string().openapi({ description: 'a resourceVersion of the cluster' }) });

/** A query or path parameter the route's schema rejects: a 422 naming it ($.query.format). */
export const validationHook = (result: { target: string; success: boolean; error?: z.ZodError }): void => {
  if (result.success || !result.error) return;
  throw invalid(result.error.issues.map((i) => ({ path: formatPath(`$.${result.target}`, i.path), message: i.message })));
};

/** A value as its JSON body reads: arrays and members writable (core's values are readonly), `toJSON` applied, so it checks against the response schema's type. */
export type JsonBody<T> = T extends (...args: never[]) => unknown
  ? never
  : T extends { toJSON(): infer J }
    ? JsonBody<J>
    : T extends object
      ? { -readonly [K in keyof T]: JsonBody<T[K]> }
      : T;

/** `value` typed as its JSON body: the response schema checks its shape, not its readonly-ness. No copy: the value is what is sent. */
export const jsonBody = <T>(value: T): JsonBody<T> => value as JsonBody<T>;

/**
 * A 200 JSON answer whose text is already written (the set form, from the texts its ids hashed:
 * core/sets/texts.ts), typed as `value`'s JSON for the route's schema. `text` is
 * JSON.stringify(value)'s, as c.json would send (test/core/set-texts.test.ts holds it).
 */
export const jsonText = <T extends object>(c: Context, value: T, text: string): Response & TypedResponse<JSONParsed<T>, 200, 'json'> =>
  c.body(text, 200, { 'content-type': 'application/json' }) as unknown as Response & TypedResponse<JSONParsed<T>, 200, 'json'>;
