/** An object's identity: kind, namespace (absent for cluster-scoped kinds) and name. */
export interface ObjectRef {
  readonly kind: string;
  readonly namespace?: string | undefined;
  readonly name: string;
}

/**
 * `kind/namespace/name` ('' for cluster-scoped kinds): one object per key in a snapshot. The one
 * spelling of an object's identity: duplicates, hashing, lint findings, previews and verdict
 * explanations all key objects by it.
 */
export function objectKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace ?? ''}/${ref.name}`;
}
