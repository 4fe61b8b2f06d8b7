// Reads a request body as JSON or (multi-document) YAML. The size limit is enforced by the
// bodyLimit middleware before this runs.
import { parseAllDocuments } from 'yaml';
import { ApiError } from './errors.js';
import { listItems } from '../schemas/snapshot.js';

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
function fromYamlDocuments(docs: unknown[]): unknown {
  const request = docs.filter((d) => isObject(d) && d.kind === undefined);
  const objects = docs.filter((d) => !(isObject(d) && d.kind === undefined) && d !== null);
  if (request.length > 1) throw new ApiError('bad_request', 'a YAML body may hold at most one request document (one without `kind`)');
  const head: Record<string, unknown> = isObject(request[0]) ? { ...request[0] } : {};
  if (objects.length === 0) return head;
  const base = head.snapshot;
  const items: unknown[] = Array.isArray(base) ? [...base] : isObject(base) && Array.isArray(base.items) ? [...(listItems(base) ?? base.items)] : [];
  // Lists (`kind: List`, `NetworkPolicyList`, …) are read as the CLI reads them: their items.
  for (const o of objects) items.push(...(listItems(o) ?? [o]));
  head.snapshot = { apiVersion: 'v1', kind: 'List', items };
  return head;
}

export function parseBody(text: string, contentType: string | undefined): unknown {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (text.trim() === '') throw new ApiError('bad_request', 'the request body is empty');
  if (YAML_TYPES.includes(type)) {
    const docs = parseAllDocuments(text);
    const list = Array.isArray(docs) ? docs : [docs];
    for (const d of list) {
      if (d.errors.length > 0) {
        const e = d.errors[0]!;
        throw new ApiError('bad_request', `malformed YAML: ${e.message.split('\n')[0]}`);
      }
    }
    try {
      return fromYamlDocuments(list.map((d) => d.toJS({ maxAliasCount: 100 }) as unknown));
    } catch (e) {
      // Unresolved or too many aliases surface only when the document is turned into values.
      if (e instanceof ApiError) throw e;
      throw new ApiError('bad_request', `malformed YAML: ${(e as Error).message.split('\n')[0]}`);
    }
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
