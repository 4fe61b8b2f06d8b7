// A problem of the input, where it is (a JSON path) and which object it is about: what every 422
// carries, from the schemas and from the checks after them.
import { z } from './zod.js';

export const ValidationIssueSchema = z.object({
  path: z.string().describe('JSON path of the offending value, e.g. $.snapshot.items[3].spec.ingress[0].ports[0].endPort'),
  message: z.string(),
  object: z
    .object({ apiVersion: z.string().optional(), kind: z.string().optional(), namespace: z.string().optional(), name: z.string().optional() })
    .optional(),
});
export type ValidationIssue = z.infer<typeof ValidationIssueSchema>;

/** A JSON path: `base` then each key (`.name`, `[3]`, `["key with spaces"]`). */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (typeof p === 'string' && /^[A-Za-z_$][\w$]*$/.test(p)) out += `.${p}`;
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}
