// Reads a request body as JSON or (multi-document) YAML. The size limit is enforced by the
// bodyLimit middleware before this runs (the server's, and a route's own: routeBodyLimit).
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { yamlDocuments } from './yaml-documents.js';
import { ApiError } from './errors.js';
import { listItems, type ValidationIssue } from '../schemas/snapshot.js';

const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * YAML bodies may hold several documents: one request document (it has no `kind`; e.g.
 * `flows:`), and the rest are snapshot objects or Lists, appended to `snapshot`. So
 * `cat request.yaml cluster.yaml | curl --data-binary @- -H 'content-type: application/yaml'`
 * works.
 */
/** Lenient reading: the YAML documents left out of a body's snapshot, by the snapshot object the body produced. */
export const leftOutDocuments = new WeakMap<object, ValidationIssue[]>();

/**
 * Requests whose `snapshot` this reader assembled from a YAML body of objects alone (no request
 * document): the client wrote no `snapshot` member, so a route whose body is the snapshot reports
 * problems at `$.items[i]`, not `$.snapshot.items[i]`.
 */
export const assembledSnapshots = new WeakSet<object>();

function fromYamlDocuments(docs: unknown[], broken: ValidationIssue[]): unknown {
  const request = docs.filter((d) => isObject(d) && d.kind === undefined);
  const objects = docs.filter((d) => !(isObject(d) && d.kind === undefined) && d !== null);
  if (request.length > 1) throw new ApiError('bad_request', 'a YAML body may hold at most one request document (one without `kind`)');
  const head: Record<string, unknown> = isObject(request[0]) ? { ...request[0] } : {};
  if (objects.length === 0 && broken.length === 0) return head;
  const base = head.snapshot;
  const items: unknown[] = Array.isArray(base) ? [...base] : isObject(base) && Array.isArray(base.items) ? [...(listItems(base) ?? base.items)] : [];
  // Lists (`kind: List`, `NetworkPolicyList`, …) are read as the CLI reads them: their items.
  for (const o of objects) items.push(...(listItems(o) ?? [o]));
  // The metadata of the body's List (its resourceVersion: POST …/snapshots names the version by
  // it), when the Lists in the body agree on one.
  const lists = objects.filter((o) => isObject(o) && isObject(o.metadata) && listItems(o) !== null) as { metadata: Record<string, unknown> }[];
  const versions = new Set(lists.map((l) => l.metadata.resourceVersion).filter((v) => typeof v === 'string'));
  const metadata = versions.size === 1 ? { resourceVersion: [...versions][0] } : null;
  const snapshot = { apiVersion: 'v1', kind: 'List', ...(metadata ? { metadata } : {}), items };
  if (broken.length > 0) leftOutDocuments.set(snapshot, broken);
  head.snapshot = snapshot;
  if (request.length === 0) assembledSnapshots.add(head);
  return head;
}

/** `lenient` (`?lenient=true`): a malformed YAML document is left out and reported, not a 400. */
export function parseBody(text: string, contentType: string | undefined, lenient = false): unknown {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (text.trim() === '') throw new ApiError('bad_request', 'the request body is empty');
  if (YAML_TYPES.includes(type)) {
    const broken: ValidationIssue[] = [];
    const values: unknown[] = [];
    yamlDocuments(text).forEach((d, i) => {
      if (d.error === undefined) return void values.push(d.value);
      const message = `malformed YAML: ${d.error}`;
      if (!lenient) throw new ApiError('bad_request', message);
      broken.push({ path: `document ${i + 1} of the body`, message });
    });
    return fromYamlDocuments(values, broken);
  }
  if (type === 'application/json' || type.endsWith('+json') || type === 'text/plain') {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ApiError('bad_request', `malformed JSON: ${(e as Error).message}`);
    }
  }
  throw new ApiError('unsupported_media_type', `unsupported content-type "${type}"; send application/json or application/yaml`);
}

/**
 * A route's own body limit, below the server's (MAX_BODY_BYTES): checked on Content-Length
 * before anything is read, and while a body without one streams in, so a body past it is never
 * buffered or parsed. `route` names the route in the 413.
 */
export function routeBodyLimit(route: string, maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError('too_large', `the body of ${route} is larger than its limit of ${maxBytes} bytes (it carries a few fields, never a snapshot)`);
    },
  });
}
