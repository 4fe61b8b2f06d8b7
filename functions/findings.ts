// A lint finding as the API answers it (POST /v1/lint, and the lints of POST /v1/previews).
import type { Finding } from '../core/lint/index.js';

/** `path` points into the request, `pathInObject` into the object. */
export function apiFinding(f: Finding) {
  const { snapshotPath, path, ...rest } = f;
  return { ...rest, path: snapshotPath ?? path, pathInObject: path };
}
