/**
 * `kind/namespace/name` ('' for cluster-scoped kinds): one object per key in a snapshot. The one
 * spelling of an object's identity: duplicates, hashing, lint findings, previews and verdict
 * explanations all key objects by it.
 */
export function objectKey(ref: { readonly kind: string; readonly namespace?: string | undefined; readonly name: string }): string {
  return `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}
