// A version's cluster objects from the previous version's when only Namespace objects were
// replaced (the same names: labels or annotations edited), without indexing every pod again.
// Namespaces are in name order and pods point at theirs by index, so a namespace replaced by
// one of the same name keeps its index and every pod, node, address and warning stays as it
// was; only the namespace's own facts change. (A namespace the previous version assumed, for
// pods without a Namespace object, has no object to replace: its object is an addition, and
// the caller builds afresh.)
import type { Namespace } from '../../schemas/k8s/core.js';
import { namespaceInfo, type ClusterObjects } from './cluster.js';

/** A Namespace object of the base, and what replaces it. */
export interface NamespaceReplacement {
  readonly before: Namespace;
  readonly after: Namespace;
}

/** Equal to buildClusterObjects over the base's objects with those namespaces replaced; null when one was not an object of the base. */
export function replaceNamespaces(base: ClusterObjects, replacements: readonly NamespaceReplacement[]): ClusterObjects | null {
  const namespaces = base.namespaces.slice();
  const nsByName = new Map(base.nsByName);
  for (const { before, after } of replacements) {
    const old = base.nsByName.get(after.metadata.name);
    if (!old || before.metadata.name !== old.name) return null;
    const info = namespaceInfo(old.idx, after);
    namespaces[old.idx] = info;
    nsByName.set(info.name, info);
  }
  return { ...base, namespaces, nsByName };
}
