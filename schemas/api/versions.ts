// Request body of PUT /v1/clusters/{cluster}/snapshots/{rv} when it carries changes, not a snapshot.
import { z } from '@hono/zod-openapi';
import { ChangesSchema } from './preview.js';

export const VersionFromChangesSchema = z
  .object({
    base: z.string().min(1).openapi({ description: 'the stored version the changes apply to (normally the latest)' }),
    changes: ChangesSchema.openapi({ description: 'objects deleted (by kind/namespace/name), then objects applied (created or replaced), as a watcher saw them change' }),
  })
  .strict()
  .openapi('VersionFromChanges');
export type VersionFromChanges = z.infer<typeof VersionFromChangesSchema>;

/** Whether a PUT body is a change on a base version rather than a snapshot. */
export function isChangesBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'changes' in body && !('items' in body);
}
